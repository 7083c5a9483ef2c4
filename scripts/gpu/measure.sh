# shellcheck shell=bash
# The measuring stages of scripts/gpu-session (sourced, bash): per-layer profiles, short training
# runs, and PyTorch's own step time with MFU. Options arrive as GS_* variables; results go to
# $GS_RES. Precisions are regimes (fp32, tf32, amp-bf16, amp-fp16, ds-bf16, ds-fp16).

# The name this vitsim-train gives REGIME, or nothing when it has no such mode. Trainers that
# know the regime names take them as they are; older ones call autocast "bf16"/"fp16" and have no
# DeepSpeed-style mode.
gs_trainer_precision() {
  local regime=$1 help
  help=$("$GS_BUILD/bin/vitsim-train" profile --help 2>&1)
  if grep -q -- "$regime" <<<"$help"; then
    echo "$regime"
  else
    case $regime in
      fp32) echo fp32 ;;
      amp-bf16) echo bf16 ;;
      amp-fp16) echo fp16 ;;
      *) ;;
    esac
  fi
}

gs_device_flags() {  # the device options of a vitsim-train profile or train run
  if [[ $GS_REHEARSE == 1 ]]; then echo "--device cpu --device-id rehearsal-cpu"; else
    echo "--device cuda --device-id $GS_DEVICE_ID"
  fi
}

