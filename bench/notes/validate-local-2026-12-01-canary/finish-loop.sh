#!/usr/bin/env bash
# finish-loop.sh LOOP_DIR: steps 6-7 of scripts/validate-local (calibrate, predict, validate) on a loop whose script stopped after its runs (loop ua: the script was edited while it ran, and bash read the edit at its next line); the full configuration list, 30 steps.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd); vitsim=$root/build/bin/vitsim out=$1 steps=30 train_images=4096
configs=(
  "r1-mb24-400m emulated-400mbit 1 24 fp32"
  "r2-mb12-400m emulated-400mbit 2 12 fp32"
  "r2-mb24-400m emulated-400mbit 2 24 fp32"
  "r3-mb24-400m emulated-400mbit 3 24 fp32"
  "r4-mb12-400m emulated-400mbit 4 12 fp32"
  "r4-mb24-400m emulated-400mbit 4 24 fp32"
  "r2-mb24-100m emulated-100mbit 2 24 fp32"
  "r3-mb12-100m emulated-100mbit 3 12 fp32"
  "r4-mb24-100m emulated-100mbit 4 24 fp32"
  "r2-mb24-slow emulated-400mbit-slow 2 24 fp32 1"
  "r4-mb12-slow emulated-400mbit-slow 4 12 fp32 3"
  "r4-mb24-slow emulated-400mbit-slow 4 24 fp32 3"
  # DeepSpeed-style bf16 (bf16 weights and gradients, 2 bytes per parameter all-reduced, fp32
  # master copy): the halved all-reduce measured for real, predicted from a ds-bf16 profile.
  "r2-mb24-400m-dsbf16 emulated-400mbit 2 24 ds-bf16"
)
hosts_of() {  # ranks slow_index
  local names=() i
  for ((i = 0; i < $1; i++)); do names+=("node$i"); done
  [[ -n ${2:-} ]] && names[$2]=node3
  local IFS=,; echo "${names[*]}"
}
fraction_of() { awk -v s="$steps" -v b="$2" -v r="$1" -v n="$train_images" 'BEGIN { printf "%.12g", s * b * r / n }'; }
regimes=$(for c in "${configs[@]}"; do read -r _ _ _ _ regime _ <<< "$c"; echo "$regime"; done | sort -u)
log() { echo "finish-loop: $*" >&2; }
# ---- 6. calibrate ------------------------------------------------------------------------------
log "6/7 calibrate"
# The cluster files the configurations run on (a device of a file must have been profiled).
clusters=()
for cluster in $(for c in "${configs[@]}"; do read -r _ cl _ <<< "$c"; echo "$cl"; done | sort -u); do
  clusters+=("$root/platforms/$cluster.json")
done
"$vitsim" calibrate "$out"/profiles/*.json --clusters "${clusters[@]}" \
  --precisions "$(echo $regimes | tr ' ' ,)" \
  -o "$out/costs.json" > "$out/logs/calibrate.txt" 2>&1 ||
  { log "calibrate failed; see $out/logs/calibrate.txt"; exit 1; }

# ---- 7. predict (one scenario per cluster), then validate ---------------------------------------
# Each run is its process's one epoch: the scenarios predict the first epoch ("epoch": "first"),
# whose first step pays the process's start, not the loader's restart (docs/simulator.md).
log "7/7 predict ${#configs[@]} configurations"
predictions=()
for cluster in emulated-400mbit emulated-100mbit emulated-400mbit-slow; do
  entries=()
  for c in "${configs[@]}"; do
    read -r label cl ranks mb regime slow <<< "$c"
    [[ $cl == "$cluster" ]] || continue
    hosts_json=$(hosts_of "$ranks" "$slow" | sed 's/[^,]*/"&"/g')
    entries+=("{\"label\": \"$label\", \"precision\": \"$regime\", \"gpus\": $ranks, \"hosts\": [$hosts_json], \"micro_batch\": $mb, \"data_fraction\": $(fraction_of "$ranks" "$mb"), \"placement\": \"$([[ $ranks == 1 ]] && echo intra-node || echo inter-node)\"}")
  done
  [[ ${#entries[@]} -gt 0 ]] || continue
  scenario=$out/scenario-$cluster.json
  {
    echo '{"schema": "vitsim.scenario", "schema_version": 2,'
    echo " \"context\": {\"tool\": \"scripts/validate-local\", \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"host\": \"$(hostname)\"},"
    echo " \"name\": \"validate-local-$cluster\","
    echo " \"description\": \"scripts/validate-local: configurations run for real on $cluster\","
    echo " \"cluster\": \"$root/platforms/$cluster.json\","
    echo " \"model\": {\"preset\": \"vit_ti_16\", \"image_size\": 32, \"patch_size\": 4, \"width\": 128, \"depth\": 4, \"heads\": 4, \"classes\": 10},"
    echo " \"defaults\": {\"precision\": \"fp32\", \"optimizer\": \"adamw\", \"images\": $train_images, \"overlap\": false, \"collective\": \"ring\", \"bucket_bytes\": 26214400, \"epoch\": \"first\"},"
    echo " \"configurations\": ["
    (IFS=,; echo "  ${entries[*]}")
    echo ' ]}'
  } > "$scenario"
  "$vitsim" simulate "$scenario" --costs "$out/costs.json" --out "$out/prediction-$cluster" \
    > "$out/logs/simulate-$cluster.txt" 2>&1 ||
    { log "simulate $cluster failed; see $out/logs/simulate-$cluster.txt"; exit 1; }
  predictions+=("$out/prediction-$cluster.json")
done

log "validate"
"$vitsim" validate --measured "$out"/runs/*.json --predicted "${predictions[@]}" \
  -o "$out/validation.txt"
