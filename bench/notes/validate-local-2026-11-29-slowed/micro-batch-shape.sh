#!/bin/bash
# Is a 0.4-CPU device's step at the runs' micro-batches (12, 24) on the line through the profiled
# ones (8, 16, 32)? validate-local calibrates from 8/16/32 and predicts 12/24. Per round, one
# profile pass as validate-local's (the fp32 device on CPU 0 beside the ds-bf16 profile, the
# 0.2-CPU device on CPU 1), the fp32 device at micro-batches 8,12,16,24,32 in one process (order
# ascending in odd rounds, descending in even ones). Usage (root, repository root):
#   bench/notes/validate-local-2026-11-29-slowed/micro-batch-shape.sh OUT ROUNDS
set -u
out=$1; rounds=${2:-2}; mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$(dirname "$0")/common.sh"  # B, M, pass_script
for order in 8,12,16,24,32 32,24,16,12,8; do
  P="$M --micro-batches $order --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
  pass_script $out/p-$order.sh "$P" ds-bf16
done
for ((round = 1; round <= rounds; round++)); do
  order=8,12,16,24,32; ((round % 2 == 0)) && order=32,24,16,12,8
  o=$out/round-$round; mkdir -p $o
  OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash $out/p-$order.sh > $o/emu-p.txt 2>&1
  python3 - $o/p0.json $round $order <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {c['micro_batch']: 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers']) for c in d['compute']}
line = 'round %s (order %s): ' % (sys.argv[2], sys.argv[3]) + ' / '.join('mb%d %.1f' % (b, t[b]) for b in sorted(t))
line += ' ms | 12 against the 8-16 chord %+.1f %%, 24 against the 16-32 chord %+.1f %%' % (
    100 * (t[12] / ((t[8] + t[16]) / 2) - 1), 100 * (t[24] / ((t[16] + t[32]) / 2) - 1))
print(line)
PY
done
