#!/bin/bash
# The fp32 0.4-CPU device's profile at micro-batches 8, 16, 24, 32 in up to three places,
# alternating per round (the order reversed in even rounds): "pass", validate-local's profile
# pass (3 emulated hosts of one job: the fp32 device and the ds-bf16 device on CPU 0, the 0.2-CPU
# device on CPU 1; ../validate-local-2026-11-29-slowed/common.sh); "filler", the device alone on
# CPU 0 beside validate-local's filler (fp32, micro-batch 24, in a loop: as the 1-rank run and
# ./profile-vs-train.sh place it); "pair" (with a third argument "pair"), the device alone on CPU 0
# beside the ds-bf16 device profiling 8, 16, 32 in a loop, each its own emulation, CPU 1 idle.
# Prints the forward + backward per step at each micro-batch. Usage (root, repository root,
# nothing else running):
#   bench/notes/validate-local-2026-11-29-profile-vs-train/pass-vs-alone.sh OUT ROUNDS [pair]
set -u
out=$1; rounds=${2:-3}; arms="pass filler${3:+ $3}"; mkdir -p "$out"; out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../validate-local-2026-11-29-slowed/common.sh"  # B, M, pass_script
P="$M --micro-batches 8,16,24,32 --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
pass_script "$out/pass.sh" "$P" ds-bf16
# A neighbour in a loop until $2 exists: $3 the profile's precision, $4 its micro-batches and steps.
cat > "$out/filler.sh" <<S
while kill -0 \$1 2>/dev/null && ! [[ -e \$2 ]]; do
  $B/vitsim-train profile $M --micro-batches \$4 --optimizer adamw --threads 1 --precision \$3 --device-id emu-cpu-40 --out $out/filler.json > /dev/null 2>&1 || sleep 1
done
S
pass() {  # dir
  OUTP=$1 ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash "$out/pass.sh" > "$1/emu.txt" 2>&1
}
beside() {  # dir precision "micro-batches and steps": the device on CPU 0 beside that neighbour
  taskset -c 0 ./scripts/emulate-cluster --hosts 1 --cpu 0.4 -- bash "$out/filler.sh" $$ "$1/stop" "$2" "$3" > "$1/filler.txt" 2>&1 &
  local f=$!
  sleep 5
  taskset -c 0 ./scripts/emulate-cluster --hosts 1 --cpu 0.4 -- $B/vitsim-train profile $P --precision fp32 \
    --device-id emu-cpu-40 --out "$1/p0.json" > "$1/emu.txt" 2>&1
  touch "$1/stop"; kill -TERM $f 2>/dev/null; wait $f 2>/dev/null
}
show() {  # dir label
  python3 - "$1/p0.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {c['micro_batch']: 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers']) for c in d['compute']}
print('%-16s' % sys.argv[2] + ' / '.join('mb%d %.1f' % (b, t[b]) for b in sorted(t)) + ' ms')
PY
}
filler() { beside "$1" fp32 "24 --warmup 0 --repetitions 60"; }
pair() { beside "$1" ds-bf16 "8,16,32 --warmup 2 --repetitions 20"; }
for ((r = 1; r <= rounds; r++)); do
  order=$arms; ((r % 2)) || order=$(echo $arms | tr ' ' '\n' | tac | tr '\n' ' ')
  for arm in $order; do mkdir -p "$out/$r-$arm"; $arm "$out/$r-$arm"; done
  for arm in $arms; do show "$out/$r-$arm" "round $r $arm"; done
done
