#!/usr/bin/env bash
# Makes (once) the Python venv that holds meshguard's default libtorch, the
# PyTorch 2.13.0 CPU wheel (and NumPy, which torch.distributed.tensor.debug
# imports: the conformance harness counts collectives with its CommDebugMode;
# and safetensors, which DCP's HuggingFaceStorageReader/Writer import: the
# safetensors checkpoint test), and prints its Torch_DIR on stdout.
#   scripts/torch-venv.sh [VENV]     (default: .venv at the checkout's root)
# Idempotent: an existing venv with torch 2.13.0 is reused as it is. The version
# is pinned exactly: a range would let pip download a newer (CUDA) build of
# several GB. The same venv runs PyTorch's own DTensor, the oracle of the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/.venv}
want=${MESHGUARD_TORCH_VERSION:-2.13.0}
numpy=2.4.6 # on the machines' local package index
safetensors=0.8.0
python=${PYTHON:-python3}

installed() {
  "$venv/bin/python" - "$want" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if version("torch").split("+")[0] == sys.argv[1] and version("numpy") and version("safetensors") else 1)
PY
}

if ! installed; then
  echo "torch-venv: installing torch==$want, numpy==$numpy and safetensors==$safetensors into $venv (about 1 GB, from the local wheel; 30-60 s)" >&2
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv" >&2
  log=$(mktemp /tmp/meshguard-pip.XXXXXX.log)
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q "torch==$want" "numpy==$numpy" "safetensors==$safetensors" >"$log" 2>&1; then
    echo "torch-venv: 'pip install torch==$want numpy==$numpy safetensors==$safetensors' failed (log: $log)" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  installed || { echo "torch-venv: torch $want is still not importable from $venv (log: $log)" >&2; exit 1; }
fi
# torch.utils.cmake_prefix_path without importing torch (3 s, and a NumPy warning).
dir=$("$venv/bin/python" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("torch").origin))')
echo "$dir/share/cmake/Torch"
