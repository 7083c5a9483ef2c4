#!/bin/bash
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
P="build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40"
T="build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 --cluster emulated-400mbit --device-id emu-cpu-40"
O=/tmp/ab-peer
for r in 1 2 3; do
  echo "== round $r $(date +%T)"
  echo "-- pair profile"; scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 -- /tmp/ab-peer/prof-rank.sh $P 2>&1 | grep AB
  echo "-- 2-rank run"; scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 -- $T --data-fraction 0.3515625 --run-log $O/c2-$r.json 2>&1 | grep AB
  echo "-- 1-rank run"; scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 -- $T --data-fraction 0.17578125 --run-log $O/c1-$r.json 2>&1 | grep AB
  echo "-- 1-rank run, no quota"; scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu none -- $T --data-fraction 0.17578125 --run-log $O/c1n-$r.json 2>&1 | grep AB
done
