#!/usr/bin/env bash
# Side by side: vitsim-train bench-allreduce reporting the median (old) and the mean (new) of its
# iterations, alternating, on the emulated links of validate-local (2 ranks, 0.4 CPU, tbf).
set -u
cd "$(dirname "$0")/../../.."
out=${1:?usage: ab.sh OUT}
for round in 1 2 3 4; do
  for rate in 400mbit 100mbit; do
    for kind in median mean; do
      scripts/emulate-cluster --hosts 2 --rate $rate --cpu 0.4 -- ${TRAIN_PREFIX:-/tmp/train}-$kind bench-allreduce \
        --min-bytes 1M --max-bytes 8M --warmup 1 --iterations 5 --link-class emu-tbf-$rate --mpi-wait poll \
        --device-id emu-cpu-40 --out $out/$kind-$rate-$round.json > $out/$kind-$rate-$round.txt 2>&1 || echo "fail $kind $rate $round"
    done
  done
done
