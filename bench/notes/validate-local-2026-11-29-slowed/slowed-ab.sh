#!/bin/bash
# A/B: does a busy neighbour of its own quota on the slowed device's CPU, in its profile pass and
# in every run, make the slowed device's runs match its profile? The slowed-host class left
# (docs/validation.md, "A neighbour on every CPU"): the 0.2-CPU device, profiled alone on CPU 1,
# ran 0.99x its profile alone on its CPU (2 ranks) and 0.90-0.93x beside a 0.4-CPU rank that waits
# for it part of each step (4 ranks). Per round: a profile pass as validate-local's (0.4-CPU fp32
# and ds-bf16 profiles on CPU 0, the 0.2-CPU fp32 profile on CPU 1; micro-batches 12 and 24, the
# runs' own), then the 2-rank (micro-batch 24) and 4-rank (micro-batch 12) slowed-host runs;
# once as validate-local does today ("alone": a 0.4-CPU filler beside the 2-rank run's lone
# 0.4-CPU rank only) and once with a 0.2-CPU filler on CPU 1 throughout, profile pass included
# ("mate"). Usage (root, repository root):
#   bench/notes/validate-local-2026-11-29-slowed/slowed-ab.sh OUT ROUNDS
set -u
out=$1; rounds=${2:-2}; mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$(dirname "$0")/common.sh"  # B, M, pass_script
P="$M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
T="--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --device-id emu-cpu-40"
[[ -d $out/data ]] || $B/vitsim-train make-dataset --out $out/data --train-images 4096 --test-images 64 --seed 1 > /dev/null
pass_script $out/p.sh "$P" ds-bf16  # the pass as validate-local's (common.sh)
cat > $out/filler.sh <<S
while :; do $B/vitsim-train profile $M --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --out \$OUTP/filler.json > /dev/null 2>&1; done
S
fillers=()
stop_fillers() { for p in "${fillers[@]}"; do kill -- -$p 2>/dev/null; done; wait 2>/dev/null; fillers=(); }
trap stop_fillers EXIT
start_filler() {  # cpu quota
  OUTP=$out setsid taskset -c $1 ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 1 --cpu $2 -- bash $out/filler.sh > /dev/null 2>&1 &
  fillers+=($!)
  sleep 5
}
for ((round = 1; round <= rounds; round++)); do
  for mode in alone mate; do
    o=$out/$mode-$round; mkdir -p $o
    [[ $mode == mate ]] && start_filler 1 0.2
    OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash $out/p.sh > $o/emu-p.txt 2>&1
    start_filler 0 0.4   # the 2-rank run's rank 0 is alone on CPU 0 (validate-local's filler)
    ./scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-cpu 1=0.2 -- \
      $B/vitsim-train train --data $out/data $M $T --micro-batch 24 --data-fraction 0.3515625 --run-log $o/r2.json > $o/r2.txt 2>&1
    kill -- -${fillers[-1]} 2>/dev/null; wait ${fillers[-1]} 2>/dev/null; unset 'fillers[-1]'
    ./scripts/emulate-cluster --hosts 4 --rate 400mbit --cpu 0.4 --host-cpu 3=0.2 -- \
      $B/vitsim-train train --data $out/data $M $T --micro-batch 12 --data-fraction 0.3515625 --run-log $o/r4.json > $o/r4.txt 2>&1
    stop_fillers
  done
  python3 - $out $round <<'PY'
import json, sys, os
out, rnd = sys.argv[1], sys.argv[2]
def fb(x): return 1e3 * (x['forward_time_s'] + x['backward_time_s'])
s = [f'round {rnd}:']
for mode in ('alone', 'mate'):
    d = f'{out}/{mode}-{rnd}'
    prof = {}
    for c in json.load(open(f'{d}/p1.json'))['compute']:
        prof[c['micro_batch']] = 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers'])
    s.append(f'{mode}: slowed profile mb12/24 {prof[12]:.0f}/{prof[24]:.0f} ms')
    for r, slow, mb in (('r2', 1, 24), ('r4', 3, 12)):
        f = f'{d}/{r}.json'
        if os.path.exists(f):
            run = json.load(open(f))
            v = fb(run['ranks'][slow])
            s.append(f'{r} epoch {run["epochs"][0]["epoch_time_s"]:.1f} s slowed {v:.0f} ms (x{v / prof[mb]:.2f})')
print(' | '.join(s))
PY
done
