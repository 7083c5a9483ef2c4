#!/usr/bin/env bash
# Simulator benchmark (bench/RESULTS.md, section "Simulator"): wall time of `vitsim predict` for one
# ImageNet-1k epoch of vit_b_16 (micro-batch 64, bf16, hierarchical all-reduce, flow level above
# 64 ranks) on 64, 128, ..., 65,536 H200 GPUs (every doubling), and of every shipped scenario in a
# row; then the medians, the growth of the median per doubling of GPUs (at most 2.00 is "no faster
# than linear") and, with a previous binary, its medians measured in the same hyperfine run and the
# ratio previous / this. The previous binary runs up to PREVIOUS_MAX_GPUS (default 16,384: the
# binary before the class-level simulation aborts from ~32,768 GPUs, vm.max_map_count).
# Then the peak RSS of this binary at each size (one run each, /usr/bin/time). Then a sweep of
# 1,000 configurations (10 micro-batches x (33 GPU counts 8..264 x 3 collectives + the 1-GPU
# baseline), flow level, on the homogeneous H200 cluster) at --jobs 1 and --jobs 2 (and the
# previous binary, serial, when given), alternating, SWEEP_RUNS rounds (default 3); the stdout of
# --jobs 1 and 2 is compared byte for byte every round. SWEEP_ONLY=1 runs only the sweep.
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
sweep_gpus=$(seq -s, 8 8 264)
sweep() {  # $1 binary, $2 extra options
  echo "$1 sweep --cluster $here/platforms/h200-cluster.json --nodes 33 --gpus $sweep_gpus \
--micro-batch 8,16,24,32,40,48,56,64,72,80 --collective ring,tree,hierarchical --collective-level flow \
--precision amp-bf16 --images 1281167 --costs $costs $2"
}
if [[ ${SWEEP_ONLY:-0} != 1 ]]; then
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
fi
# --jobs 1 and 2 alternate (and the previous binary after them): on a shared machine the load
# changes by the minute, and each round sees the same. Every round's stdout is compared.
: > "$out/vitsim_bench_sweep.txt"
for (( r = 1; r <= ${SWEEP_RUNS:-3}; r++ )); do
  for j in 1 2; do
    t0=$(date +%s.%N)
    $(sweep "$vitsim" "--jobs $j") > "$out/vitsim_bench_sweep_j$j.txt" 2>/dev/null
    echo "sweep --jobs $j $(echo "$(date +%s.%N) - $t0" | bc)" >> "$out/vitsim_bench_sweep.txt"
  done
  cmp "$out/vitsim_bench_sweep_j1.txt" "$out/vitsim_bench_sweep_j2.txt"
  if [[ -n $previous ]]; then
    t0=$(date +%s.%N)
    $(sweep "$previous" "") > /dev/null 2>&1
    echo "previous sweep $(echo "$(date +%s.%N) - $t0" | bc)" >> "$out/vitsim_bench_sweep.txt"
  fi
done
echo "sweep: $(grep -cE '^[0-9]+x mb' "$out/vitsim_bench_sweep_j1.txt") configurations in the table; --jobs 1 and 2 stdout identical in every round"
if [[ ${SWEEP_ONLY:-0} == 1 ]]; then
  : > "$out/vitsim_bench_h200.json"; : > "$out/vitsim_bench_scenarios.json"; : > "$out/vitsim_bench_rss.txt"
fi
OUT="$out" python3 - <<'PY'
import json, os
out = os.environ["OUT"]
res = {}
def results(f):
    path = os.path.join(out, f)
    return json.load(open(path))["results"] if os.path.getsize(path) else []
for f in ("vitsim_bench_h200.json", "vitsim_bench_scenarios.json"):
    for r in results(f):
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
import statistics
sweep = {}
for line in open(os.path.join(out, "vitsim_bench_sweep.txt")):
    name, t = line.rsplit(" ", 1)
    sweep.setdefault(name, []).append(float(t))
one = statistics.median(sweep["sweep --jobs 1"])
for name, t in sweep.items():
    m = statistics.median(t)
    print(f'{name:>22} {m:>8.3f} s   jobs-1 / this {one / m:.2f}'
          f'   (min {min(t):.3f}, max {max(t):.3f}, {len(t)} runs, alternating)')
PY
