#!/bin/bash
# A/B: a profile alone on one emulated 0.4-CPU host vs two profiles at once on two such hosts
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
P="build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40"
O=/tmp/ab-peer
for r in 1 2 3; do
  scripts/emulate-cluster --hosts 1 --cpu 0.4 -- /tmp/ab-peer/prof-rank.sh $P > /dev/null 2>&1; mv $O/cur-r0.json $O/alone-$r.json
  scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 -- /tmp/ab-peer/prof-rank.sh $P > /dev/null 2>&1; mv $O/cur-r0.json $O/pair0-$r.json; mv $O/cur-r1.json $O/pair1-$r.json
  scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-names node0,node1 -- build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 --data-fraction 0.3515625 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/run2-$r.json > /dev/null 2>&1
  echo "$(date +%T) round $r"
done
