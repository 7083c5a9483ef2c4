#!/usr/bin/env bash
# The controlled experiments behind docs/trainer.md, "Profiling" (a profile keeps the means of
# phases timed inside whole steps) and docs/validation.md, "Draws, rounds and passes":
# how a CPU quota (scripts/emulate-cluster --cpu) shapes what a profile measures and what a
# training step takes. Each experiment prints a table and keeps its raw files under --out.
#
#   chunks     emu_probe: back-to-back chunks of a fixed CPU time, each timed alone, under a quota:
#              the median and the mean wall time of a chunk against chunk / quota (the truth for
#              contiguous work), and the CPU share the rank got, for CFS periods of 10 and 2.5 ms
#   profile    cycles of: a profile of one micro-batch (this build's vitsim-train; with
#              --baseline BIN also that binary's, e.g. the layer-alone median profiler), then a
#              1-rank training run of 30 steps at that micro-batch, all under the same quota; per
#              cycle the whole step each profile predicts against the run's epoch time / steps
#   demand     one N-rank training run (30 steps) over shaped links, each rank's CPU time
#              (perf stat task-clock, when perf is there) and the machine's CPU split from
#              /proc/stat over the run (user, system, softirq, idle): what the ranks and the
#              kernel's network work ask of the cores; plus every rank's first step against its
#              median
#
# Usage: bench/emulate/quota.sh [--build DIR] [--out DIR] [--baseline VITSIM_TRAIN] [--cpu Q]
#          [--cycles N] [--micro-batch B] [--ranks N] [--rate R] EXPERIMENT...
# Needs root (scripts/emulate-cluster). Run on a quiet machine: check `uptime` first (1-minute load
# average < 3); each table line prints the load average it started at.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build out=/tmp/vitsim-quota baseline="" cpu=0.4 cycles=3 mb=24 ranks=4 rate=100mbit
experiments=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --baseline) baseline=${2:?}; shift 2 ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --cycles) cycles=${2:?}; shift 2 ;;
    --micro-batch) mb=${2:?}; shift 2 ;;
    --ranks) ranks=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    chunks|profile|demand) experiments+=("$1"); shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "quota.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#experiments[@]} -gt 0 ]] || { echo "quota.sh: name an experiment: chunks, profile, demand" >&2; exit 2; }
emulate=$root/scripts/emulate-cluster
train=$build/bin/vitsim-train
probe=$build/bin/emu_probe
for exe in "$train" "$probe"; do
  [[ -x $exe ]] || { echo "quota.sh: $exe not built (hint: cmake --build $build)" >&2; exit 2; }
done
mkdir -p "$out"
# The validate-local model (docs/validation.md): 32x32 images, patch 4, width 128, depth 4.
model=(--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10)
common_train=(--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off
              --epochs 1 --wall-clock-breakdown)
load() { cut -d' ' -f1 /proc/loadavg; }
[[ -d $out/data ]] || "$train" make-dataset --out "$out/data" --train-images 4096 --test-images 64 \
  --seed 1 > /dev/null
fraction() { awk -v s=30 -v b="$1" -v n="$2" 'BEGIN { printf "%.12g", s * b * n / 4096 }'; }

chunks() {
  echo "== chunks: quota $cpu CPU; chunk / quota is what contiguous work takes"
  printf '%-10s %10s %12s %12s %12s %10s %6s\n' period chunk_ms median_ms mean_ms chunk/q_ms cpu_share load
  local period c
  for period in 10000 2500; do
    for c in 0.5 1 2 3 5 8 20; do
      local l n line
      l=$(load)
      n=$(awk -v c="$c" 'BEGIN { printf "%d", 2000 / c }')  # about 2 s of CPU time
      line=$("$emulate" --hosts 1 --cpu "$cpu" --cpu-period "$period" -- "$probe" chunks "$c" "$n" |
        grep '^rank=0')
      echo "$line" >> "$out/chunks.txt"
      awk -v p="$period" -v q="$cpu" -v l="$l" '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "%-10s %10.1f %12.3f %12.3f %12.3f %10.3f %6s\n", p "us", v["chunk_cpu_s"] * 1e3,
          v["median_s"] * 1e3, v["mean_s"] * 1e3, v["chunk_cpu_s"] / q * 1e3, v["cpu_share"], l
      }' <<< "$line"
    done
  done
}

profile_step_s() {  # profile JSON -> its whole step (sum of every part), seconds
  python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["compute"][0]
print(m["optimizer_time_s"] + m["host_to_device_time_s"] + m["data_time_s"]
      + m["step_overhead_time_s"] + sum(l["forward_time_s"] + l["backward_time_s"] for l in m["layers"]))
' "$1"
}

