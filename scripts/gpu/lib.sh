# shellcheck shell=bash
# Shared pieces of scripts/gpu-session (sourced, bash): the time budget, steps that are recorded
# (name, status, seconds, note) and bounded by what is left of the budget, the results archive,
# and what the machine has (GPU, PyTorch, CUDA, NCCL, the bundle). No stage logic here.

# --- time budget and recorded steps --------------------------------------------------------

gs_now() { date +%s; }
gs_left_s() { echo $((GS_BUDGET_S - ($(gs_now) - GS_STARTED))); }

# Appends one record to the stage's step list (a TSV that gs_pack turns into session.json).
gs_record() {  # gs_record NAME STATUS SECONDS NOTE
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4//$'\t'/ }" >>"$GS_RES/.steps.tsv"
  [[ $2 == failed ]] && GS_FAILED=$((GS_FAILED + 1))
  echo "gpu-session: [$2] $1 (${3} s)${4:+: $4}"
}

# Runs CMD as step NAME, bounded by what is left of the budget (minus a margin for packing);
# skips it when less than MIN seconds are left. With --log FILE its output goes there (and its
# last lines to the session log), else to the session log. Returns CMD's status (124, 137: ran
# out of time; 125: skipped).
gs_step() {  # gs_step NAME MIN [--log FILE] -- CMD...
  local name=$1 min=$2 log=""
  shift 2
  if [[ $1 == --log ]]; then log=$2; shift 2; fi
  shift  # --
  local left=$(($(gs_left_s) - 15))
  if ((left < min)); then
    gs_record "$name" skipped 0 "time budget: ${left} s left, needs about ${min} s"
    return 125
  fi
  local shown="$*"
  shown=${shown//$'\n'/ }
  echo "gpu-session: --- $name (up to ${left} s): ${shown:0:300}"
  local t0 rc
  t0=$(gs_now)
  if [[ -n $log ]]; then
    timeout -k 10 "$left" "$@" >"$log" 2>&1
    rc=$?
    tail -n "${GS_TAIL_LINES:-12}" "$log"
  else
    timeout -k 10 "$left" "$@"
    rc=$?
  fi
  local note=""
  ((rc == 124 || rc == 137)) && note="stopped at the time budget"
  ((rc != 0 && rc != 124 && rc != 137)) && note="exit status $rc${log:+, see $(basename "$log")}"
  gs_record "$name" "$([[ $rc -eq 0 ]] && echo ok || echo failed)" $(($(gs_now) - t0)) "$note"
  return $rc
}

json_str() {  # a JSON string literal of $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  printf '"%s"' "${s//$'\t'/ }"
}

# session.json (the stage's record) and the one archive under --out; run on every exit.
gs_pack() {
  local rc=${1:-$?}
  [[ -n ${GS_RES:-} && -d $GS_RES ]] || return 0
  {
    printf '{\n  "schema": "vitsim.gpu_session",\n  "schema_version": 1,\n'
    printf '  "stage": %s,\n  "argv": [' "$(json_str "$GS_STAGE")"
    local first=1 a
    for a in "${GS_ARGV[@]}"; do
      ((first)) || printf ', '
      first=0
      json_str "$a"
    done
    printf '],\n  "rehearsal": %s,\n  "source_sha": %s,\n' "$([[ $GS_REHEARSE == 1 ]] && echo true || echo false)" "$(json_str "$GS_SHA")"
    printf '  "started_utc": %s,\n  "elapsed_s": %d,\n  "exit_code": %d,\n  "steps": [' \
      "$(json_str "$GS_STARTED_UTC")" $(($(gs_now) - GS_STARTED)) "$rc"
    first=1
    local name status secs note
    while IFS=$'\t' read -r name status secs note; do
      ((first)) || printf ','
      first=0
      printf '\n    {"name": %s, "status": %s, "seconds": %s, "note": %s}' "$(json_str "$name")" \
        "$(json_str "$status")" "$secs" "$(json_str "$note")"
    done < <(cat "$GS_RES/.steps.tsv" 2>/dev/null)
    printf '\n  ]\n}\n'
  } >"$GS_RES/session.json"
  cp "$GS_LOG" "$GS_RES/" 2>/dev/null
  local archive=$GS_OUT/gpu-$GS_STAGE.tar.gz
  tar -czf "$archive.part" -C "$(dirname "$GS_RES")" --exclude=.steps.tsv "$(basename "$GS_RES")" &&
    mv "$archive.part" "$archive" &&
    echo "gpu-session: $GS_STAGE: results in $archive ($(du -k "$archive" | cut -f1) KiB), exit $rc"
}

# --- what the machine has ------------------------------------------------------------------

# Prints why there is no usable GPU, or nothing.
gs_no_gpu_reason() {
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "no nvidia-smi on PATH (no NVIDIA driver on this machine)"
  elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "nvidia-smi lists no GPU ($(nvidia-smi -L 2>&1 | head -1))"
  fi
}

# The gpus.json id of GPU 0 from its name, or nothing (then --device-id is needed).
gs_device_id_from_name() {
  case $1 in
    *H200*) echo h200-sxm ;;
    *H100*HBM3* | *H100*SXM*) echo h100-sxm ;;
    *A100*SXM*80GB* | *A100*80GB*HBM2e*) echo a100-sxm4-80gb ;;
    *A100*SXM*) echo a100-sxm4-40gb ;;
    *) ;;
  esac
}

# PyTorch's facts as KEY=VALUE lines (torch, cuda, cmake_prefix, site, nccl, abi), or nothing.
gs_torch_facts() {
  "$GS_PYTHON" - <<'EOF' 2>/dev/null
import os, torch
print("torch=" + torch.__version__)
print("cuda=" + str(torch.version.cuda))
print("cmake_prefix=" + torch.utils.cmake_prefix_path)
print("site=" + os.path.dirname(os.path.dirname(torch.__file__)))
print("cxx11_abi=" + str(torch.compiled_with_cxx11_abi()))
try:
    print("nccl=" + ".".join(map(str, torch.cuda.nccl.version())))
except Exception:
    print("nccl=none")
EOF
}

# First file named $2 under folder $1 (the PyTorch wheels' nvidia/ tree), or nothing.
gs_find_first() { find "$1" -name "$2" -print -quit 2>/dev/null; }

gs_cuda_root() {
  if [[ -x ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc ]]; then
    echo "${CUDA_HOME:-/usr/local/cuda}"
  elif command -v nvcc >/dev/null 2>&1; then
    dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")"
  fi
}

# The bundle (scripts/gpu-bundle), sourced: Open MPI, PMIx, loader and CMake paths. "full" checks
# every library in it first (some seconds); otherwise only that it is there.
gs_use_bundle() {
  local ok=1
  if [[ ${1:-} == full ]]; then
    "$GS_REPO/scripts/gpu-bundle" --check "$GS_BUNDLE" || ok=0
  elif [[ ! -f $GS_BUNDLE/env.sh || ! -x $GS_BUNDLE/root/usr/bin/orterun ]]; then
    ok=0
  fi
  if ((ok == 0)); then
    gs_record "bundle" failed 0 "$GS_BUNDLE is missing or incomplete (hint: scripts/gpu-bundle on Debian 12, then carry .gpu-bundle; docs/gpu.md)"
    return 1
  fi
  # shellcheck disable=SC1091
  source "$GS_BUNDLE/env.sh"
}
