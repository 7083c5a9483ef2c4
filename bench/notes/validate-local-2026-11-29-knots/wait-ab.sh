#!/bin/bash
# A/B: profile with and without an untimed 60-ms wait before the optimizer, beside a 2-rank run, 0.4-CPU hosts
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
O=/tmp/ab-wait
for r in 1 2 3 4; do
  for w in 0 60; do
    scripts/emulate-cluster --hosts 1 --cpu 0.4 -- build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --wait-before-optimizer-ms $w --out $O/w$w-$r.json > /dev/null 2>&1
  done
  scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-names node0,node1 -- build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 --data-fraction 0.3515625 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/run-$r.json > /dev/null 2>&1
  scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 --host-names node0 -- build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 --data-fraction 0.17578125 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/run1-$r.json > /dev/null 2>&1
  echo "$(date +%T) round $r"
done
