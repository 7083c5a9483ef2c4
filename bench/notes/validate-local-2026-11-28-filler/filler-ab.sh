#!/bin/bash
# A/B: does a busy neighbour of the same work on a rank's CPU make a run match its side-by-side
# profile? Profile pass as validate-local's (0.4-CPU fp32 and ds-bf16 profiles both on CPU 0),
# then 1-rank and 2-rank runs at micro-batch 24 without ("none") and with ("filler") one 0.4-CPU
# fp32 profile looping on each CPU that holds a single rank. Usage (root, repository root):
#   bench/notes/validate-local-2026-11-28-filler/filler-ab.sh OUT ROUNDS
source "$(dirname "$0")/../validate-local-2026-11-28-placement/common.sh" "$1"  # out, B, M, P
rounds=${2:-2}
T="--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --device-id emu-cpu-40"
[[ -d $out/data ]] || $B/vitsim-train make-dataset --out $out/data --train-images 4096 --test-images 64 --seed 1 > /dev/null
cat > $out/p.sh <<S
k=\$OMPI_COMM_WORLD_RANK
case \$k in
0) $B/vitsim-train profile $P --precision fp32 --device-id emu-cpu-40 --out \$OUTP/p0.json ;;
1) $B/vitsim-train profile $P --precision ds-bf16 --device-id emu-cpu-40 --out \$OUTP/p1.json ;;
esac > \$OUTP/log\$k.txt 2>&1
S
cat > $out/filler.sh <<S
while :; do $B/vitsim-train profile $P --precision fp32 --device-id emu-cpu-40 --out \$OUTP/filler.json > /dev/null 2>&1; done
S
fillers=()
stop_fillers() { for p in "${fillers[@]}"; do kill -- -$p 2>/dev/null; done; wait 2>/dev/null; fillers=(); }
trap stop_fillers EXIT
start_filler() {  # cpu
  OUTP=$out setsid taskset -c $1 ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 1 --cpu 0.4 -- bash $out/filler.sh > /dev/null 2>&1 &
  fillers+=($!)
  sleep 3
}
for ((round = 1; round <= rounds; round++)); do
  o=$out/profile-$round; mkdir -p $o
  OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 2 --pin off --cpu 0.4 -- taskset -c 0 bash $out/p.sh > $o/emu-p.txt 2>&1
  for mode in none filler; do
    o=$out/$mode-$round; mkdir -p $o
    [[ $mode == filler ]] && start_filler 0
    ./scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 -- \
      $B/vitsim-train train --data $out/data $M $T --micro-batch 24 --data-fraction 0.17578125 --run-log $o/r1.json > $o/r1.txt 2>&1
    [[ $mode == filler ]] && start_filler 1
    ./scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 -- \
      $B/vitsim-train train --data $out/data $M $T --micro-batch 24 --data-fraction 0.3515625 --run-log $o/r2.json > $o/r2.txt 2>&1
    stop_fillers
  done
  python3 - $out $round <<'PY'
import json, sys, os
out, rnd = sys.argv[1], sys.argv[2]
def fb(x): return 1e3 * (x['forward_time_s'] + x['backward_time_s'])
p = json.load(open(f'{out}/profile-{rnd}/p0.json'))['compute'][0]
prof = 1e3 * sum(l['forward_time_s'] + l['backward_time_s'] for l in p['layers'])
s = [f'round {rnd}: profile fp32 fwd+bwd {prof:.0f} ms']
for mode in ('none', 'filler'):
    for r in ('r1', 'r2'):
        f = f'{out}/{mode}-{rnd}/{r}.json'
        if os.path.exists(f):
            d = json.load(open(f))
            ranks = [fb(x) for x in d['ranks']]
            s.append(f'{mode} {r} epoch {d["epochs"][0]["epoch_time_s"]:.1f} s ranks ' +
                     '/'.join(f'{v:.0f}' for v in ranks) + ' (x' +
                     '/'.join(f'{v / prof:.2f}' for v in ranks) + ')')
print(' | '.join(s))
PY
done
