#!/usr/bin/env bash
# Compile-and-link check of meshguard's NCCL path against a real
# ProcessGroupNCCL: builds the runtime, meshguard_runtime_tests and
# meshguard_rank_tests against PyTorch's CUDA wheel (2.14.1 by default), with
# the CUDA toolkit's nvcc. Needs no GPU and runs nothing: it proves that the
# NCCL code in lib/runtime/compat/ compiles against that libtorch and that the
# programs link against libtorch_cuda and NCCL. What runs on a GPU is
# scripts/gpu-check.sh (docs/runtime/gpu.md).
#
#   scripts/cuda-compile-check.sh [BUILD_DIR]      # default: build-cuda
#   make cuda-check                                # the same
#
# The venv (about 5.5 GB, from the wheel on the disk) is made once and reused
# while its torch is the wanted version. Ends with one line:
#   cuda-compile-check: PASS|FAIL (...) in N s
# Environment:
#   MESHGUARD_CUDA_VENV           the venv (default: .venv-cuda at the checkout's root)
#   MESHGUARD_CUDA_TORCH_VERSION  torch version to install, pinned exactly (default 2.14.1)
#   CUDA_HOME                     the CUDA toolkit with nvcc (default /usr/local/cuda)
#   JOBS                          parallel compile jobs (default: nproc)
#   NICE                          niceness of the build (default 19)
#   PYTHON                        python3 that makes the venv (default python3)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-cuda}
venv=${MESHGUARD_CUDA_VENV:-$root/.venv-cuda}
want=${MESHGUARD_CUDA_TORCH_VERSION:-2.14.1}
cuda=${CUDA_HOME:-/usr/local/cuda}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
niceness=${NICE:-19}
python=${PYTHON:-python3}
targets=(meshguard_runtime meshguard_runtime_tests meshguard_rank_tests)
SECONDS=0

say() { echo "cuda-compile-check [${SECONDS}s]: $*" >&2; }
finish() {
  # finish PASS|FAIL WHAT
  echo "cuda-compile-check: $1 ($2) in ${SECONDS} s"
  [[ $1 == PASS ]]
  exit
}

# --- the venv with the CUDA wheel -------------------------------------------
installed() {
  # torch == $want, without importing it (slow, and a NumPy warning).
  "$venv/bin/python" - "$want" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if version("torch").split("+")[0] == sys.argv[1] else 1)
PY
}
if installed; then
  say "reusing $venv (torch $want)"
else
  say "installing torch==$want into $venv (about 5.5 GB with the nvidia-* wheels, from the wheel on the disk)"
  [[ -x $venv/bin/python ]] || "$python" -m venv "$venv" >&2 || finish FAIL "cannot make the venv $venv"
  log=$(mktemp /tmp/meshguard-pip-cuda.XXXXXX.log)
  # Pinned exactly: a range would let pip download a newer build of several GB.
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q "torch==$want" >"$log" 2>&1; then
    tail -5 "$log" >&2
    finish FAIL "pip install torch==$want failed, log: $log"
  fi
  installed || finish FAIL "torch $want is still not installed in $venv (log: $log)"
fi
site=$("$venv/bin/python" -c 'import importlib.util, os; print(os.path.dirname(os.path.dirname(importlib.util.find_spec("torch").origin)))')
torch_cmake=$site/torch/share/cmake
[[ -f $torch_cmake/Torch/TorchConfig.cmake ]] || finish FAIL "no TorchConfig.cmake under $torch_cmake"
[[ -e $site/torch/lib/libtorch_cuda.so ]] || finish FAIL "torch $want in $venv is not a CUDA build (no libtorch_cuda.so)"

# --- the CUDA toolkit -------------------------------------------------------
# TorchConfig of a CUDA build runs find_package(CUDA) and enable_language(CUDA):
# it needs nvcc and cudart even though meshguard has no .cu file.
[[ -x $cuda/bin/nvcc ]] || finish FAIL "no nvcc in $cuda/bin (set CUDA_HOME to a CUDA toolkit)"
cmake_args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  -DMESHGUARD_BUILD_CLANG_TOOLS=OFF
  -DTorch_DIR="$torch_cmake/Torch"
  # Caffe2Config.cmake, which TorchConfig finds with find_dependency: without
  # this, the system's (Debian's libtorch-dev 1.13) comes first and its torch
  # targets point at /usr/lib's libtorch.so.1.13.
  -DCaffe2_DIR="$torch_cmake/Caffe2"
  -DCUDA_TOOLKIT_ROOT_DIR="$cuda" -DCUDAToolkit_ROOT="$cuda" -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc"
  # Only for .cu files (none here); saves the GPU probe and the all-arch list.
  -DTORCH_CUDA_ARCH_LIST=9.0)
