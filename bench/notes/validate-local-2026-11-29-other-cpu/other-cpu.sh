#!/bin/bash
# Does the other CPU's load change the device's speed? The fp32 0.4-CPU device's profile at
# micro-batches 12 and 24 on CPU 0 beside validate-local's filler (as the 1-rank run places it),
# with CPU 1 either idle ("idle1": the 1-rank run's CPU 1) or holding two 0.4-CPU fillers
# ("busy1": the load the 2-rank run's other rank and its filler put there), alternating per round
# (the order reversed in even rounds). With a third argument "slowed", the arms are instead
# "slow1", CPU 1 holding a 0.2-CPU filler (the slowed device of validate-local's profile pass), and
# "fill1", that filler and a 0.6-CPU one beside it (CPU 1 at 0.8). Prints the forward + backward
# (and the optimizer) per step at each micro-batch. Usage (root, repository root, nothing else
# running):
#   bench/notes/validate-local-2026-11-29-other-cpu/other-cpu.sh OUT ROUNDS [slowed]
set -u
out=$1; rounds=${2:-3}; arms="idle1 busy1"; [[ ${3:-} == slowed ]] && arms="slow1 fill1"; mkdir -p "$out"; out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../validate-local-2026-11-29-slowed/common.sh"  # B, M
P="$M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
# validate-local's filler in a loop until $2 exists ($1: the pid it dies with).
cat > "$out/filler.sh" <<S
while kill -0 \$1 2>/dev/null && ! [[ -e \$2 ]]; do
  $B/vitsim-train profile $M --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --out \$3 > /dev/null 2>&1 || sleep 1
done
S
filler() {  # cpu dir name [quota]
  taskset -c "$1" ./scripts/emulate-cluster --hosts 1 --cpu "${4:-0.4}" -- bash "$out/filler.sh" $$ "$2/stop" "$2/$3.json" > "$2/$3.txt" 2>&1 &
  pids+=($!)
}
arm() {  # dir, then the quotas of CPU 1's fillers
  local d=$1 i=0 q
  shift
  pids=()
  filler 0 "$d" f0
  for q in "$@"; do filler 1 "$d" f1-$((i++)) "$q"; done
  sleep 5
  taskset -c 0 ./scripts/emulate-cluster --hosts 1 --cpu 0.4 -- $B/vitsim-train profile $P --precision fp32 \
    --device-id emu-cpu-40 --out "$d/p0.json" > "$d/emu.txt" 2>&1
  touch "$d/stop"; kill -TERM "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
}
idle1() { arm "$1"; }
busy1() { arm "$1" 0.4 0.4; }
slow1() { arm "$1" 0.2; }
fill1() { arm "$1" 0.2 0.6; }
show() {  # dir label
  python3 - "$1/p0.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {c['micro_batch']: 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers']) for c in d['compute']}
o = {c['micro_batch']: 1e3 * c.get('optimizer_time_s', 0) for c in d['compute']}
print('%-16s' % sys.argv[2] + ' / '.join('mb%d %.1f (opt %.1f)' % (b, t[b], o[b]) for b in sorted(t)) + ' ms')
PY
}
for ((r = 1; r <= rounds; r++)); do
  order=$arms; ((r % 2)) || order=$(echo $arms | tr ' ' '\n' | tac | tr '\n' ' ')
  for arm in $order; do mkdir -p "$out/$r-$arm"; $arm "$out/$r-$arm"; done
  for arm in $arms; do show "$out/$r-$arm" "round $r $arm"; done
done
