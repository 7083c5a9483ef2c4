# arr.sh TAG MEASURED(prof|run) NEIGHBOUR... (each CPU:QUOTA:PRECISION)
set -u
tag=$1 what=$2; shift 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
T=/work/main/build/bin/vitsim-train E=/work/main/scripts/emulate-cluster
d=/tmp/gapx/done-$tag; rm -f $d; pids=()
for n in "$@"; do IFS=: read -r c q p <<< "$n"; taskset -c $c $E --hosts 1 --cpu $q -- bash /tmp/gapx/loop.sh $p $d >/dev/null 2>&1 & pids+=($!); done
sleep 5
if [[ $what == prof ]]; then
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- $T profile $M --micro-batches ${MB:-24,16,32} --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id x --out /tmp/gapx/prof-$tag.json > /tmp/gapx/prof-$tag.txt 2>&1
else
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- $T train --data /tmp/gapx/data $M --micro-batch 24 --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --data-fraction 0.17578125 --mpi-wait poll --run-log /tmp/gapx/run-$tag.json > /tmp/gapx/run-$tag.txt 2>&1
fi
touch $d; wait "${pids[@]}"
