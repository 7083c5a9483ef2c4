#!/bin/bash
# A/B: CFS period of the emulated hosts; 2-rank r2-mb12-400m runs and 1-host profiles, alternating.
set -u
cd /work/main
B=build/bin/vitsim-train
M=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
O=/tmp/ab-period
for round in 1 2 3; do
  for P in 10000 5000 2500; do
    scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --cpu-period $P --host-names node0,node1 -- \
      $B train --data /tmp/vl-d/data "${M[@]}" --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress \
      --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 12 --data-fraction 0.17578125 \
      --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/run-P$P-$round.json > $O/run-P$P-$round.txt 2>&1
    scripts/emulate-cluster --hosts 1 --cpu 0.4 --cpu-period $P -- \
      $B profile "${M[@]}" --micro-batches 8,16 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 \
      --precision fp32 --device-id emu-cpu-40 --out $O/prof-P$P-$round.json > $O/prof-P$P-$round.txt 2>&1
    echo "$(date +%T) round $round P $P done"
  done
done
