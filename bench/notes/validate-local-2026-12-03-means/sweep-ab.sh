#!/bin/bash
# A/B: the link benchmark's busy time before each all-reduce spins in registers (A, today) or
# sweeps a buffer of SWEEP_MB MiB (default 128, above the CPU's last-level cache), one write per
# 64-byte line (B), so that the all-reduce meets cold caches as after a training step's backward.
# Needs a vitsim-train built with sweep.patch (B reads its VITSIM_EXP_SWEEP_MB; without the patch A
# and B are the same). Usage (root, repository root):
#   bench/notes/validate-local-2026-12-03-means/sweep-ab.sh OUT
set -u
out=${1:?OUT}; mkdir -p "$out"
B=$PWD/build/bin/vitsim-train E=$PWD/scripts/emulate-cluster
sweep_mb=${SWEEP_MB:-128}
for round in 1 2 3; do
  for n in 2 4; do
    for v in A B; do
      if [[ $v == B ]]; then export VITSIM_EXP_SWEEP_MB=$sweep_mb; else unset VITSIM_EXP_SWEEP_MB; fi
      $E --hosts $n --rate 400mbit --cpu 0.4 -- $B bench-allreduce --min-bytes 3.15M --max-bytes 3.15M \
        --warmup 1 --iterations 20 --compute-before-s 0.15 --link-class emu-tbf-400mbit --mpi-wait poll \
        --device-id emu-cpu-40 --out $out/l-$round-$n-$v.json > $out/l-$round-$n-$v.txt 2>&1 ||
        echo fail $round $n $v
      t=$(grep -E '^ +[0-9]' $out/l-$round-$n-$v.txt | tail -1 |
        awk '{printf "from the last arrival %.2f ms, from the barrier %.2f ms", $5/1000, $8/1000}')
      echo "round $round ranks $n $v: $t"
    done
  done
done
