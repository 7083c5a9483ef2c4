#!/usr/bin/env bash
# The process's first step against the micro-batch it is taken at (2026-11-30, quiet host: host
# check 0.96): the validate-local model profiled alone at micro-batch 8, then 24, twice, under the
# loop's 0.4-CPU quota; process_start_time_s of each. Then a 1-rank run at 24 with DeepSpeed-style
# per-step timers (its first forward). DATA: a validate-local data folder (/tmp/vl30-a/data).
set -euo pipefail
DATA=${1:?data folder}
model=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
for i in 1 2; do
  for b in 8 24; do
    scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 -- build/bin/vitsim-train profile \
      "${model[@]}" --micro-batches $b --warmup 2 --repetitions 8 --optimizer adamw --threads 1 \
      --precision fp32 --device-id emu-cpu-40 --out p$b-$i.json > /dev/null
  done
done
scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 -- build/bin/vitsim-train train \
  --data "$DATA" "${model[@]}" --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval \
  --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --micro-batch 24 \
  --data-fraction 0.17578125 --cluster emulated-400mbit --device-id emu-cpu-40 \
  --wall-clock-breakdown --run-log run-r1-mb24.json | grep "time (ms) | fwd:" | head -5
