#!/bin/bash
# Does `vitsim-train profile` time a step as `vitsim-train train` runs it? The same 0.4-CPU
# device in the same place (emulated host on CPU 0, beside a filler on CPU 0, as validate-local's
# 1-rank run), alternating per round: a profile at micro-batch 24 (2 untimed + 20 timed steps, as
# validate-local's profile passes take each micro-batch) and a 1-rank training epoch of 30 steps
# at micro-batch 24 (validate-local's r1-mb24-400m), order AB in odd rounds, BA in even ones.
# Prints per round the profile's mean forward + backward against the run's, per step (the run's
# from its DeepSpeed-style lines, every step after the first), and the run's epoch against
# process start + 30 x the profile's mean step. Usage (root, repository root, nothing else
# running): bench/notes/validate-local-2026-11-29-profile-vs-train/profile-vs-train.sh OUT ROUNDS
set -u
out=$1; rounds=${2:-4}; mkdir -p "$out"; out=$(cd "$out" && pwd)
B=$PWD/build/bin
M=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
"$B/vitsim-train" make-dataset --out "$out/data" --train-images 4096 --test-images 64 --seed 1 > /dev/null
# The filler: validate-local's (scripts/validate-local, "a busy neighbour"), on CPU 0 throughout.
cat > "$out/filler.sh" <<S
while kill -0 \$1 2>/dev/null; do
  $B/vitsim-train profile ${M[*]} --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --out $out/filler.json > /dev/null 2>&1 || sleep 1
done
S
taskset -c 0 ./scripts/emulate-cluster --hosts 1 --cpu 0.4 -- bash "$out/filler.sh" $$ > "$out/filler.txt" 2>&1 &
filler=$!
trap 'kill -TERM $filler 2>/dev/null; wait $filler 2>/dev/null' EXIT
sleep 5
profile() {  # round
  taskset -c 0 ./scripts/emulate-cluster --hosts 1 --cpu 0.4 -- "$B/vitsim-train" profile "${M[@]}" \
    --micro-batches 24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 \
    --device-id emu-cpu-40 --out "$out/profile-$1.json" > "$out/profile-$1.txt" 2>&1
}
train() {  # round
  taskset -c 0 ./scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 --host-names node0 -- \
    "$B/vitsim-train" train --data "$out/data" "${M[@]}" --optimizer adamw --lr 1e-3 --seed 1 \
    --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 \
    --micro-batch 24 --data-fraction 0.17578125 --cluster emulated-400mbit --device-id emu-cpu-40 \
    --wall-clock-breakdown --steps-per-print 1 --run-log "$out/run-$1.json" > "$out/run-$1.txt" 2>&1
}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then profile $r; train $r; else train $r; profile $r; fi
  python3 - "$out" $r <<'PY'
import json, re, statistics as st, sys
out, r = sys.argv[1], sys.argv[2]
c = json.load(open('%s/profile-%s.json' % (out, r)))['compute'][0]
pf = 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers'])
step = 1e3 * (sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers']) + c.get('data_time_s', 0) +
              c.get('host_to_device_time_s', 0) + c.get('step_overhead_time_s', 0) + c['optimizer_time_s'])
start = 1e3 * c.get('process_start_time_s', 0)
lines = [l for l in open('%s/run-%s.txt' % (out, r)) if '| fwd: ' in l]
fb = [float(re.search(r'fwd: ([\d.]+)', l).group(1)) + float(re.search(r'bwd_inner: ([\d.]+)', l).group(1)) for l in lines][1:]
run = json.load(open('%s/run-%s.json' % (out, r)))
epoch = 1e3 * run['epochs'][0]['epoch_time_s']
print('round %s: fwd+bwd profile mean %.1f ms, run mean %.1f median %.1f ms (run/profile %.3f mean, %.3f median, %d steps) | '
      'epoch %.0f ms against start + 30 x profile step %.0f ms (%+.1f %%)' % (
      r, pf, st.mean(fb), st.median(fb), st.mean(fb) / pf, st.median(fb) / pf, len(fb), epoch, start + 30 * step,
      100 * ((start + 30 * step) / epoch - 1)))
PY
done
