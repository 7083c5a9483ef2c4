# Shared by slowed-ab.sh and ../validate-local-2026-12-02-spin/spin-ab.sh (sourced, from the
# repository root, after `out` is set): one round of the slowed-host A/Bs, whatever each adds
# around it. Sources common.sh (B, M, pass_script); sets P (the profile options), T (the train
# options, validate-local's), the dataset and the scripts in $out; bg holds the process groups of
# background hosts (start_filler; stop_bg stops them all, and at exit).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
P="$M --micro-batches 12,24 --warmup 2 --repetitions 20 --optimizer adamw --threads 1"
T="--optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off"
T+=" --epochs 1 --mpi-wait poll --precision fp32 --device-id emu-cpu-40"
[[ -d $out/data ]] || $B/vitsim-train make-dataset --out $out/data --train-images 4096 \
  --test-images 64 --seed 1 > /dev/null
pass_script $out/p.sh "$P" ds-bf16  # the pass as validate-local's (common.sh)
cat > $out/filler.sh <<S
while :; do $B/vitsim-train profile $M --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision fp32 --device-id emu-cpu-40 --out \$OUTP/filler.json > /dev/null 2>&1; done
S
bg=()
stop_bg() { for p in "${bg[@]}"; do kill -- -$p 2>/dev/null; done; wait 2>/dev/null; bg=(); }
trap stop_bg EXIT
start_filler() {  # cpu quota
  OUTP=$out setsid taskset -c $1 ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP \
    --hosts 1 --cpu $2 -- bash $out/filler.sh > /dev/null 2>&1 &
  bg+=($!)
  sleep 5
}
# Into DIR: a profile pass as validate-local's (0.4-CPU fp32 and ds-bf16 profiles on CPU 0, the
# 0.2-CPU fp32 profile on CPU 1), then the 2-rank run at micro-batch 24 (a 0.4-CPU filler beside
# its lone 0.4-CPU rank on CPU 0, validate-local's) and the 4-rank run at micro-batch 12, both
# with the slowed host; then every background host stops.
slowed_round() {  # DIR
  local o=$1
  OUTP=$o ./scripts/emulate-cluster --mpirun-arg=-x --mpirun-arg=OUTP --hosts 3 --cpu 0.4 \
    --host-cpu 1=0.2 -- bash $out/p.sh > $o/emu-p.txt 2>&1
  start_filler 0 0.4
  ./scripts/emulate-cluster --hosts 2 --rate 400mbit --cpu 0.4 --host-cpu 1=0.2 -- \
    $B/vitsim-train train --data $out/data $M $T --micro-batch 24 --data-fraction 0.3515625 \
    --run-log $o/r2.json > $o/r2.txt 2>&1
  kill -- -${bg[-1]} 2>/dev/null; wait ${bg[-1]} 2>/dev/null; unset 'bg[-1]'
  ./scripts/emulate-cluster --hosts 4 --rate 400mbit --cpu 0.4 --host-cpu 3=0.2 -- \
    $B/vitsim-train train --data $out/data $M $T --micro-batch 12 --data-fraction 0.3515625 \
    --run-log $o/r4.json > $o/r4.txt 2>&1
  stop_bg
}
