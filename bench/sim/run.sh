#!/usr/bin/env bash
# Simulator benchmark (bench/RESULTS.md, section "Simulator"): wall time of `vitsim predict` for one
# ImageNet-1k epoch of vit_b_16 (micro-batch 64, bf16, hierarchical all-reduce) on 64, 128, ...,
# 4,096 H200 GPUs (every doubling), and of every shipped scenario in a row; then the growth of the
# median wall time per doubling of GPUs (at most 2.00 is "no faster than linear"). Costs: the
# SYNTHETIC test fixture (timing of the simulator only; the predicted times mean nothing).
# Usage: bench/sim/run.sh [BUILD_DIR] [RUNS]   (needs hyperfine)
set -euo pipefail
build=${1:-build}
runs=${2:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
vitsim="$build/bin/vitsim"
costs="$here/tests/sim/fixtures/costs.json"
out=${VITSIM_BENCH_OUT:-/tmp}
predict() {
  local gpus=$1 nodes=$(( ($1 + 7) / 8 ))
  echo "$vitsim predict --cluster $here/platforms/h200-cluster.json --nodes $nodes --gpus $gpus --micro-batch 64 \
--precision bf16 --images 1281167 --collective hierarchical --costs $costs"
}
args=()
for g in 64 128 256 512 1024 2048 4096; do args+=(-n "$g" "$(predict "$g")"); done
hyperfine --runs "$runs" --warmup 1 -N --export-json "$out/vitsim_bench_h200.json" "${args[@]}"
hyperfine --runs "$runs" --warmup 1 --export-json "$out/vitsim_bench_scenarios.json" -n all-scenarios \
  "for f in $here/scenarios/*.json; do $vitsim simulate \$f --costs $costs >/dev/null 2>&1; done"
OUT="$out" python3 - <<'PY'
import json, os
out = os.environ["OUT"]
prev = None
for f in ("vitsim_bench_h200.json", "vitsim_bench_scenarios.json"):
    for r in json.load(open(os.path.join(out, f)))["results"]:
        growth = f'  x{r["median"] / prev:.2f} vs half the GPUs' if prev and r["command"].isdigit() else ""
        print(f'{r["command"][:14]:>14}  median {r["median"]:.3f} s  (min {r["min"]:.3f}, max {r["max"]:.3f}, '
              f'{len(r["times"])} runs){growth}')
        prev = r["median"] if r["command"].isdigit() else None
PY
