#!/usr/bin/env bash
# Re-reads a finished validate-local loop with the machine speed: `cpu_canary report --speeds`
# from its canary samples and spans, then `vitsim validate --machine-speed` on its run logs and
# predictions. A loop of the first canary (one figure per unit: "start cpu_ms wall_ms") has its
# samples widened to the three-part form with that figure in every part, so the report reads it
# as the latency part. Usage: reread.sh LOOP_DIR OUT_DIR [BUILD_DIR]
set -euo pipefail
loop=${1:?loop folder} out=${2:?output folder} build=${3:-build}
mkdir -p "$out"
readings=()
for f in "$loop"/canary-cpu*.txt; do
  name=$(basename "$f" .txt); name=${name#canary-}
  if awk '!/^#/ { exit (NF == 3) ? 0 : 1 }' "$f"; then
    awk '/^#/ { next } NF == 3 { print $1, $2, $2, $2, $3 }' "$f" > "$out/canary-$name-wide.txt"
    readings+=("$name=$out/canary-$name-wide.txt")
  else
    readings+=("$name=$f")
  fi
done
"$build/bin/cpu_canary" report --spans "$loop/spans.txt" --speeds "$out/machine-speed.txt" \
  --reference profile-pass "${readings[@]}" > /dev/null
"$build/bin/vitsim" validate --measured "$loop"/runs/*.json \
  --predicted "$loop"/prediction-emulated-400mbit.json "$loop"/prediction-emulated-100mbit.json \
  "$loop"/prediction-emulated-400mbit-slow.json --machine-speed "$out/machine-speed.txt" \
  -o "$out/validation.txt" > /dev/null
rm -f "$out"/canary-*-wide.txt
sed -n '/^median absolute error:/,/^worst/p;/^median absolute error at/,$p' "$out/validation.txt"
