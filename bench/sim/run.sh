#!/usr/bin/env bash
# Simulator benchmark (bench/RESULTS.md, section "Simulator"): wall time of `vitsim predict` for one
# ImageNet-1k epoch of vit_b_16 (micro-batch 64, bf16, hierarchical all-reduce, flow level above
# 64 ranks) on 64, 128, ..., 65,536 H200 GPUs (every doubling), and of every shipped scenario in a
# row; then the medians, the growth of the median per doubling of GPUs (at most 2.00 is "no faster
# than linear") and, with a previous binary, its medians measured in the same hyperfine run and the
# ratio previous / this. The previous binary runs up to PREVIOUS_MAX_GPUS (default 16,384: the
# binary before the class-level simulation aborts from ~32,768 GPUs, vm.max_map_count).
# Then the peak RSS of this binary at each size (one run each, /usr/bin/time).
# Costs: the SYNTHETIC test fixture (timing of the simulator only; the predicted times mean nothing).
# Usage: bench/sim/run.sh [BUILD_DIR] [RUNS] [PREVIOUS_VITSIM]   (needs hyperfine)
set -euo pipefail
build=${1:-build}
runs=${2:-5}
previous=${3:-}
previous_max=${PREVIOUS_MAX_GPUS:-16384}
max_gpus=${MAX_GPUS:-65536}
here=$(cd "$(dirname "$0")/../.." && pwd)
vitsim="$build/bin/vitsim"
costs="$here/tests/sim/fixtures/costs.json"
out=${VITSIM_BENCH_OUT:-/tmp}
predict() {
  local bin=$1 gpus=$2 nodes=$(( ($2 + 7) / 8 ))
  echo "$bin predict --cluster $here/platforms/h200-cluster.json --nodes $nodes --gpus $gpus --micro-batch 64 \
--precision amp-bf16 --images 1281167 --collective hierarchical --costs $costs"
}
sizes=()
for (( g = 64; g <= max_gpus; g *= 2 )); do sizes+=("$g"); done
args=()
for g in "${sizes[@]}"; do
  args+=(-n "$g" "$(predict "$vitsim" "$g")")
  if [[ -n $previous && $g -le $previous_max ]]; then args+=(-n "previous $g" "$(predict "$previous" "$g")"); fi
done
hyperfine --runs "$runs" --warmup 1 -N --export-json "$out/vitsim_bench_h200.json" "${args[@]}"
scen=(-n all-scenarios "for f in $here/scenarios/*.json; do $vitsim simulate \$f --costs $costs >/dev/null 2>&1; done")
if [[ -n $previous ]]; then
  scen+=(-n "previous all-scenarios" "for f in $here/scenarios/*.json; do $previous simulate \$f --costs $costs >/dev/null 2>&1; done")
fi
hyperfine --runs "$runs" --warmup 1 --export-json "$out/vitsim_bench_scenarios.json" "${scen[@]}"
: > "$out/vitsim_bench_rss.txt"
for g in "${sizes[@]}"; do
  /usr/bin/time -f "$g %M" $(predict "$vitsim" "$g") > /dev/null 2>> "$out/vitsim_bench_rss.txt"
done
OUT="$out" python3 - <<'PY'
import json, os
out = os.environ["OUT"]
res = {}
for f in ("vitsim_bench_h200.json", "vitsim_bench_scenarios.json"):
    for r in json.load(open(os.path.join(out, f)))["results"]:
        res[r["command"]] = r
rss = dict(line.split() for line in open(os.path.join(out, "vitsim_bench_rss.txt")) if line.strip())
print(f'{"GPUs":>9} {"median":>9} {"x/doubling":>10} {"previous":>9} {"x/doubling":>10} {"prev/this":>9} {"peak RSS":>9}')
last = last_prev = None
for name, r in res.items():
    if not name.isdigit() and name != "all-scenarios":
        continue
    p = res.get("previous " + name)
    g = f'{r["median"] / last:.2f}' if last and name.isdigit() else ""
    gp = f'{p["median"] / last_prev:.2f}' if p and last_prev and name.isdigit() else ""
    pm = f'{p["median"]:.3f} s' if p else "-"
    ratio = f'{p["median"] / r["median"]:.2f}' if p else "-"
    mem = f'{int(rss[name]) / 1024:.0f} MB' if name in rss else ""
    print(f'{name:>9} {r["median"]:>7.3f} s {g:>10} {pm:>9} {gp:>10} {ratio:>9} {mem:>9}'
          f'   (min {r["min"]:.3f}, max {r["max"]:.3f}, {len(r["times"])} runs)')
    last = r["median"] if name.isdigit() else None
    last_prev = p["median"] if p and name.isdigit() else None
PY
