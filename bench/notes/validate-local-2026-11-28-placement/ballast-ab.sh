#!/bin/bash
# A/B: ballast (SCHED_IDLE spinner per CPU) vs none: r2-slow run, r4-mb24 run, profile pass at mb24.
source "$(dirname "$0")/common.sh" "$1"  # out, B, M, P
T="--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --mpi-wait poll --precision fp32 --device-id emu-cpu-40"
cat > $out/p.sh <<S
k=\$OMPI_COMM_WORLD_RANK
P="$P"
case \$k in
0) $B/vitsim-train profile \$P --precision fp32 --device-id emu-cpu-40 --out \$OUTP/p0.json ;;
1) $B/vitsim-train profile \$P --precision ds-bf16 --device-id emu-cpu-40 --out \$OUTP/p1.json ;;
2) $B/vitsim-train profile \$P --precision fp32 --device-id emu-cpu-20 --out \$OUTP/p2.json ;;
esac > \$OUTP/log\$k.txt 2>&1
S
for round in 1 2; do
for mode in none ballast; do
  o=$out/$mode-$round; mkdir -p $o
  pids=()
  if [[ $mode == ballast ]]; then for c in 0 1; do taskset -c $c chrt --idle 0 sh -c 'while :; do :; done' & pids+=($!); done; fi
  OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 2=0.2 -- bash $out/p.sh > $o/emu-p.txt 2>&1
  ./scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-names node0,node3 --host-cpu 1=0.2 -- \
    $B/vitsim-train train --data /tmp/vl29-b/data $M $T --micro-batch 24 --data-fraction 0.351563 --run-log $o/r2slow.json > $o/r2slow.txt 2>&1
  ./scripts/emulate-cluster --hosts 4 --rate 400mbit --cpu 0.4 -- \
    $B/vitsim-train train --data /tmp/vl29-b/data $M $T --micro-batch 24 --data-fraction 0.703125 --run-log $o/r4.json > $o/r4.txt 2>&1
  ./scripts/emulate-cluster --hosts 1 --rate 400mbit --cpu 0.4 -- \
    $B/vitsim-train train --data /tmp/vl29-b/data $M $T --micro-batch 24 --data-fraction 0.175781 --run-log $o/r1.json > $o/r1.txt 2>&1
  [[ ${#pids[@]} -gt 0 ]] && kill ${pids[@]}
  wait 2>/dev/null
  python3 - $o <<'P'
import json,sys,os
o=sys.argv[1]
def fb(x): return 1e3*(x['forward_time_s']+x['backward_time_s'])
s=[]
for i in range(3):
  f=o+'/p%d.json'%i
  if os.path.exists(f):
    d=json.load(open(f)); c=d['compute'][0]
    s.append('prof%d %.0f'%(i, 1e3*sum(l['forward_time_s']+l['backward_time_s'] for l in c['layers'])))
for r in ['r2slow','r4','r1']:
  f=o+'/'+r+'.json'
  if os.path.exists(f):
    d=json.load(open(f)); s.append('%s epoch %.1f ranks %s'%(r, d['epochs'][0]['epoch_time_s'], '/'.join('%.0f'%fb(x) for x in d['ranks'])))
print(o.split('/')[-1], ' | '.join(s))
P
done
done