command -v ninja >/dev/null && cmake_args+=(-G Ninja)
# A toolkit with only nvcc and cudart (as here) has no libnvrtc, which the torch
# target links: take the wheel's (nvidia/cu13 for CUDA 13, nvidia/cuda_nvrtc for 12).
if ! ls "$cuda"/lib64/libnvrtc.so* "$cuda"/lib/libnvrtc.so* >/dev/null 2>&1; then
  nvrtc=$(ls "$site"/nvidia/cu*/lib/libnvrtc.so.* "$site"/nvidia/cuda_nvrtc/lib/libnvrtc.so.* 2>/dev/null |
    grep -v builtins | grep -v '\.alt\.' | head -1)
  [[ -n $nvrtc ]] && cmake_args+=(-DCUDA_nvrtc_LIBRARY="$nvrtc")
fi

# --- configure --------------------------------------------------------------
mkdir -p "$build"
conf_log=$build/cuda-check-configure.log
build_log=$build/cuda-check-build.log
say "configuring $build against torch $want ($torch_cmake), CUDA $cuda -> $(basename "$conf_log")"
if ! nice -n "$niceness" cmake "${cmake_args[@]}" >"$conf_log" 2>&1; then
  grep -E -A5 "CMake Error" "$conf_log" | head -30 >&2
  finish FAIL "configure failed, log: $conf_log"
fi
grep "meshguard:" "$conf_log" >&2
grep -q "meshguard: NCCL path ON" "$conf_log" ||
  finish FAIL "configured, but the NCCL path is OFF (see the warnings in $conf_log)"

# --- build ------------------------------------------------------------------
say "building ${targets[*]} with -j $jobs, nice $niceness -> $(basename "$build_log")"
if ! nice -n "$niceness" cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build_log" 2>&1; then
  grep -E "error|FAILED|undefined reference" "$build_log" | head -30 >&2
  finish FAIL "build failed, log: $build_log"
fi

# --- what was built ---------------------------------------------------------
# The NCCL path was compiled in: the runtime (static or shared) calls
# ProcessGroupNCCL's constructor, and the test programs import it from the
# venv's libtorch_cuda and load the venv's NCCL.
lib=$(ls "$build"/lib/libmeshguard_runtime.so "$build"/lib/libmeshguard_runtime.a 2>/dev/null | head -1)
[[ -n $lib ]] || finish FAIL "no libmeshguard_runtime.{so,a} in $build/lib"
# (grep -c, not -q: -q would close the pipe early, and pipefail see nm's SIGPIPE)
calls_nccl() { nm "$@" 2>/dev/null | grep -c 'c10d::ProcessGroupNCCL::ProcessGroupNCCL(' >/dev/null; }
calls_nccl -C --undefined-only "$lib" ||
  finish FAIL "$(basename "$lib") does not call ProcessGroupNCCL's constructor: the NCCL path was not compiled in"
exes=("$build"/bin/meshguard_runtime_tests "$build"/bin/meshguard_rank_tests)
[[ $lib == *.so ]] && exes+=("$lib")
for exe in "${exes[@]}"; do
  deps=$(ldd "$exe" 2>&1) || finish FAIL "ldd $exe failed: $deps"
  # Only the venv's libtorch, never the system's (Debian's 1.13).
  bad=$(grep -E 'lib(c10|torch)[a-z_]*\.so' <<<"$deps" | grep -v "=> $site/torch/lib/" || true)
  [[ -z $bad ]] || finish FAIL "$(basename "$exe") loads a libtorch outside the venv: $(echo $bad)"
  missing=$(grep 'not found' <<<"$deps" || true)
  [[ -z $missing ]] || finish FAIL "$(basename "$exe") has unresolved libraries: $(echo $missing)"
done
calls_nccl -D -C --undefined-only "$build/bin/meshguard_runtime_tests" ||
  finish FAIL "meshguard_runtime_tests does not import ProcessGroupNCCL's constructor"
deps=$(ldd "$build/bin/meshguard_runtime_tests")
for need in libtorch_cuda.so libnccl.so.2; do
  grep -q "$need => " <<<"$deps" || finish FAIL "meshguard_runtime_tests does not load $need"
done
nccl=$(sed -n 's/.*libnccl.so.2 => \([^ ]*\).*/\1/p' <<<"$deps")
nccl=$(readlink -f "$nccl" 2>/dev/null || echo "$nccl")
finish PASS "torch $want, NCCL path ON, ${targets[*]} compiled and linked; NCCL from $nccl"
