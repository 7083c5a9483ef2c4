#!/bin/bash
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
P="build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40"
T="build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --cluster emulated-400mbit --device-id emu-cpu-40"
O=/tmp/ab-peer
for r in 1 2 3; do
 for per in 10000 5000; do
  E="scripts/emulate-cluster --rate 400mbit --cpu 0.4 --cpu-period $per"
  echo "== round $r period $per $(date +%T)"
  echo "-- pair profile"; $E --hosts 2 -- /tmp/ab-peer/prof-rank.sh $P 2>&1 | grep AB; mv $O/cur-r0.json $O/pp$per-$r.json
  echo "-- 2-rank run mb24"; $E --hosts 2 -- $T --micro-batch 24 --data-fraction 0.3515625 --run-log $O/p2-$per-$r.json 2>&1 | grep AB
  echo "-- 4-rank run mb12"; $E --hosts 4 -- $T --micro-batch 12 --data-fraction 0.3515625 --run-log $O/p4-$per-$r.json 2>&1 | grep AB
 done
done
