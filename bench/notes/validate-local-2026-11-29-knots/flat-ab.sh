#!/bin/bash
cd /work/main
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
O=/tmp/ab-flat
for r in 1 2 3; do
  for mode in scattered flat; do
    env $([[ $mode == flat ]] && echo VITSIM_FLAT_GRADS=1) scripts/emulate-cluster --hosts 1 --cpu 0.4 -- build/bin/vitsim-train profile $M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --out $O/p-$mode-$r.json > /dev/null 2>&1
  done
  scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-names node0,node1 -- build/bin/vitsim-train train --data /tmp/vl-d/data $M --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 --data-fraction 0.3515625 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/run-$r.json > /dev/null 2>&1
  echo "$(date +%T) round $r"
done