# The profiler's loader resizes on the rank's intra-op threads, as the trainer's does: one thread
# left the profiles of 2026-11-24 and 2026-11-26 with a loader wait of 0.1-0.46 s per step at
# 64-256 that no training run had (their runs used --threads, and waited 0).
stage_profile() {
  local r=$GS_RES regime p ok=0
  gs_use_bundle || return 1
  gs_ensure_built || return 1
  # The host-side dispatch floor per launch (fp32 and bf16 tensors), and which attention backend
  # the trainer's scaled_dot_product_attention runs: context for the launch-bound micro-batches.
  local dtype failed_before=$GS_FAILED
  for dtype in fp32 bf16; do
    # shellcheck disable=SC2046
    GS_TAIL_LINES=7 gs_step "dispatch probe $dtype" 10 --log "$r/dispatch-$dtype.log" -- \
      "$GS_BUILD/bin/vitsim-train" probe-dispatch $(gs_device_flags) --dtype "$dtype" \
      --out "$r/dispatch-$GS_DEVICE_ID-$dtype.json"
  done
  if [[ $GS_REHEARSE == 0 ]]; then
    GS_TAIL_LINES=10 gs_step "attention backend" 10 --log "$r/sdpa-backend.log" -- \
      "$GS_PYTHON" "$GS_REPO/bench/gpu/sdpa_backend.py" --out "$r/sdpa-backend.json"
  fi
  GS_FAILED=$failed_before  # context only: a failed probe does not fail the profiles
  for regime in ${GS_PRECISIONS//,/ }; do
    p=$(gs_trainer_precision "$regime")
    if [[ -z $p ]]; then
      gs_record "profile $regime" skipped 0 "this vitsim-train has no $regime mode"
      continue
    fi
    local out=$r/profile-$GS_DEVICE_ID-$GS_MODEL-$regime.json
    # shellcheck disable=SC2046,SC2086
    if GS_TAIL_LINES=4 gs_step "profile $regime" 20 --log "$r/profile-$regime.log" -- \
      "$GS_BUILD/bin/vitsim-train" profile --model "$GS_MODEL" $GS_MODEL_ARGS $(gs_device_flags) \
      --precision "$p" --micro-batches "$GS_MICRO_BATCHES" --warmup "$GS_WARMUP" \
      --repetitions "$GS_REPETITIONS" --full-steps "$GS_FULL_STEPS" --threads "$GS_THREADS" \
      --out "$out"; then
      ok=$((ok + 1))
      continue
    fi
    # One failing micro-batch (out of memory, say) loses the whole file: keep the others.
    local b
    for b in ${GS_MICRO_BATCHES//,/ }; do
      # shellcheck disable=SC2046,SC2086
      GS_TAIL_LINES=3 gs_step "profile $regime b$b alone" 15 --log "$r/profile-$regime-b$b.log" -- \
        "$GS_BUILD/bin/vitsim-train" profile --model "$GS_MODEL" $GS_MODEL_ARGS \
        $(gs_device_flags) --precision "$p" --micro-batches "$b" --warmup "$GS_WARMUP" \
        --repetitions "$GS_REPETITIONS" --full-steps "$GS_FULL_STEPS" --threads "$GS_THREADS" \
        --out "${out%.json}-b$b.json" && ok=$((ok + 1))
    done
  done
  ((ok > 0))
}

stage_train() {
  local r=$GS_RES regime p b variant
  gs_use_bundle || return 1
  gs_ensure_built || return 1
  local biggest=0
  for b in ${GS_MICRO_BATCHES//,/ }; do ((b > biggest)) && biggest=$b; done
  # One epoch holds every step of the largest micro-batch: no epoch boundary inside a run.
  local images=$((biggest * GS_STEPS)) data=$GS_WORK/data-$((biggest * GS_STEPS))
  if [[ ! -f $data/data_batch_1.bin ]]; then
    gs_step "dataset ($images images)" 10 --log "$r/make-dataset.log" -- \
      "$GS_BUILD/bin/vitsim-train" make-dataset --out "$data" --train-images "$images" \
      --test-images 16 --seed 1 || return 1
  fi
  local mpirun=(mpirun --bind-to none -np 1)  # one rank may use every core (its loader does)
  for regime in ${GS_PRECISIONS//,/ }; do
    p=$(gs_trainer_precision "$regime")
    if [[ -z $p ]]; then
      gs_record "train $regime" skipped 0 "this vitsim-train has no $regime mode"
      continue
    fi
    for b in ${GS_MICRO_BATCHES//,/ }; do
      for variant in ${GS_VARIANTS//,/ }; do  # side by side at each micro-batch
        local tag="" env=() extra=()
        [[ $variant == default ]] || tag=-$variant
        case $variant in
          foreach | fused) extra=(--adamw-kernel "$variant") ;;
          expandable) env=(env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) ;;
        esac
        # shellcheck disable=SC2046,SC2086
        GS_TAIL_LINES=3 gs_step "train $regime b$b$tag" 20 --log "$r/train-$regime-b$b$tag.log" -- \
          "${env[@]}" "${mpirun[@]}" "$GS_BUILD/bin/vitsim-train" train --data "$data" \
          --model "$GS_MODEL" $GS_MODEL_ARGS $(gs_device_flags) --precision "$p" \
          --micro-batch "$b" --max-steps "$GS_STEPS" --epochs 1 --no-eval --no-progress \
          --wall-clock-breakdown --seed 1 --threads "$GS_THREADS" "${extra[@]}" \
          --run-log "$r/train-$GS_DEVICE_ID-$regime-b$b$tag.json"
      done
    done
  done
  ((GS_FAILED == 0))
}

stage_pytorch() {
  local r=$GS_RES
  local model_json=${GS_MODEL_JSON:-$GS_BUNDLE/model/$GS_MODEL.json}
  if ! "$GS_PYTHON" -c 'import torchvision' 2>/dev/null; then
    gs_record "pytorch" failed 0 "torchvision is not importable by $GS_PYTHON (hint: carry its wheel, docs/gpu.md)"
    return 1
  fi
  local regime precisions=""
  for regime in ${GS_PRECISIONS//,/ }; do
    case $regime in
      fp32 | tf32 | amp-bf16 | amp-fp16) precisions+=${precisions:+,}$regime ;;
      *) gs_record "pytorch $regime" skipped 0 "no plain-PyTorch counterpart of $regime here" ;;
    esac
  done
  [[ -n $precisions ]] || return 0
  local device=cuda
  [[ $GS_REHEARSE == 1 ]] && device=cpu
  local left=$(($(gs_left_s) - 75))  # the script starts no run after this; the last one ends
  GS_TAIL_LINES=40 gs_step "pytorch step times and MFU" 30 --log "$r/pytorch.log" -- \
    env PYTHONUNBUFFERED=1 "$GS_PYTHON" "$GS_REPO/bench/gpu/pytorch_vit_step.py" \
    --model-json "$model_json" --micro-batches "$GS_MICRO_BATCHES" --precisions "$precisions" \
    --modes "$GS_MODES" --compile-micro-batches "$GS_COMPILE_MICRO_BATCHES" --steps "$GS_STEPS" \
    --warmup "$GS_WARMUP" --device "$device" --budget-s "$((left > 1 ? left : 1))" \
    --peak-size "$GS_PEAK_SIZE" --out "$r/pytorch-$GS_DEVICE_ID-$GS_MODEL.json"
}

# TF32 against fp32 on one lent GPU in one command (docs/gpu.md, "TF32"): the sustained rate of
# one large torch.mm per datatype at the public table's sizes (the largest of them is a row of
# data/public-benchmarks/gemm_throughput.csv), the training step's kernels per class in fp32 and
# tf32 (kernel_classes.py: which class TF32 moves), vitsim-train's per-layer profile of both
# regimes, and a short tf32 training run at micro-batch 64 (its run log).
stage_tf32() {
  local r=$GS_RES n failed=0
  gs_use_bundle || return 1
  local model_json=${GS_MODEL_JSON:-$GS_BUNDLE/model/$GS_MODEL.json}
  local device=cuda
  [[ $GS_REHEARSE == 1 ]] && device=cpu
  for n in 1024 2048 4096 8192 10240; do
    GS_TAIL_LINES=3 gs_step "torch.mm n=$n" 10 --log "$r/gemm-$n.log" -- \
      "$GS_PYTHON" "$GS_REPO/bench/gpu/matmul_peak.py" --device "$device" \
      --dtypes fp32,tf32,fp16,bf16 --size "$n" --copy-mib 0 --out "$r/gemm-$GS_DEVICE_ID-n$n.json" ||
      failed=$((failed + 1))
  done
  GS_TAIL_LINES=8 gs_step "kernel classes fp32, tf32" 40 --log "$r/kernels.log" -- \
    "$GS_PYTHON" "$GS_REPO/bench/gpu/kernel_classes.py" measure --model-json "$model_json" \
    --precisions fp32,tf32 --micro-batches 8,64,256 --device "$device" \
    --out "$r/kernels-$GS_DEVICE_ID.json" || failed=$((failed + 1))
  if [[ $GS_REHEARSE == 1 ]]; then
    gs_record "profile and train tf32" skipped 0 "tf32 needs a GPU with TF32 (vitsim-train refuses it on a CPU)"
    GS_PRECISIONS=fp32 stage_profile || failed=$((failed + 1))
  else
    GS_PRECISIONS=fp32,tf32 stage_profile || failed=$((failed + 1))
    GS_PRECISIONS=tf32 GS_MICRO_BATCHES=64 stage_train || failed=$((failed + 1))
  fi
  ((failed == 0))
}

# Every stage in turn within one budget, each in its own folder of the one archive.
stage_all() {
  local top=$GS_RES s failed=0
  for s in probe build test profile train pytorch; do
    GS_RES=$top/$s
    mkdir -p "$GS_RES"
    echo "gpu-session: ===== $s"
    "stage_$s" || failed=$((failed + 1))
    sed "s/^/$s: /" "$GS_RES/.steps.tsv" >>"$top/.steps.tsv" 2>/dev/null
    [[ $s == probe ]] && GS_FAILED=0
  done
  GS_RES=$top
  ((failed == 0))
}
