#!/usr/bin/env bash
# Simulator benchmark (bench/RESULTS.md, section "Simulator"): wall time of `vitsim predict` for one
# ImageNet-1k epoch of vit_b_16 (micro-batch 64, bf16, hierarchical all-reduce) on 64 ... 4,096
# H200 GPUs, and of every shipped scenario in a row. Costs: the SYNTHETIC test fixture (timing of
# the simulator only; the predicted times mean nothing).
# Usage: bench/sim/run.sh [BUILD_DIR] [RUNS]   (needs hyperfine)
set -euo pipefail
build=${1:-build}
runs=${2:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
vitsim="$build/bin/vitsim"
costs="$here/tests/sim/fixtures/costs.json"
predict() {
  local gpus=$1 nodes=$(( ($1 + 7) / 8 ))
  echo "$vitsim predict --cluster $here/platforms/h200-cluster.json --nodes $nodes --gpus $gpus --micro-batch 64 \
--precision bf16 --images 1281167 --collective hierarchical --costs $costs"
}
hyperfine --runs "$runs" --warmup 1 -N --export-json /tmp/vitsim_bench_h200.json \
  -n 64 "$(predict 64)" -n 256 "$(predict 256)" -n 1024 "$(predict 1024)" -n 4096 "$(predict 4096)"
hyperfine --runs "$runs" --warmup 1 --export-json /tmp/vitsim_bench_scenarios.json -n all-scenarios \
  "for f in $here/scenarios/*.json; do $vitsim simulate \$f --costs $costs >/dev/null 2>&1; done"
python3 - <<'PY'
import json
for f in ("/tmp/vitsim_bench_h200.json", "/tmp/vitsim_bench_scenarios.json"):
    for r in json.load(open(f))["results"]:
        print(f'{r["command"][:14]:>14}  median {r["median"]:.3f} s  (min {r["min"]:.3f}, max {r["max"]:.3f}, {len(r["times"])} runs)')
PY
