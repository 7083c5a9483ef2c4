#!/usr/bin/env bash
# repredict.sh LOOP COSTS OUT: a finished validate-local loop predicted again from another cost
# model (COSTS, the loop's costs.json edited), the loop's own scenarios, runs and machine speeds,
# then validated into OUT/validation.txt: what one term moves, on the same runs. Used by
# no-copy.sh (here) and ../validate-local-2026-12-02-process/no-process.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd); vitsim=$root/build/bin/vitsim
loop=$1 costs=$2 out=$3
preds=()
for c in emulated-400mbit emulated-100mbit emulated-400mbit-slow; do
  "$vitsim" simulate "$loop/scenario-$c.json" --costs "$costs" --out "$out/prediction-$c" \
    > /dev/null
  preds+=("$out/prediction-$c.json")
done
"$vitsim" validate --measured "$loop"/runs/*.json --predicted "${preds[@]}" \
  --machine-speed "$loop/machine-speed.txt" -o "$out/validation.txt"
