#!/usr/bin/env bash
# no-copy.sh LOOP OUT: a finished validate-local loop predicted again without the bucket copy
# (costs.json with every device's bucket_copy removed, the loop's own scenarios, runs and
# machine speeds), then validated: what the one new term moves, on the same runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd); vitsim=$root/build/bin/vitsim loop=$1 out=$2
mkdir -p "$out"
/usr/bin/python3 - "$loop/costs.json" "$out/costs-no-copy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d['devices']:
    dev.pop('bucket_copy', None)
json.dump(d, open(sys.argv[2], 'w'), indent=1)
PY
preds=()
for c in emulated-400mbit emulated-100mbit emulated-400mbit-slow; do
  "$vitsim" simulate "$loop/scenario-$c.json" --costs "$out/costs-no-copy.json" \
    --out "$out/prediction-$c" > /dev/null
  preds+=("$out/prediction-$c.json")
done
"$vitsim" validate --measured "$loop"/runs/*.json --predicted "${preds[@]}" \
  --machine-speed "$loop/machine-speed.txt" -o "$out/validation.txt"
