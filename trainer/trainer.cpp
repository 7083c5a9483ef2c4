// Trainer set-up, the run loop over epochs, and the outputs (trainer.h). The per-step work is in
// trainer_epoch.cpp.
#include "trainer/trainer.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

#include "schema/json_file.h"
#include "schema/temp_cleanup.h"
#include "trainer/multi_tensor_adamw.h"
#include "trainer/rank_summary_pack.h"
#include "trainer/run_context.h"
#include "trainer/tf32_switch.h"
#include "trainer/train_files.h"

namespace vitsim::trainer {
namespace {

// Which AdamW step runs (multi_tensor_adamw.h), for the start-up line.
std::string adamw_note(const torch::optim::Optimizer& optimizer) {
  const auto* adamw = dynamic_cast<const MultiTensorAdamW*>(&optimizer);
  if (adamw == nullptr) return "";
  return adamw->fused_kernel() ? ", AdamW fused kernel" : ", AdamW foreach";
}

volatile std::sig_atomic_t g_interrupts = 0;
volatile std::sig_atomic_t g_signal = 0;  // the first one received

extern "C" void on_interrupt(int sig) {
  // First Ctrl-C / SIGTERM / SIGHUP: stop at the next step boundary (agreed by all ranks).
  // Second: now, with what a file being written left removed, by the shells' code for it.
  const std::sig_atomic_t earlier = g_interrupts;  // (++ on a volatile is deprecated in C++20)
  g_interrupts = earlier + 1;
  if (earlier == 0) {
    g_signal = sig;
    return;
  }
  const char msg[] = "vitsim-train: interrupted again, exiting now\n";
  (void)!::write(2, msg, sizeof(msg) - 1);
  schema::remove_temporaries_now();
  std::_Exit(exit_code_of_signal(sig));
}

// The signals that stop a run, where they would end the process (not where they are ignored:
// `nohup` keeps SIGHUP away, a background job SIGINT).
void catch_interrupts() {
  for (int sig : kStopSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

CifarImages load_split(const std::string& dir, CifarFormat format, bool train) {
  return read_cifar_split(dir, format, train);
}

}  // namespace

bool interrupted_flag() {
  return g_interrupts > 0;
}

int interrupt_signal() {
  return g_signal;
}

Trainer::Trainer(TrainOptions options, MpiWorld& world, std::vector<std::string> argv)
    : options_(std::move(options)), world_(world), argv_(std::move(argv)) {
  // Before any work: no output is an input or another output (schema/output_rule.h); every
  // group written later is declared with these inputs.
  files_ = train_files(options_, world_.rank(), world_.size());
  schema::check_outputs(files_.inputs, files_.outputs);
  catch_interrupts();
  configure_threads(static_cast<int>(options_.threads));
  if (options_.device == "cuda") {
    if (!torch::cuda::is_available()) {
      throw std::invalid_argument("--device cuda: no CUDA device (or a CPU-only LibTorch)");
    }
    device_ = torch::Device(torch::kCUDA, world_.local_rank() % torch::cuda::device_count());
  }
  if (options_.precision == costmodel::Regime::kTf32) enable_tf32(options_.device);
  if (options_.backend == "auto") options_.backend = options_.device == "cuda" ? "nccl" : "mpi";

  const CifarFormat format = detect_cifar_format(options_.data_dir);
  train_images_ = load_split(options_.data_dir, format, true);
  if (options_.evaluate) test_images_ = load_split(options_.data_dir, format, false);
  options_.model.classes = cifar_classes(format);  // the head follows the data

  SamplerOptions so;
  so.dataset_size = train_images_.size();
  so.data_fraction = options_.data_fraction;
  so.ranks = world_.size();
  so.rank = world_.rank();
  so.seed = options_.seed;
  sampler_ = std::make_unique<DistributedSampler>(so);
  BatchLoaderOptions lo;
  lo.image_size = options_.model.image_size;
  lo.augment = options_.augment;
  lo.seed = options_.seed;
  lo.pin_memory = options_.device == "cuda";
  loader_ = std::make_unique<BatchLoader>(train_images_, lo);

  comm_ = make_communicator(options_.backend, world_, options_.mpi_wait);
  build_model_and_optimizer();
  if (costmodel::math_type(options_.precision) == costmodel::MathType::kFp16) loss_scale_ = 65536.0;
  clock_offset_s_ = world_.estimate_clock_offset_s();
  if (!options_.dump_init_params.empty()) {
    const auto weights = weights_to_write();  // collective under ZeRO
    if (world_.rank() == 0) {
      schema::OutputGroup written(files_.inputs,
                                  {{"--dump-init-params", options_.dump_init_params},
                                   {"--dump-init-params", options_.dump_init_params + ".names"}});
      write_params(written, options_.dump_init_params, true, weights);
      written.commit();
    }
  }
}

Trainer::~Trainer() = default;

void Trainer::build_model_and_optimizer() {
  torch::manual_seed(options_.seed);
  model_ = ViT(options_.model);
  model_->to(device_);
  model_->train();
  // Every rank starts from rank 0's weights, like DDP (they are equal anyway: same seed).
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->parameters()) comm_->broadcast(p.data(), 0);
  }
  if (costmodel::is_deepspeed(options_.precision)) {
    // DeepSpeed-style: the fp32 model becomes the master copy; forward/backward run on a bf16
    // copy (same architecture, weights set from the master by MasterWeights; under ZeRO the
    // master copy is the rank's blocks, build_sharding).
    master_model_ = model_;
    model_ = ViT(options_.model);
    model_->to(device_, torch::kBFloat16);
    model_->train();
    if (options_.zero_stage == 0)
      master_ = std::make_unique<MasterWeights>(master_model_->parameters(), model_->parameters());
  }
  parameters_ = model_->parameters();
  build_sharding();
  make_optimizer(zero_ ? zero_->shards() : weights()->parameters());
  optimizer_->zero_grad();
  if (options_.zero_stage < 2) {
    // Stages 0-1 all-reduce the gradients; stages 2-3 reduce-scatter them unit by unit.
    GradientReducerOptions ro;
    ro.bucket_bytes = options_.bucket_bytes;
    ro.overlap = options_.overlap;
    ro.wire_dtype = wire_dtype(options_.precision);
    reducer_ = std::make_unique<GradientReducer>(parameters_, *comm_, ro);
  }
  if (!options_.resume.empty() && zero_) {
    resume_sharded();
  } else if (!options_.resume.empty()) {
    position_ = load_checkpoint(options_.resume, *weights(), *optimizer_, checkpoint_key(),
                                resume_bounds());
    if (master_) master_->refresh_model();
    epoch_totals_ = {position_.epoch_loss_sum, position_.epoch_correct, position_.epoch_samples};
    if (world_.rank() == 0) {
      std::cout << "vitsim-train: resumed from " << options_.resume << " at epoch "
                << position_.epoch + 1 << ", micro-step " << position_.micro_step << ", step "
                << position_.global_step << "\n";
    }
  }
}

int Trainer::run() {
  if (world_.rank() == 0) {
    std::cout << "vitsim-train: " << options_.model.name << " (" << count_parameters(*model_)
              << " parameters), " << world_.size() << " rank(s) x micro-batch "
              << options_.micro_batch << " x accumulation " << options_.accumulation
              << " = global batch " << options_.global_batch(world_.size()) << ", "
              << sampler_->images() << " images, " << sampler_->micro_steps(options_.micro_batch)
              << " micro-steps per epoch, "
              << (reducer_ ? std::to_string(reducer_->buckets()) + " gradient bucket(s)"
                           : std::to_string(model_->units()) + " reduce-scattered units")
              << ", overlap " << (options_.overlap ? "on" : "off") << ", " << comm_->backend()
              << ", " << costmodel::to_string(options_.precision) << adamw_note(*optimizer_)
              << ", ZeRO stage " << options_.zero_stage
              << (options_.activation_checkpointing ? ", activation checkpointing" : "") << "\n";
  }
  int code = 0;
  for (int64_t epoch = position_.epoch; epoch < options_.epochs; ++epoch) {
    const int64_t first = epoch == position_.epoch ? position_.micro_step : 0;
    const StepOutcome outcome = train_epoch(epoch, first);
    if (outcome == StepOutcome::kNan) return kExitNanLoss;  // no outputs: the state is garbage
    if (outcome == StepOutcome::kInterrupted) {
      code = exit_code_of_signal(stop_signal_);  // 128 + the signal, as a shell reports it
      break;
    }
    if (options_.max_steps > 0 && position_.global_step >= options_.max_steps) break;
  }
  print_allreduce_summary();  // before write_outputs: its --dump-params gathers are no step's
  write_outputs();
  return code;
}

// What the gradients put on the wire per optimizer step, counted by the communicator where the
// buffers leave (tests check 2 bytes per parameter for ds-bf16, 4 otherwise), and under ZeRO the
// reduce-scatters' and all-gathers' whole buffers (docs/sharding.md, "Traffic").
void Trainer::print_allreduce_summary() {
  if (world_.rank() != 0 || world_.size() < 2 || steps_.empty()) return;
  const int64_t params = count_parameters(*model_);
  const auto steps = static_cast<int64_t>(steps_.size());
  const auto line = [&](const char* what, int64_t bytes, const char* dtype) {
    const int64_t per_step = bytes / steps;
    std::printf(
        "vitsim-train: %s: %lld bytes per optimizer step, %s (%lld parameters x %.2f "
        "bytes)\n",
        what, static_cast<long long>(per_step), dtype, static_cast<long long>(params),
        static_cast<double>(per_step) / static_cast<double>(params));
  };
  const char* wire = c10::toString(wire_dtype(options_.precision));
  if (options_.zero_stage < 2) line("gradient all-reduce", comm_->allreduce_bytes(), wire);
  if (options_.zero_stage >= 2)
    line("gradient reduce-scatter", comm_->reduce_scatter_bytes(), wire);
  if (options_.zero_stage >= 1)
    line("parameter all-gather", comm_->allgather_bytes(),
         c10::toString(parameters_.front().scalar_type()));
  std::fflush(stdout);
}

std::vector<schema::RankStepSummary> Trainer::gather_rank_summaries(StepStatistic statistic) {
  // Every rank's medians (or means) go to every rank (rank 0 writes them), one packed row each.
  const schema::RankStepSummary mine =
      summarize_steps(world_.rank(), world_.host(), steps_, statistic);
  return unpack_rank_summaries(world_.allgather(pack_rank_summary(mine)), world_.hosts());
}

schema::RunConfig Trainer::run_config() const {
  schema::RunConfig c;
  c.model = options_.model;
  c.precision = options_.precision;
  c.cluster = options_.cluster;
  c.hosts = world_.hosts();
  c.device = options_.device_id;
  c.world_size = world_.size();
  c.micro_batch = options_.micro_batch;
  c.accumulation = options_.accumulation;
  c.global_batch = options_.global_batch(world_.size());
  c.data_fraction = options_.data_fraction;
  c.train_images = train_images_.size();
  c.optimizer = options_.optimizer;
  c.learning_rate = options_.learning_rate;
  c.bucket_bytes = options_.bucket_bytes;
  c.overlap = options_.overlap;
  c.backend = comm_->backend();
  c.seed = static_cast<int64_t>(options_.seed);
  c.dataset = to_string(train_images_.format);
  c.zero_stage = options_.zero_stage;
  c.activation_checkpointing = options_.activation_checkpointing;
  return c;
}

void Trainer::write_outputs() {
  std::vector<schema::RankStepSummary> ranks = gather_rank_summaries(StepStatistic::kMedian);
  std::vector<schema::RankStepSummary> means = gather_rank_summaries(StepStatistic::kMean);
  // This rank's outputs land together (the parameter dump and the run log), or none.
  const std::string dump = dump_params_path(options_, world_.rank());
  schema::OutputGroup written(files_.inputs,
                              {{"--dump-params", dump}, {"--run-log", options_.run_log}});
  if (!options_.dump_params.empty()) {
    // "{rank}" in the path: every rank writes its own copy (tests compare the ranks' weights).
    const bool per_rank = options_.dump_params.find("{rank}") != std::string::npos;
    const auto weights = weights_to_write();  // collective under ZeRO
    if (per_rank || world_.rank() == 0) write_params(written, dump, false, weights);
  }
  if (world_.rank() == 0 && !ranks.empty()) print_memory_check(ranks.front());
  if (options_.run_log.empty() || world_.rank() != 0) {
    written.commit();
    return;
  }
  schema::RunLog log;
  log.context = trainer_context(argv_, {{"device", options_.device_id},
                                        {"device_name", device_name(options_.device)},
                                        {"mpi_library", MpiWorld::library_version()}});
  log.config = run_config();
  log.epochs = epochs_;
  log.ranks = std::move(ranks);
  log.rank_means = std::move(means);
  schema::add_json(written, options_.run_log, schema::write_run_log_json(log));
  written.commit();
  std::cout << "vitsim-train: run log written to " << options_.run_log << "\n";
}

void Trainer::write_params(schema::OutputGroup& written, const std::string& path, bool with_names,
                           const std::vector<std::pair<std::string, torch::Tensor>>& weights) {
  std::string bytes, names;
  for (const auto& [name, value] : weights) {
    auto c = value.detach().to(torch::kCPU).contiguous();
    bytes.append(reinterpret_cast<const char*>(c.data_ptr<float>()), c.numel() * sizeof(float));
    names += torchvision_name(name) + " ";
    for (int64_t d = 0; d < c.dim(); ++d) names += (d ? "x" : "") + std::to_string(c.size(d));
    names += "\n";
  }
  written.add(path, bytes);
  if (with_names) written.add(path + ".names", names);
}

CheckpointKey Trainer::checkpoint_key() {
  return trainer::checkpoint_key(options_, world_.size());
}

ResumeBounds Trainer::resume_bounds() const {
  ResumeBounds b;
  b.epochs = options_.epochs;
  b.micro_steps_per_epoch = sampler_->micro_steps(options_.micro_batch);
  b.accumulation = options_.accumulation;
  b.samples_per_micro_step = options_.micro_batch * world_.size();
  return b;
}

void Trainer::maybe_checkpoint(bool force) {
  if (options_.checkpoint_dir.empty()) return;
  const bool due =
      options_.checkpoint_every > 0 && position_.global_step % options_.checkpoint_every == 0;
  if (!due && !force) return;
  TrainPosition p = position_;
  p.epoch_loss_sum = epoch_totals_.loss_sum;
  p.epoch_correct = epoch_totals_.correct;
  p.epoch_samples = epoch_totals_.samples;
  p.epoch_elapsed_s = MpiWorld::now_s() - epoch_started_s_;
  if (zero_) {
    save_sharded_checkpoint(p);  // every rank its own blocks
    return;
  }
  if (world_.rank() == 0) {
    const std::string path =
        save_checkpoint(options_.checkpoint_dir, *weights(), *optimizer_, p, checkpoint_key(),
                        options_.keep_checkpoints, files_.inputs);
    std::cerr << "vitsim-train: checkpoint " << path << "\n";
  }
}

}  // namespace vitsim::trainer
