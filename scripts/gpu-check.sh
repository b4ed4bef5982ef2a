#!/usr/bin/env bash
# GPU check for meshguard's runtime: on a machine with a GPU and a PyTorch 2.x
# install, configure meshguard against that PyTorch, build the runtime, its
# tests and the benchmark, run the CUDA/NCCL tests (world size 1: NCCL
# refuses two ranks on one GPU), the Gloo multi-rank tests, and the guard
# benchmark against raw ProcessGroupNCCL calls, then write a short report.
#
#   scripts/gpu-check.sh [OUT_DIR]        # default: $OUT, else ./gpu-check-out
#
# It copes with what the machine lacks (no ninja, no googletest package, no
# GPU, a PyTorch without NCCL) and says so in the report; it never downloads.
# Environment:
#   PYTHON                   the python3 that has torch (default: python3, then /opt/torch/.venv/bin/python3)
#   MESHGUARD_TORCH_DIR      a Torch_DIR to use instead (e.g. Debian's libtorch for a dry run)
#   MESHGUARD_GTEST_SOURCE_DIR  googletest sources when no GTest package is installed
#                            (also looked for: /usr/src/googletest, .gpu-deps/googletest)
#   GPU_CHECK_BUDGET_S       total time budget (default 450 s; the goal is < 8 min on 16 cores)
#   GPU_CHECK_BUILD_DIR      build directory (default /tmp/meshguard-gpu-check)
#   GPU_CHECK_CTEST_LIMIT_S  limit for the runtime ctest step (default 240 s)
#   GPU_CHECK_CONFIGURE_ONLY=1  stop after the configure step (a dry run of the
#                            CMake side on a machine without a GPU)
#   CUDA_HOME                the CUDA toolkit (nvcc); else /usr/local/cuda, nvcc on PATH,
#                            /usr/local/cuda-*, the nvidia-* wheels beside torch
# With a PyTorch 2.x CUDA build (e.g. 2.11 + CUDA 13 in /opt/torch/.venv):
# its TorchConfig needs nvcc (find_package(CUDA), enable_language(CUDA)); the
# CUDA libraries' headers and libnvrtc may come from the nvidia-* wheels, and
# NCCL from the nvidia-nccl wheel (cmake/MeshguardTorch.cmake looks there).
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$PWD/gpu-check-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${GPU_CHECK_BUILD_DIR:-/tmp/meshguard-gpu-check}
budget=${GPU_CHECK_BUDGET_S:-450}
jobs=$(nproc 2>/dev/null || echo 2)
report=$out/gpu-check.md
failures=()
notes=()
SECONDS=0

log() { echo "gpu-check [$((SECONDS))s]: $*" >&2; }
note() { notes+=("$*"); log "$*"; }
fail() { failures+=("$*"); log "FAILED: $*"; }
left() { echo $((budget - SECONDS)); }
# run_step NAME LIMIT_S LOG CMD...: runs CMD under a time limit that also
# respects the overall budget; output goes to LOG.
run_step() {
  local name=$1 limit=$2 logf=$3
  shift 3
  local remaining
  remaining=$(($(left) - 15))
  if ((remaining < 20)); then
    fail "$name: not run, the ${budget} s budget is spent"
    return 99
  fi
  ((limit > remaining)) && limit=$remaining
  log "$name (limit ${limit} s) -> $(basename "$logf")"
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" >>"$logf" 2>&1
  rc=$?
  log "$name: exit $rc after $((SECONDS - t0)) s"
  if ((rc == 124 || rc == 137)); then
    fail "$name: timed out after ${limit} s"
  fi
  return $rc
}

# --- what is on this machine ------------------------------------------------
py=${PYTHON:-}
if [[ -z $py ]]; then
  for cand in python3 /opt/torch/.venv/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then
      py=$cand
      break
    fi
  done
fi
torch_dir=${MESHGUARD_TORCH_DIR:-}
torch_info="(no python torch used)"
if [[ -z $torch_dir && -n $py ]]; then
  torch_dir=$("$py" -c 'import torch, os; print(os.path.join(torch.utils.cmake_prefix_path, "Torch"))' 2>/dev/null)
  torch_info=$("$py" - <<'EOF' 2>/dev/null
import torch
nccl = "n/a"
try:
    v = torch.cuda.nccl.version()
    nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
except Exception:
    pass
print("torch %s, CUDA %s, NCCL %s, GPUs visible: %d" % (torch.__version__, torch.version.cuda,
      nccl, torch.cuda.device_count() if torch.cuda.is_available() else 0))
EOF
  )
