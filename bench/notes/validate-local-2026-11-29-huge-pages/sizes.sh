#!/usr/bin/env bash
# A sum over a buffer of 1-64 MiB (emu_probe memory MIB 3) on one emulated host, unrestricted and
# under a 0.2-CPU quota, with 4-KiB pages and with emulate-cluster's huge pages; prints the share
# of its CPU time the quota-bound sum gets (scripts/host-check's arithmetic: free / (Q x quota)).
# Usage: sizes.sh BUILD_DIR [ROUNDS]   (from the repository root; root, as emulate-cluster needs)
set -euo pipefail
build=${1:?build folder}; rounds=${2:-1}; q=0.2
pass_s() { scripts/emulate-cluster --hosts 1 --cpu "$1" --huge-pages "$2" -- \
             "$build/bin/emu_probe" memory "$3" 3 2>/dev/null | sed -n 's/.*time_s=//p'; }
for ((r = 1; r <= rounds; r++)); do
  for pages in off on; do
    for mib in 1 4 16 64; do
      free=$(pass_s none "$pages" "$mib"); slowed=$(pass_s "$q" "$pages" "$mib")
      awk -v p="$pages" -v m="$mib" -v f="$free" -v s="$slowed" -v q="$q" 'BEGIN {
        printf "round %d huge pages %-3s %2d MiB: free %7.3f ms, under %s CPU %8.3f ms: %.2f of its share\n",
          '"$r"', p, m, f * 1e3, q, s * 1e3, f / (q * s) }'
    done
  done
done
