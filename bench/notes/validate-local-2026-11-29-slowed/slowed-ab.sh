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
source "$(dirname "$0")/slowed-runs.sh"  # P, T, start_filler, stop_bg, slowed_round
for ((round = 1; round <= rounds; round++)); do
  for mode in alone mate; do
    o=$out/$mode-$round; mkdir -p $o
    [[ $mode == mate ]] && start_filler 1 0.2
    slowed_round $o
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