fi
if [[ -z $torch_dir || ! -d $torch_dir ]]; then
  fail "no PyTorch found (set PYTHON to a python3 with torch, or MESHGUARD_TORCH_DIR)"
fi
gpus=0
gpu_names="(nvidia-smi not found)"
if command -v nvidia-smi >/dev/null; then
  gpu_names=$(nvidia-smi -L 2>&1 | head -8)
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi

cmake_args=(-S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMESHGUARD_BUILD_CLANG_TOOLS=OFF
  -DMESHGUARD_BUILD_EXAMPLES=OFF -DTorch_DIR="$torch_dir")
if command -v ninja >/dev/null; then
  cmake_args+=(-G Ninja)
elif [[ -n $py ]] && "$py" -c 'import ninja' 2>/dev/null; then
  cmake_args+=(-G Ninja -DCMAKE_MAKE_PROGRAM="$("$py" -c 'import ninja, os; print(os.path.join(ninja.BIN_DIR, "ninja"))')")
else
  cmake_args+=(-G "Unix Makefiles")
fi
[[ -n $py ]] && cmake_args+=(-DPython3_EXECUTABLE="$(command -v "$py")")
# A pip PyTorch: <site-packages>/torch/share/cmake/Torch.
torch_site=""
if [[ -n $torch_dir && -d $torch_dir ]]; then
  torch_site=$(cd "$torch_dir/../../../.." && pwd)
  # Caffe2Config.cmake beside TorchConfig.cmake: find_dependency would
  # otherwise take a system one first (e.g. Debian's libtorch-dev's).
  [[ -f $torch_dir/../Caffe2/Caffe2Config.cmake ]] &&
    cmake_args+=(-DCaffe2_DIR="$(cd "$torch_dir/../Caffe2" && pwd)")
