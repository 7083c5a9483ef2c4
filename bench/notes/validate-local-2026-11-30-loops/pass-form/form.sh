# form.sh one|sep TAG
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
T=/work/main/build/bin/vitsim-train E=/work/main/scripts/emulate-cluster
form=$1 tag=$2 d=/tmp/gapy/done-$2; rm -f $d
if [[ $form == one ]]; then
  $E --hosts 3 --cpu 0.4 --host-cpu 1=0.2 -- bash /tmp/gapy/one.sh /tmp/gapy/prof-$tag.json $d > /tmp/gapy/log-$tag.txt 2>&1
elif [[ $form == sep ]]; then
  pids=()
  taskset -c 1 $E --hosts 1 --cpu 0.2 -- bash /tmp/gapx/loop.sh fp32 $d >/dev/null 2>&1 & pids+=($!)
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- bash /tmp/gapx/loop.sh ds-bf16 $d >/dev/null 2>&1 & pids+=($!)
  [[ ${DELAY:-5} != 0 ]] && sleep ${DELAY:-5}
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- $T profile $M --micro-batches ${MB:-24} --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision fp32 --device-id x --out /tmp/gapy/prof-$tag.json > /tmp/gapy/log-$tag.txt 2>&1
  touch $d; wait "${pids[@]}"
fi
if [[ $form == run ]]; then
  pids=()
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- bash /tmp/gapx/loop.sh fp32 $d >/dev/null 2>&1 & pids+=($!)
  sleep 5
  taskset -c 0 $E --hosts 1 --cpu 0.4 -- $T train --data /tmp/gapx/data $M --micro-batch 24 --optimizer adamw --lr 1e-3 --seed 1 --threads 1 --no-eval --no-progress --overlap off --epochs 1 --data-fraction 0.17578125 --mpi-wait poll --run-log /tmp/gapy/run-$tag.json > /tmp/gapy/log-$tag.txt 2>&1
  touch $d; wait "${pids[@]}"
fi
