#!/bin/bash
# The A/B loop of phase-ab.sh and sweep-ab.sh: 3 rounds x 2 and 4 ranks x A (today's
# vitsim-train) and B (the same binary with VAR=VALUE in its environment, read by a patched
# build), each a 3.15 MiB all-reduce benchmark over 400 Mbit/s links at 0.4 CPU, after 0.15 s of
# busy time. Usage (root, repository root): link-ab.sh OUT VAR VALUE
set -u
out=${1:?OUT} var=${2:?VAR} value=${3:?VALUE}; mkdir -p "$out"
B=$PWD/build/bin/vitsim-train E=$PWD/scripts/emulate-cluster
for round in 1 2 3; do
  for n in 2 4; do
    for v in A B; do
      if [[ $v == B ]]; then export "$var=$value"; else unset "$var"; fi
      $E --hosts $n --rate 400mbit --cpu 0.4 -- $B bench-allreduce --min-bytes 3.15M --max-bytes 3.15M \
        --warmup 1 --iterations 20 --compute-before-s 0.15 --link-class emu-tbf-400mbit --mpi-wait poll \
        --device-id emu-cpu-40 --out $out/l-$round-$n-$v.json > $out/l-$round-$n-$v.txt 2>&1 ||
        echo fail $round $n $v
      t=$(grep -E '^ +[0-9]' $out/l-$round-$n-$v.txt | tail -1 |
        awk '{printf "from the last arrival %.2f ms, from the barrier %.2f ms", $5/1000, $8/1000}')
      echo "round $round ranks $n $v: $t"
    done
  done
done
