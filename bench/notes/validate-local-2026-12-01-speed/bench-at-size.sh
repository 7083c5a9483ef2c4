#!/usr/bin/env bash
# The loop's link benchmark (2 ranks, 400 Mbit, 0.4 CPU, --mpi-wait poll, 20 iterations) at the
# sizes it benchmarks (2 and 4 MiB) and at the model's own fp32 gradient (809,354 floats,
# 3,237,416 B), after 0.15 s and 0.3 s of compute: is the runs' 62-66 ms all-reduce transfer
# (phases.txt) what the benchmark measures at the gradient's size? Usage: bench-at-size.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?output folder}
mkdir -p "$out"
for g in 0.15 0.3; do
  for bytes in 2097152 3237416 4194304; do
    "$root/scripts/emulate-cluster" --hosts 2 --rate 400mbit --cpu 0.4 -- \
      "$root/build/bin/vitsim-train" bench-allreduce --min-bytes "$bytes" --max-bytes "$bytes" \
      --warmup 1 --iterations 20 --compute-before-s "$g" --link-class emu-tbf-400mbit \
      --mpi-wait poll --device-id emu-cpu-40 --out "$out/b-$g-$bytes.json" 2>&1 |
      grep -E "^ +[0-9]" | sed "s/^/after $g s: /"
  done
done | tee "$out/bench-at-size.txt"