profile() {
  echo "== profile: micro-batch $mb, quota $cpu CPU; error = profiled step / (run epoch / steps) - 1"
  local c
  for ((c = 1; c <= cycles; c++)); do
    local l=$(load) d=$out/profile-$cpu-$mb-$c
    mkdir -p "$d"
    if [[ -n $baseline ]]; then
      "$emulate" --hosts 1 --cpu "$cpu" -- "$baseline" profile "${model[@]}" --micro-batches "$mb" \
        --warmup 2 --repetitions 7 --full-steps 5 --out "$d/baseline.json" > "$d/baseline.txt" 2>&1
    fi
    "$emulate" --hosts 1 --cpu "$cpu" -- "$train" profile "${model[@]}" --micro-batches "$mb" \
      --warmup 2 --repetitions 20 --out "$d/profile.json" > "$d/profile.txt" 2>&1
    "$emulate" --hosts 1 --rate 400mbit --cpu "$cpu" -- "$train" train --data "$out/data" "${model[@]}" \
      "${common_train[@]}" --micro-batch "$mb" --data-fraction "$(fraction "$mb" 1)" \
      --run-log "$d/run.json" > "$d/run.txt" 2>&1
    local new old="" per
    new=$(profile_step_s "$d/profile.json")
    [[ -n $baseline ]] && old=$(profile_step_s "$d/baseline.json")
    per=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["epochs"][0]; print(e["epoch_time_s"]/e["steps"])' "$d/run.json")
    awk -v c="$c" -v l="$l" -v n="$new" -v o="$old" -v r="$per" 'BEGIN {
      printf "cycle %d (load %s): run %.1f ms/step; this profile %.1f ms (%+.1f%%)", c, l, r * 1e3, n * 1e3, 100 * (n / r - 1)
      if (o != "") printf "; baseline profile %.1f ms (%+.1f%%)", o * 1e3, 100 * (o / r - 1)
      printf "\n" }'
  done
}

demand() {
  local d=$out/demand-$ranks-$rate l=$(load)
  mkdir -p "$d"
  echo "== demand: $ranks ranks at $cpu CPU over $rate links, micro-batch $mb, 30 steps (load $l)"
  local wrap=()
  if command -v perf > /dev/null; then
    printf '#!/bin/sh\nexec perf stat -o %s/perf.$OMPI_COMM_WORLD_RANK.txt -e task-clock "$@"\n' "$d" > "$d/wrap.sh"
    chmod +x "$d/wrap.sh"
    wrap=("$d/wrap.sh")
  fi
  head -1 /proc/stat > "$d/stat0"
  "$emulate" --hosts "$ranks" --rate "$rate" --cpu "$cpu" -- "${wrap[@]}" "$train" train \
    --data "$out/data" "${model[@]}" "${common_train[@]}" --micro-batch "$mb" \
    --data-fraction "$(fraction "$mb" "$ranks")" --run-log "$d/run.json" > "$d/run.txt" 2>&1
  head -1 /proc/stat > "$d/stat1"
  python3 - "$d" "$(nproc)" <<'EOF'
import glob, json, re, statistics, sys
d, cores = sys.argv[1], int(sys.argv[2])
s0 = [int(x) for x in open(d + "/stat0").read().split()[1:9]]
s1 = [int(x) for x in open(d + "/stat1").read().split()[1:9]]
delta = [b - a for a, b in zip(s0, s1)]
wall = sum(delta) / cores
names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
print("machine over the run (CPUs of %d): " % cores + ", ".join(
    "%s %.2f" % (n, delta[i] / wall) for i, n in enumerate(names) if n not in ("iowait", "irq")))
for f in sorted(glob.glob(d + "/perf.*.txt")):
    t = open(f).read()
    cpu = float(re.search(r"([\d.,]+) msec task-clock", t).group(1).replace(",", "")) / 1e3
    el = float(re.search(r"([\d.]+) seconds time elapsed", t).group(1))
    print("rank %s: %.2f s CPU over %.2f s = %.3f CPUs" % (f.split(".")[-2], cpu, el, cpu / el))
e = json.load(open(d + "/run.json"))["epochs"][0]
print("epoch %.2f s, %d steps" % (e["epoch_time_s"], e["steps"]))
steps = {}
pat = r"\[Rank (\d+)\] time \(ms\) \| fwd: ([\d.]+) \| bwd: [\d.]+ \| bwd_inner: ([\d.]+) \| bwd_allreduce: ([\d.]+) \| step: ([\d.]+)"
for line in open(d + "/run.txt"):
    m = re.search(pat, line)
    if m:
        steps.setdefault(int(m.group(1)), []).append([float(x) for x in m.groups()[1:]])
for r, v in sorted(steps.items()):
    comp = [s[0] + s[1] + s[3] for s in v]
    print("rank %d: compute (fwd + bwd + opt) first step %.0f ms, then median %.0f, mean %.0f; "
          "all-reduce first %.0f ms, then mean %.0f" % (r, comp[0], statistics.median(comp[1:]),
          statistics.mean(comp[1:]), v[0][2], statistics.mean(s[2] for s in v[1:])))
EOF
}

for e in "${experiments[@]}"; do "$e"; done
