#!/bin/bash
# A/B: does a spinner of the lowest priority on every CPU (SCHED_IDLE: it runs only when nothing
# else on its CPU can, so a vCPU of this Firecracker VM never halts) make each emulated device's
# runs match its profile? The gap left (docs/validation.md, "A rank slow for the whole run"): the
# 0.2-CPU device ran 0.87-1.05x its profiles' line in the loops of 2026-12-02, alone on its CPU
# (2 ranks) or beside a 0.4-CPU rank that waits for it part of each step (4 ranks), and a device
# alone on an idle CPU measured 5-20 % slower than beside a busy one (docs/validation.md,
# "Profiles side by side", "the other CPU's load"). Per round and mode: a profile pass as
# validate-local's (common.sh of 2026-11-29-slowed), the 2-rank (micro-batch 24) and 4-rank
# (micro-batch 12) slowed-host runs; "base" as validate-local places them today (a 0.4-CPU filler
# beside the 2-rank run's lone 0.4-CPU rank), "spin" the same with one SCHED_IDLE spinner pinned
# to each CPU throughout. Usage (root, repository root):
#   bench/notes/validate-local-2026-12-02-spin/spin-ab.sh OUT ROUNDS
set -u
out=$1; rounds=${2:-2}; mkdir -p "$out"; out=$(cd "$out" && pwd)
# P, T, start_filler, stop_bg, slowed_round:
source "$(dirname "$0")/../validate-local-2026-11-29-slowed/slowed-runs.sh"
start_spinners() {
  local c
  for c in 0 1; do setsid chrt --idle 0 taskset -c $c bash -c 'while :; do :; done' & bg+=($!); done
}
for ((round = 1; round <= rounds; round++)); do
  for mode in base spin; do
    o=$out/$mode-$round; mkdir -p $o
    [[ $mode == spin ]] && start_spinners
    slowed_round $o
  done
  /usr/bin/python3 - $out $round <<'PY'
import json, sys, os
out, rnd = sys.argv[1], sys.argv[2]
def fb(x): return 1e3 * (x['forward_time_s'] + x['backward_time_s'])
def prof(path):
    p = {}
    for c in json.load(open(path))['compute']:
        p[c['micro_batch']] = 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers'])
    return p
s = [f'round {rnd}:']
for mode in ('base', 'spin'):
    d = f'{out}/{mode}-{rnd}'
    fast, slow = prof(f'{d}/p0.json'), prof(f'{d}/p1.json')
    s.append(f'{mode}: profiles 0.4 {fast[12]:.0f}/{fast[24]:.0f} 0.2 {slow[12]:.0f}/{slow[24]:.0f} ms')
    for r, k, mb in (('r2', 1, 24), ('r4', 3, 12)):
        f = f'{d}/{r}.json'
        if os.path.exists(f):
            run = json.load(open(f))
            v, w = fb(run['ranks'][k]), fb(run['ranks'][0])
            s.append(f'{r} epoch {run["epochs"][0]["epoch_time_s"]:.1f} s slowed x{v / slow[mb]:.2f} rank0 x{w / fast[mb]:.2f}')
print(' | '.join(s), flush=True)
PY
done
