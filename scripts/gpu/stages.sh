# shellcheck shell=bash
# The stages of scripts/gpu-session (sourced, bash). Each writes into $GS_RES (packed by gs_pack)
# and returns non-zero when one of its steps failed. Options arrive as GS_* variables.

# --- probe: what the machine has -----------------------------------------------------------

stage_probe() {
  local r=$GS_RES
  GS_TAIL_LINES=80 gs_step "system" 5 --log "$r/system.txt" -- bash -c '
    uname -a; cat /etc/os-release 2>/dev/null; echo "glibc: $(ldd --version 2>&1 | head -1)"
    echo "cpus: $(nproc)"; free -g; df -h "$1"
    for t in gcc g++ c++ clang++ nvcc cmake ninja make pkg-config python3 mpirun tar gzip ldconfig; do
      printf "%-11s %s\n" "$t" "$(command -v $t || echo absent)"
    done
    for t in gcc g++ nvcc cmake ninja; do command -v $t >/dev/null && { echo "== $t"; $t --version | head -4; }; done
    ls -d /usr/local/cuda* 2>/dev/null' _ "$GS_REPO" 
  if [[ -z $(gs_no_gpu_reason) ]]; then
    GS_TAIL_LINES=30 gs_step "nvidia-smi" 5 --log "$r/nvidia-smi.txt" -- bash -c 'nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm,power.limit --format=csv'
    nvidia-smi -q >"$r/nvidia-smi-q.txt" 2>&1
  else
    gs_record "nvidia-smi" skipped 0 "$(gs_no_gpu_reason)"
  fi
  GS_TAIL_LINES=40 gs_step "python" 10 --log "$r/python.txt" -- "$GS_PYTHON" - <<'EOF'
import importlib, os, platform, sys
print("python", platform.python_version(), sys.executable)
for name in ("torch", "torchvision", "timm", "numpy", "mpi4py"):
    try:
        print(name, importlib.import_module(name).__version__)
    except Exception as e:
        print(name, "absent:", str(e).splitlines()[0][:120])
import torch
print("cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "cxx11_abi",
      torch.compiled_with_cxx11_abi(), "cmake_prefix_path", torch.utils.cmake_prefix_path)
print("cuda available", torch.cuda.is_available())
if torch.cuda.is_available():
    print("nccl", torch.cuda.nccl.version(), "device", torch.cuda.get_device_name(0),
          "capability", torch.cuda.get_device_capability(0))
site = os.path.dirname(os.path.dirname(torch.__file__))
for root, dirs, files in os.walk(os.path.join(site, "nvidia")):
    for f in files:
        if f in ("nccl.h", "cuda_runtime.h") or f.startswith(("libnccl.so", "libcudart.so")):
            print("found", os.path.join(root, f))
EOF
  gs_step "bundle" 5 --log "$r/bundle.txt" -- "$GS_REPO/scripts/gpu-bundle" --check "$GS_BUNDLE"
  if [[ -z $(gs_no_gpu_reason) ]]; then
    GS_TAIL_LINES=20 gs_step "ceilings (matrix products, copy)" 30 --log "$r/peaks.log" -- "$GS_PYTHON" \
      "$GS_REPO/bench/gpu/matmul_peak.py" --device cuda --out "$r/peaks.json"
  else
    gs_record "ceilings (matrix products, copy)" skipped 0 "no GPU"
  fi
  GS_FAILED=0  # probe reports what it found; nothing in it fails the stage
}

# --- build: vitsim-train with CUDA + NCCL against PyTorch's LibTorch -------------------------

# C++ standard: 20 when the LibTorch headers refuse 17, else 17 (CMakeLists.txt default).
gs_cxx_standard() {
  local include=$1
  if grep -qsE '__cplusplus < 202002L' "$include"/c10/macros/Macros.h "$include"/c10/util/C++17.h \
    "$include"/torch/csrc/api/include/torch/all.h; then echo 20; else echo 17; fi
}

