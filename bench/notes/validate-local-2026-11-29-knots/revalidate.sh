#!/bin/bash
# revalidate LOOPDIR OUTDIR [vitsim]: re-run validate-local's steps 6-7 (calibrate, simulate, validate) on a
# finished loop's measurements (profiles, runs, scenarios) with the model of this build.
set -eu
L=$1 O=$2 V=${3:-/work/main/build/bin/vitsim}
root=/work/main
mkdir -p "$O"
clusters=()
for c in emulated-400mbit emulated-100mbit emulated-400mbit-slow; do clusters+=("$root/platforms/$c.json"); done
regimes=fp32,ds-bf16
"$V" calibrate "$L"/profiles/*.json --clusters "${clusters[@]}" --precisions "$regimes" -o "$O/costs.json" > "$O/calibrate.txt" 2>&1
preds=()
for c in emulated-400mbit emulated-100mbit emulated-400mbit-slow; do
  "$V" simulate "$L/scenario-$c.json" --costs "$O/costs.json" --out "$O/prediction-$c" > "$O/simulate-$c.txt" 2>&1
  preds+=("$O/prediction-$c.json")
done
"$V" validate --measured "$L"/runs/*.json --predicted "${preds[@]}" -o "$O/validation.txt" > /dev/null 2>&1
grep -E "^(median|worst|inside|runs inside)" "$O/validation.txt"
