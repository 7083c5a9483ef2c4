p='trainer/trainer_epoch.cpp'
s=open(p).read()
s=s.replace("""namespace {
double now() {
  return MpiWorld::now_s();
}""","""namespace {
double now() {
  return MpiWorld::now_s();
}
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
double ab_opt_wall = 0, ab_opt_cpu = 0, ab_fb_wall = 0, ab_fb_cpu = 0;
int ab_n = 0;""",1)
s=s.replace("""void Trainer::optimizer_step(StepTimes& t) {
  const double t0 = now();""","""void Trainer::optimizer_step(StepTimes& t) {
  const double t0 = now();
  const double c0 = cpu_now();""",1)
s=s.replace("""  sync_device();
  t.optimizer_s += now() - t0;
}""","""  sync_device();
  t.optimizer_s += now() - t0;
  ab_opt_wall += now() - t0;
  ab_opt_cpu += cpu_now() - c0;
  ++ab_n;
}""",1)
s=s.replace("""  double t1 = now();
  t.host_to_device_s += t1 - t0;
""","""  double t1 = now();
  t.host_to_device_s += t1 - t0;
  const double c1 = cpu_now();
""",1)
s=s.replace("""  double t3 = now();
  t.backward_s += t3 - t2;""","""  double t3 = now();
  t.backward_s += t3 - t2;
  ab_fb_wall += t3 - t1;
  ab_fb_cpu += cpu_now() - c1;""",1)
s=s.replace("""  const double elapsed = now() - epoch_started_s_;
  estimate_waits(first_record);""","""  const double elapsed = now() - epoch_started_s_;
  std::fprintf(stderr, "AB rank %d: opt wall %.2f cpu %.2f ms; fb wall %.1f cpu %.1f ms (n %d)\\n", world_.rank(), ab_opt_wall/ab_n*1e3, ab_opt_cpu/ab_n*1e3, ab_fb_wall/ab_n*1e3, ab_fb_cpu/ab_n*1e3, ab_n);
  estimate_waits(first_record);""",1)
open(p,'w').write(s)
p='trainer/layer_profiler.cpp'
s=open(p).read()
s=s.replace("""  t = now();
  s.overhead_s += loss_backward_s + (t - te);
  optimizer_step();
  sync();
  s.optimizer_s = now() - t;""","""  t = now();
  s.overhead_s += loss_backward_s + (t - te);
  timespec c0, c1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  optimizer_step();
  sync();
  s.optimizer_s = now() - t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
  ab_cpu += (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
  ab_wall += s.optimizer_s;
  ++ab_n;""",1)
s=s.replace("""ProfiledStep Profiler::step(BatchLoader& loader) {""","""static double ab_cpu = 0, ab_wall = 0;
static int ab_n = 0;
ProfiledStep Profiler::step(BatchLoader& loader) {""",1)
s=s.replace("""  summarize_profiled_steps(timed, m);""","""  summarize_profiled_steps(timed, m);
  std::fprintf(stderr, "AB profile mb %lld: opt wall %.2f cpu %.2f ms (n %d)\\n", (long long)b, ab_wall/ab_n*1e3, ab_cpu/ab_n*1e3, ab_n);
  ab_cpu = ab_wall = 0; ab_n = 0;""",1)
open(p,'w').write(s)
