#!/usr/bin/env bash
# A vitsim sweep split over several machines with GNU parallel over ssh (docs/sweeps.md): shard i
# of N runs on whichever host of HOSTS_FILE is free, its shard file comes back (--return), and
# vitsim sweep --merge writes the single-machine result to OUT.json, OUT.csv and stdout.
#   usage: sweep-parallel.sh HOSTS_FILE N OUT -- SWEEP_OPTIONS...
# Each host needs vitsim on its PATH and the sweep's input files at the same absolute paths.
# tests/cli/sweep_recipes_test.cpp runs it with GNU parallel, the hosts file ":" (this machine).
set -euo pipefail
if [[ $# -lt 4 || $4 != "--" ]]; then
  echo "usage: $0 HOSTS_FILE N OUT -- SWEEP_OPTIONS..." >&2
  exit 2
fi
hosts=$1 n=$2 out=$(realpath -m "$3")
shift 4
sweep=$(printf ' %q' "$@")
parallel --sshloginfile "$hosts" --jobs 1 --return "$out.shard{}.json" --cleanup \
  "vitsim sweep$sweep --shard {}/$n --json $out.shard{}.json" ::: $(seq 0 $((n - 1)))
vitsim sweep --merge $(seq -f "$out.shard%g.json" 0 $((n - 1))) --out "$out"
