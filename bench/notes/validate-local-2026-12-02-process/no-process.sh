#!/usr/bin/env bash
# no-process.sh LOOP OUT: a finished validate-local loop predicted again without the run-level
# straggler term (costs.json with every device's process_spread_rel removed: the wait for the
# slowest rank's step noise only, as before 2026-12-02's change; the ranges then draw no process
# part either), the loop's own scenarios, runs and machine speeds, then validated: what the one
# new term moves, on the same runs. Read its point errors; its ranges are not the old model's.
set -euo pipefail
loop=$1 out=$2
mkdir -p "$out"
/usr/bin/python3 - "$loop/costs.json" "$out/costs-no-process.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d['devices']:
    dev.get('uncertainty', {}).pop('process_spread_rel', None)
json.dump(d, open(sys.argv[2], 'w'), indent=1)
PY
bash "$(dirname "$0")"/../validate-local-2026-12-02-copy/repredict.sh "$loop" \
  "$out/costs-no-process.json" "$out"
