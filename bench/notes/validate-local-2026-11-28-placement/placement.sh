#!/bin/bash
source "$(dirname "$0")/common.sh" "$1"  # out, B, M, P
cat > $out/alone.sh <<S
k=\$OMPI_COMM_WORLD_RANK
case \$k in
0) $B/vitsim-train profile $P --precision fp32 --device-id emu-cpu-40 --out \$OUTP/a0.json ;;
1) $B/vitsim-train profile $P --precision fp32 --device-id emu-cpu-20 --out \$OUTP/a1.json ;;
2) $B/vitsim-train profile $P --precision ds-bf16 --device-id emu-cpu-40 --out \$OUTP/a2.json ;;
esac > \$OUTP/alog\$k.txt 2>&1
S
for round in 1 2; do
  o=$out/$round; mkdir -p $o
  # (a) slowed host alone on CPU1, the two 0.4 hosts on CPU0
  OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash $out/alone.sh > $o/emu-a.txt 2>&1
  # (c) slowed host alone on the machine
  ./scripts/emulate-cluster --hosts 1 --cpu 0.2 -- $B/vitsim-train profile $P --precision fp32 --device-id emu-cpu-20 --out $o/c.json > $o/c.txt 2>&1
  python3 - $o <<'P'
import json,sys
o=sys.argv[1]
def fb(f):
  c=json.load(open(f))['compute'][0]; return 1e3*sum(l['forward_time_s']+l['backward_time_s'] for l in c['layers'])
print(o, 'alone-on-cpu1 (0.4s on cpu0): 0.2 %.0f  0.4 %.0f | alone on machine: 0.2 %.0f'%(fb(o+'/a1.json'), fb(o+'/a0.json'), fb(o+'/c.json')))
P
done
