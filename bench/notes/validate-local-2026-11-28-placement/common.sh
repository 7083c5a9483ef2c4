# Shared by placement.sh and ballast-ab.sh (sourced, from the repository root): the output folder
# (their first argument), the binaries, validate-local's model, and its profile options at
# micro-batch 24.
out=$1; mkdir -p "$out"
B=./build/bin
M="--model vit_ti_16 --image-size 32 --patch-size 4 --width 128 --depth 4 --heads 4 --classes 10"
P="$M --micro-batches 24 --warmup 2 --repetitions 30 --optimizer adamw --threads 1"
