#!/bin/bash
# A/B: is the 0.4-CPU fp32 profile slower beside the ds-bf16 profile (validate-local's pass: both
# on CPU 0) than beside an fp32 neighbour (the runs' filler)? Per round, two profile passes of the
# fp32 device at micro-batches 12 and 24 on CPU 0: beside the ds-bf16 profile ("dsbf16") and
# beside a second fp32 profile ("fp32"); the 0.2-CPU device profiles on CPU 1 in both, as in
# validate-local. Usage (root, repository root):
#   bench/notes/validate-local-2026-11-29-slowed/neighbour-ab.sh OUT ROUNDS
set -u
out=$1; rounds=${2:-2}; mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$(dirname "$0")/common.sh"  # B, M, pass_script
P="$M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
pass_script $out/p-dsbf16.sh "$P" ds-bf16
pass_script $out/p-fp32.sh "$P" fp32
for ((round = 1; round <= rounds; round++)); do
  line="round $round:"
  for mode in dsbf16 fp32; do
    o=$out/$mode-$round; mkdir -p $o
    OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash $out/p-$mode.sh > $o/emu-p.txt 2>&1
    line+=" | beside $mode: $(python3 -c "
import json, sys
d = json.load(open('$o/p0.json'))
print(' / '.join('mb%d %.0f ms' % (c['micro_batch'], 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers'])) for c in d['compute']))")"
  done
  echo "$line"
done
