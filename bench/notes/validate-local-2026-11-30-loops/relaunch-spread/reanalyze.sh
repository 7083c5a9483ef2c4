# reanalyze.sh LOOP_DIR OUT_DIR: calibrate, simulate and validate a loop's measurements again with build/bin/vitsim
set -eu
L=$1 O=$2 V=/work/main/build/bin/vitsim P=/work/main/platforms
rm -rf "$O"; mkdir -p "$O"
$V calibrate "$L"/profiles/*.json --clusters $P/emulated-100mbit.json $P/emulated-400mbit-slow.json $P/emulated-400mbit.json --precisions ds-bf16,fp32 -o "$O/costs.json" > "$O/calibrate.txt" 2>&1
preds=()
for s in "$L"/scenario-*.json; do c=${s##*/scenario-}; c=${c%.json}
  $V simulate "$s" --costs "$O/costs.json" --out "$O/prediction-$c" > "$O/simulate-$c.txt" 2>&1; preds+=("$O/prediction-$c.json"); done
$V validate --measured "$L"/runs/*.json --predicted "${preds[@]}" -o "$O/validation.txt" > /dev/null