stage_build() {
  local r=$GS_RES
  gs_use_bundle full || return 1
  local facts torch_dir cuda nccl_h nccl_lib site
  facts=$(gs_torch_facts)
  echo "$facts" >"$r/torch-facts.txt"
  site=$(sed -n 's/^site=//p' <<<"$facts")
  torch_dir=${GS_TORCH_DIR:-$(sed -n 's/^cmake_prefix=//p' <<<"$facts")/Torch}
  if [[ ! -f $torch_dir/TorchConfig.cmake && $GS_REHEARSE == 1 ]]; then
    torch_dir=/usr/lib/$(gcc -dumpmachine 2>/dev/null)/cmake/Torch  # Debian's libtorch-dev
  fi
  if [[ ! -f $torch_dir/TorchConfig.cmake ]]; then
    gs_record "find LibTorch" failed 0 "no TorchConfig.cmake in '$torch_dir' (python: $GS_PYTHON; hint: --python or --torch-dir)"
    return 1
  fi
  cuda=$(gs_cuda_root)
  nccl_h=$([[ -n $site ]] && gs_find_first "$site/nvidia" nccl.h)
  nccl_lib=$([[ -n $site ]] && gs_find_first "$site/nvidia" 'libnccl.so*')
  [[ -z $nccl_h && -n $cuda ]] && nccl_h=$(gs_find_first "$cuda/include" nccl.h)
  [[ -z $nccl_lib && -n $cuda ]] && nccl_lib=$(gs_find_first "$cuda/" 'libnccl.so*')
  local std=${GS_CXX_STANDARD:-$(gs_cxx_standard "$(dirname "$(dirname "$(dirname "$torch_dir")")")/include")}
  local arch
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  arch=${arch:-90}
  local args=(-S "$GS_REPO" -B "$GS_BUILD" -DVITSIM_BUILD_SIM=OFF -DVITSIM_CXX_STANDARD="$std"
    -DTorch_DIR="$torch_dir" -DMPI_CXX_COMPILER="$GS_BUNDLE/root/usr/bin/mpicxx"
    -DMPIEXEC_EXECUTABLE="$GS_BUNDLE/root/usr/bin/mpirun" -DVITSIM_SOURCE_SHA="$GS_SHA"
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DTORCH_CUDA_ARCH_LIST="${arch:0:${#arch}-1}.${arch: -1}")
  command -v ninja >/dev/null && [[ ! -f $GS_BUILD/Makefile ]] && args+=(-G Ninja)
  [[ -n $cuda ]] && args+=(-DCUDAToolkit_ROOT="$cuda" -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc")
  [[ -n $nccl_h ]] && args+=(-DNCCL_INCLUDE_DIR="$(dirname "$nccl_h")")
  [[ -n $nccl_lib ]] && args+=(-DNCCL_LIBRARY="$nccl_lib")
  # shellcheck disable=SC2206  # options split like a shell would
  args+=($GS_CMAKE_ARGS)
  printf '%q ' cmake "${args[@]}" >"$r/configure-command.txt"
  GS_TAIL_LINES=25 gs_step "configure" 30 --log "$r/configure.log" -- cmake "${args[@]}" || return 1
  local targets=(vitsim-train trainer_unit_tests trainer_model_tests trainer_mpi_tests
    costmodel_tests schema_tests scripts_tests)
  grep -q 'NCCL core (no Torch)    : ON' "$r/configure.log" && targets+=(trainer_nccl_core_tests nccl_core_mpi_check)
  if ! grep -q 'trainer CUDA + NCCL     : ON' "$r/configure.log"; then
    if [[ $GS_REHEARSE != 1 ]]; then
      gs_record "CUDA + NCCL in vitsim-train" failed 0 "configure says OFF (see configure.log)"
      return 1
    fi
    gs_record "CUDA + NCCL in vitsim-train" skipped 0 "rehearsal: OFF with this LibTorch"
  fi
  gs_step "compile" 60 --log "$r/build.log" -- cmake --build "$GS_BUILD" -j "$GS_JOBS" \
    --target "${targets[@]}" || return 1
  { "$GS_BUILD/bin/vitsim-train" --version; ldd "$GS_BUILD/bin/vitsim-train"; } >"$r/vitsim-train-ldd.txt" 2>&1
  gs_export_binary
}

# The next call gets a fresh machine: vitsim-train (stripped) goes back as a third file,
# gpu-build-bin.tar.gz, which unpacks at the repository root to BUILD/bin/vitsim-train; carried
# with the next call ("carry": ["build-gpu/bin"]), it spares that call the build (docs/gpu.md).
gs_export_binary() {
  local rel=${GS_BUILD#"$GS_REPO"/}
  [[ $rel != "$GS_BUILD" ]] || return 0  # a build folder outside the tree cannot be carried
  local stage=$GS_WORK/export
  rm -rf "$stage" && mkdir -p "$stage/$rel/bin"
  strip -o "$stage/$rel/bin/vitsim-train" "$GS_BUILD/bin/vitsim-train" 2>/dev/null ||
    cp "$GS_BUILD/bin/vitsim-train" "$stage/$rel/bin/vitsim-train"
  tar -czf "$GS_OUT/gpu-build-bin.tar.gz" -C "$stage" "$rel/bin/vitsim-train" &&
    gs_record "export vitsim-train" ok 0 "$GS_OUT/gpu-build-bin.tar.gz, $(du -k "$GS_OUT/gpu-build-bin.tar.gz" | cut -f1) KiB"
}

# Builds what a stage needs when the machine is cold again (each call gets a fresh one).
gs_ensure_built() {
  local t
  for t in "$GS_BUILD/bin/vitsim-train" "$@"; do
    if [[ ! -x $t ]]; then
      echo "gpu-session: $t missing (a fresh machine): building first"
      stage_build
      return
    fi
  done
  gs_record "build" skipped 0 "already built in $GS_BUILD (warm machine)"
}

# --- test: the GPU tests, then the rest of what the build compiled ---------------------------------------

readonly kGpuTests='NcclCore|MpiTrain\.(NcclOn|[A-Za-z]*OnGpu)'
# Tests of this development machine's tooling, not of vitsim-train, that a lent machine cannot run:
# it has no clang-format (Format.*), and no apt-get nor simulator to make a bundle with
# (GpuBundle.Made*, GpuBundle.Bundled*). Left out by name, and recorded as such in session.json.
readonly kNotOnLentMachine='Format\.|GpuBundle\.(Made|Bundled)'

stage_test() {
  local r=$GS_RES
  gs_use_bundle || return 1
  gs_ensure_built "$GS_BUILD/bin/trainer_mpi_tests" || return 1
  GS_TAIL_LINES=30 gs_step "GPU tests (serial)" 60 --log "$r/ctest-gpu.log" -- ctest \
    --test-dir "$GS_BUILD" -R "$kGpuTests" -LE emulate --output-on-failure \
    --output-junit "$r/ctest-gpu.xml"
  # (*_NOT_BUILT: suites of the whole tree this trainer-only build leaves out, e.g. emulate_tests)
  gs_record "tests of the development machine's tooling" skipped 0 \
    "left out here (no clang-format, apt-get or simulator on a lent machine): $kNotOnLentMachine"
  gs_step "other tests" 60 --log "$r/ctest-other.log" -- ctest --test-dir "$GS_BUILD" \
    -E "$kGpuTests|$kNotOnLentMachine|_NOT_BUILT\$" -LE emulate -j 4 --output-on-failure \
    --output-junit "$r/ctest-other.xml"
}
