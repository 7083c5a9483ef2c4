#!/usr/bin/env bash
# The fp32 emulated device of scripts/validate-local (its model, micro-batch 24, 2 + 10 steps),
# profiled unrestricted and under a CPU quota, with 4-KiB pages and with huge pages, alternating;
# prints forward + backward and the optimizer per step.
# Usage: profile-ab.sh BUILD_DIR OUT_DIR [QUOTA] [ROUNDS]   (from the repository root; root)
set -euo pipefail
build=${1:?build folder}; out=${2:?output folder}; q=${3:-0.2}; rounds=${4:-2}
mkdir -p "$out"
model=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
one() {  # quota pages tag
  scripts/emulate-cluster --hosts 1 --cpu "$1" --huge-pages "$2" -- "$build/bin/vitsim-train" \
    profile "${model[@]}" --micro-batches 24 --warmup 2 --repetitions 10 --optimizer adamw \
    --threads 1 --precision fp32 --device-id emu --out "$out/$3.json" > "$out/$3.txt" 2>&1
  python3 - "$out/$3.json" "$3" <<'P'
import json, sys
c = json.load(open(sys.argv[1]))["compute"][0]
fb = sum(l["forward_time_s"] + l["backward_time_s"] for l in c["layers"])
print(f"{sys.argv[2]:<24} forward+backward {fb:.4f} s  optimizer {c['optimizer_time_s']:.4f} s")
P
}
for ((r = 1; r <= rounds; r++)); do
  one none off "r$r-free-4k"; one none on "r$r-free-huge"
  one "$q" off "r$r-q$q-4k"; one "$q" on "r$r-q$q-huge"
done
