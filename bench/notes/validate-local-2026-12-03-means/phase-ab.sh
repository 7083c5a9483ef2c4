#!/bin/bash
# A/B: the link benchmark's compute before each all-reduce ends on the wall clock (A: at the start
# of a CFS period, quota fresh) or at a random point of the quota window (B: + U[0, TAIL) ms of CPU
# time, TAIL=4 by default). Needs a vitsim-train built with phase-tail.patch (B reads its
# VITSIM_EXP_CPU_TAIL_MS; without the patch A and B are the same). Usage (root, repository root):
#   bench/notes/validate-local-2026-12-03-means/phase-ab.sh OUT
set -u
out=${1:?OUT}; mkdir -p "$out"
B=$PWD/build/bin/vitsim-train E=$PWD/scripts/emulate-cluster
tail_ms=${TAIL:-4}
for round in 1 2 3; do
  for n in 2 4; do
    for v in A B; do
      if [[ $v == B ]]; then export VITSIM_EXP_CPU_TAIL_MS=$tail_ms; else unset VITSIM_EXP_CPU_TAIL_MS; fi
      $E --hosts $n --rate 400mbit --cpu 0.4 -- $B bench-allreduce --min-bytes 3.15M --max-bytes 3.15M \
        --warmup 1 --iterations 20 --compute-before-s 0.15 --link-class emu-tbf-400mbit --mpi-wait poll \
        --device-id emu-cpu-40 --out $out/l-$round-$n-$v.json > $out/l-$round-$n-$v.txt 2>&1 ||
        echo fail $round $n $v
      t=$(grep -E '^ +[0-9]' $out/l-$round-$n-$v.txt | tail -1 | awk '{print $5/1000, $9/1000}')
      echo "round $round ranks $n $v: mean_from_last_ms from_barrier_ms = $t"
    done
  done
done
