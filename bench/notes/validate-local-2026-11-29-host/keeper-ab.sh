#!/bin/bash
# keeper A/B: does a steady memory streamer (SCHED_IDLE, 64 MiB, both CPUs) make a device's speed
# independent of its neighbours? 1-rank (with a filler, as validate-local) vs 2-rank runs.
set -u
R=/work/main; T=$R/build/bin/vitsim-train; E=$R/scripts/emulate-cluster; O=/tmp/kexp
model=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
common=(--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll)
[[ -d $O/data ]] || $T make-dataset --out $O/data --train-images 4096 --test-images 64 --seed 1 >/dev/null
filler() { taskset -c $1 $E --hosts 1 --cpu 0.4 -- bash -c "while true; do $T profile ${model[*]} --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision fp32 --device-id f --out $O/f$1.json >/dev/null 2>&1; done" >/dev/null 2>&1 & echo $!; }
keepers() { for c in 0 1; do taskset -c $c chrt --idle 0 $O/mem 100000 64 >/dev/null & done; }
run1() { # label
  local f=$(filler 0); sleep 5
  $E --hosts 1 --rate 400mbit --cpu 0.4 -- $T train --data $O/data "${model[@]}" "${common[@]}" --precision fp32 --micro-batch 24 --data-fraction 0.0703125 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/$1.json >/dev/null 2>&1
  kill -TERM -- $f 2>/dev/null; kill $f 2>/dev/null; pkill -f "device-id f --out" ; sleep 1
}
run2() {
  $E --hosts 2 --rate 400mbit --cpu 0.4 -- $T train --data $O/data "${model[@]}" "${common[@]}" --precision fp32 --micro-batch 24 --data-fraction 0.140625 --cluster emulated-400mbit --device-id emu-cpu-40 --run-log $O/$1.json >/dev/null 2>&1
}
for r in 1 2 3; do
  run1 r1-plain-$r
  keepers; run1 r1-keep-$r; pkill -f "mem 100000 64"
  run2 r2-plain-$r
  keepers; run2 r2-keep-$r; pkill -f "mem 100000 64"
done
