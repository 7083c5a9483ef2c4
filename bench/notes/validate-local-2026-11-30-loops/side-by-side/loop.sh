# $1 precision, $2 done file
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
T=/work/main/build/bin/vitsim-train
while [[ ! -f $2 ]]; do $T profile $M --micro-batches 24 --warmup 0 --repetitions 60 --optimizer adamw --threads 1 --precision $1 --device-id f --out /tmp/gapx/junk-$$.json >/dev/null 2>&1 & p=$!; while kill -0 $p 2>/dev/null && [[ ! -f $2 ]]; do sleep 0.2; done; kill $p 2>/dev/null; wait $p 2>/dev/null; done
