#!/bin/bash
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
P="build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40"
for r in 1 2; do
 for w in 0 60; do
  echo "== round $r sleep $w $(date +%T)"
  scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --mpirun-arg=-x --mpirun-arg=VITSIM_AB_SLEEP_MS=$w -- /tmp/ab-peer/prof-rank.sh $P 2>&1 | grep AB
 done
done
