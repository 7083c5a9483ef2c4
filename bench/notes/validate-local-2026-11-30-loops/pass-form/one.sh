# rank script for the one-emulation form: host 0 fp32 0.4 (measured), host 1 fp32 0.2, host 2 ds-bf16 0.4
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
T=/work/main/build/bin/vitsim-train
k=$OMPI_COMM_WORLD_RANK
case $k in 0) p=fp32; o=$1;; 1) p=fp32; o=/tmp/gapy/junk1-$$.json;; 2) p=ds-bf16; o=/tmp/gapy/junk2-$$.json;; esac
if [[ $k == 0 ]]; then
  $T profile $M --micro-batches ${MB:-24} --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision $p --device-id x --out $o > /dev/null 2>&1
  touch $2
else
  while [[ ! -f $2 ]]; do $T profile $M --micro-batches ${MB:-24} --warmup 2 --repetitions 20 --optimizer adamw --threads 1 --precision $p --device-id f --out $o >/dev/null 2>&1 & q=$!; while kill -0 $q 2>/dev/null && [[ ! -f $2 ]]; do sleep 0.2; done; kill $q 2>/dev/null; wait $q 2>/dev/null; done
fi