fi
# The CUDA toolkit: a CUDA build's TorchConfig needs nvcc even though
# meshguard compiles no .cu file.
cuda=""
nvcc_cands=("${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)")
nvcc_cands+=(/usr/local/cuda-*/bin/nvcc)
[[ -n $torch_site ]] && nvcc_cands+=("$torch_site"/nvidia/cu*/bin/nvcc "$torch_site"/nvidia/cuda_nvcc/bin/nvcc)
for nvcc in "${nvcc_cands[@]}"; do
  if [[ -n $nvcc && -x $nvcc ]]; then
    cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
    cmake_args+=(-DCUDAToolkit_ROOT="$cuda" -DCUDA_TOOLKIT_ROOT_DIR="$cuda" -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc")
    break
  fi
done
if [[ -z $cuda ]]; then
  if [[ -n $torch_dir && -e $torch_dir/../../../lib/libtorch_cuda.so ]]; then
    note "no nvcc found (CUDA_HOME, /usr/local/cuda, PATH, the nvidia wheels): a CUDA build of PyTorch cannot be configured without a CUDA toolkit"
  fi
elif [[ -n $torch_site ]] && ! ls "$cuda"/lib64/libnvrtc.so* "$cuda"/lib/libnvrtc.so* >/dev/null 2>&1; then
  # A toolkit without libnvrtc, which the torch target links: the wheel's.
  nvrtc=$(ls "$torch_site"/nvidia/cu*/lib/libnvrtc.so.* "$torch_site"/nvidia/cuda_nvrtc/lib/libnvrtc.so.* 2>/dev/null |
    grep -v builtins | grep -v '\.alt\.' | head -1)
  [[ -n $nvrtc ]] && cmake_args+=(-DCUDA_nvrtc_LIBRARY="$nvrtc")
fi
# nccl.h: a pip PyTorch keeps it in the nvidia-nccl wheel.
if [[ -n $py ]]; then
  nccl_h=$("$py" - <<'EOF' 2>/dev/null
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for h in glob.glob(os.path.join(r, "nvidia", "**", "nccl.h"), recursive=True):
        print(os.path.dirname(h)); raise SystemExit
EOF
  )
  if [[ -n $nccl_h ]]; then
    cmake_args+=(-DMESHGUARD_NCCL_INCLUDE_DIR="$nccl_h")
    nccl_lib=$(ls "$nccl_h"/../lib/libnccl.so* 2>/dev/null | head -1)
    [[ -n $nccl_lib ]] && cmake_args+=(-DMESHGUARD_NCCL_LIBRARY="$nccl_lib")
  fi
fi
# googletest: the package, else sources.
gtest_src=""
for cand in "${MESHGUARD_GTEST_SOURCE_DIR:-}" /usr/src/googletest "$repo/.gpu-deps/googletest"; do
  if [[ -n $cand && -f $cand/CMakeLists.txt ]]; then
    gtest_src=$cand
    break
  fi
done
[[ -n $gtest_src ]] && cmake_args+=(-DMESHGUARD_GTEST_SOURCE_DIR="$gtest_src")

# --- configure and build ----------------------------------------------------
: >"$out/configure.log"
: >"$out/build.log"
configured=0
built_tests=0
if [[ -n $torch_dir && -d $torch_dir ]]; then
  rm -f "$build/CMakeCache.txt"
  if run_step configure 180 "$out/configure.log" cmake "${cmake_args[@]}"; then
    configured=1
  else
    fail "configure (see configure.log)"
  fi
fi
if ((configured)) && grep -q "meshguard: NCCL path OFF" "$out/configure.log" && [[ -n $torch_site ]] &&
  [[ -e $torch_site/torch/lib/libtorch_cuda.so ]]; then
  fail "configure: a CUDA PyTorch, but the NCCL path is OFF (see the warnings in configure.log)"
fi
if ((configured)) && [[ ${GPU_CHECK_CONFIGURE_ONLY:-0} == 1 ]]; then
  note "GPU_CHECK_CONFIGURE_ONLY=1: stopped after the configure step"
  configured=0
fi
if ((configured)); then
  if run_step "build runtime + bench" 300 "$out/build.log" \
    cmake --build "$build" -j "$jobs" --target meshguard_runtime meshguard_bench; then
    if run_step "build tests" 300 "$out/build.log" \
      cmake --build "$build" -j "$jobs" --target meshguard_runtime_tests meshguard_rank_tests; then
      built_tests=1
    else
      fail "build tests (see build.log)"
    fi
  else
    fail "build runtime (see build.log)"
  fi
fi

# --- tests ------------------------------------------------------------------
export MESHGUARD_TIMEOUT_S=${MESHGUARD_TIMEOUT_S:-60}
: >"$out/cuda-tests.log"
: >"$out/ctest.log"
results=$build/test-results
mkdir -p "$results"
rm -f "$results"/*.xml
if ((built_tests)); then
  # World size 1 through the torchrun variables (set inside the tests).
  run_step "CUDA tests" 120 "$out/cuda-tests.log" \
    "$build/bin/meshguard_runtime_tests" --gtest_filter='CudaMesh.*:MultiRankCuda.*' \
    --gtest_output=xml:"$results/cuda.xml" || fail "CUDA tests (see cuda-tests.log)"
  # The no-GPU error, with every GPU hidden.
  run_step "CUDA tests, no GPU visible" 60 "$out/cuda-tests.log" \
    env CUDA_VISIBLE_DEVICES=-1 "$build/bin/meshguard_runtime_tests" --gtest_filter='CudaMesh.NoVisibleGpuIsAClearError' \
    --gtest_output=xml:"$results/cuda-hidden.xml" || fail "CUDA test with CUDA_VISIBLE_DEVICES=-1 (see cuda-tests.log)"
  # Everything else, the Gloo multi-rank tests included (real processes).
  run_step "runtime tests (ctest)" "${GPU_CHECK_CTEST_LIMIT_S:-240}" "$out/ctest.log" \
    ctest --test-dir "$build" -L runtime -E 'CudaMesh|MultiRankCuda|install' -j "$((jobs > 8 ? 8 : jobs))" \
    --timeout 200 --output-on-failure --output-junit "$results/ctest.xml" || fail "runtime tests (see ctest.log)"
else
  note "tests not built: nothing to run"
fi

# --- benchmark --------------------------------------------------------------
: >"$out/bench.log"
if ((configured)) && [[ -x $build/bin/meshguard_bench ]]; then
  nproc_bench=$((gpus > 0 ? gpus : 1))
  if "$build/bin/meshguard_runtime_tests" --gtest_filter='CudaMesh.NcclWorldOfOne' 2>/dev/null | grep -q '\[       OK \]'; then
    run_step "guard benchmark (NCCL, $nproc_bench rank(s))" 180 "$out/bench.log" \
      "$repo/scripts/meshguard-launch" --nproc "$nproc_bench" --no-prefix --timeout 170 -- \
      "$build/bin/meshguard_bench" --cuda --collectives-only || fail "benchmark (see bench.log)"
  else
    note "NCCL benchmark not run: no working CUDA mesh here (see cuda-tests.log); ran the Gloo one instead"
    run_step "guard benchmark (Gloo, 2 ranks, quick)" 120 "$out/bench.log" \
      "$repo/scripts/meshguard-launch" --nproc 2 --no-prefix --timeout 110 -- \
      "$build/bin/meshguard_bench" --quick --collectives-only || fail "benchmark (see bench.log)"
  fi
fi

# --- report -----------------------------------------------------------------
status=PASS
((${#failures[@]})) && status=FAIL
printf '%s\n' "${failures[@]}" >"$build/failures.txt"
printf '%s\n' "${notes[@]}" >"$build/notes.txt"
GC_REPORT=$report GC_RESULTS=$results GC_OUT=$out GC_STATUS=$status GC_SECONDS=$SECONDS GC_BUDGET=$budget \
  GC_JOBS=$jobs GC_GPUS=$gpu_names GC_TORCH=$torch_info GC_TORCH_DIR=$torch_dir GC_GTEST=$gtest_src \
  GC_FAILURES=$build/failures.txt GC_NOTES=$build/notes.txt "${py:-python3}" - <<'EOF'
import os, re, xml.etree.ElementTree as ET

E = os.environ
out, results = E["GC_OUT"], E["GC_RESULTS"]


def read(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return ""


def cases(path):
    """(name, passed|failed|skipped, reason) from a gtest or ctest JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    rows = []
    for c in root.iter("testcase"):
        name = c.get("name", "")
        if c.get("classname") and not name.startswith(c.get("classname")):
            name = c.get("classname") + "." + name
        sk = c.find("skipped")
        if c.find("failure") is not None or c.find("error") is not None or c.get("status") == "fail":
            rows.append((name, "failed", ""))
        elif sk is not None or c.get("result") == "skipped" or c.get("status") in ("notrun", "disabled"):
            msg = "" if sk is None else (sk.get("message") or sk.text or "")
            rows.append((name, "skipped", " ".join(msg.split())))
        else:
            rows.append((name, "passed", ""))
    return rows


gtest = E["GC_GTEST"]
lines = ["# meshguard GPU check: " + E["GC_STATUS"], "", "| | |", "|---|---|",
         "| machine | %s |" % "; ".join(E["GC_GPUS"].splitlines()),
         "| PyTorch | %s |" % E["GC_TORCH"],
         "| Torch_DIR | `%s` |" % E["GC_TORCH_DIR"],
         "| googletest | %s |" % ("package, else sources in `%s`" % gtest if gtest else "package only"),
         "| time | %s s of a %s s budget, %s cores |" % (E["GC_SECONDS"], E["GC_BUDGET"], E["GC_JOBS"]), ""]
lines += ["    " + l.strip() for l in read(os.path.join(out, "configure.log")).splitlines()
          if "meshguard:" in l or "CMake Error" in l]
lines += ["", "## Tests", ""]
total = [0, 0, 0]
for label, f in (("CUDA/NCCL, world size 1", "cuda.xml"), ("CUDA with CUDA_VISIBLE_DEVICES=-1", "cuda-hidden.xml"),
                 ("runtime ctest (Gloo multi-rank and single-process)", "ctest.xml")):
    rows = cases(os.path.join(results, f))
    n = [sum(r[1] == k for r in rows) for k in ("passed", "failed", "skipped")]
    total = [a + b for a, b in zip(total, n)]
    lines.append("- %s: %d passed, %d failed, %d skipped%s" % (label, n[0], n[1], n[2], "" if rows else " (not run)"))
    lines += ["  - %s: **%s**%s" % (name, st, ": " + msg if msg else "") for name, st, msg in rows if st != "passed"]
lines += ["", "%d passed, %d failed, %d skipped" % tuple(total), "", "## Guard benchmark", ""]
bench = read(os.path.join(out, "bench.log")).splitlines()
lines += [l for l in bench if l.startswith(("|", "##", "One rank", "'guard"))] or ["(no output; see bench.log)"]
paired = []
nccl = any("NCCL" in l for l in bench if l.startswith("##"))
for l in bench:
    cols = [c.strip() for c in l.strip().strip("|").split("|")]
    if nccl and len(cols) >= 6 and re.match(r"\d+ (KiB|MiB)$", cols[0]):
        paired.append((float(cols[5]), cols[0], cols[1]))
if paired:
    worst = max(paired)
    lines += ["", "Goal: guard + raw over raw (paired ratio) <= 1.02 from 4 KiB up; worst: %.3f (%s %s): %s." %
              (worst[0], worst[1], worst[2], "met" if worst[0] <= 1.02 else "NOT met")]
lines += ["", "## Problems", ""]
probs = [l for l in read(E["GC_FAILURES"]).splitlines() if l.strip()]
lines += ["- " + p for p in probs] or ["- none"]
lines += ["- note: " + n for n in read(E["GC_NOTES"]).splitlines() if n.strip()]
lines += ["", "Logs beside this file: configure.log, build.log, cuda-tests.log, ctest.log, bench.log."]
open(E["GC_REPORT"], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
log "report: $report"
[[ $status == PASS ]]
