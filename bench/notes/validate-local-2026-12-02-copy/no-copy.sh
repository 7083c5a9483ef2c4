#!/usr/bin/env bash
# no-copy.sh LOOP OUT: a finished validate-local loop predicted again without the bucket copy
# (costs.json with every device's bucket_copy removed, the loop's own scenarios, runs and
# machine speeds), then validated: what the one new term moves, on the same runs.
set -euo pipefail
loop=$1 out=$2
mkdir -p "$out"
/usr/bin/python3 - "$loop/costs.json" "$out/costs-no-copy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d['devices']:
    dev.pop('bucket_copy', None)
json.dump(d, open(sys.argv[2], 'w'), indent=1)
PY
bash "$(dirname "$0")"/repredict.sh "$loop" "$out/costs-no-copy.json" "$out"
