#!/usr/bin/env bash
# Installs what one build configuration needs and configures it with CMake.
#   scripts/configure.sh BUILD_DIR TORCH [CMAKE_ARGS...]
# TORCH: pip    - libtorch 2.13 from the PyTorch wheel in .venv (the default)
#        debian - Debian's libtorch-dev 1.13.1
# Both installs are idempotent; an existing configuration is reconfigured, so
# switching a build directory's TORCH works (a new directory is cleaner).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/configure.sh BUILD_DIR pip|debian [CMAKE_ARGS...]" >&2; exit 2; }
build=$1 torch=$2
shift 2

case $torch in
  pip)
    bash scripts/bootstrap.sh --torch=pip
    torch_dir=$(bash scripts/torch-venv.sh)
    ;;
  debian)
    bash scripts/bootstrap.sh --torch=debian
    torch_dir=$(dirname "$(dpkg -L libtorch-dev | grep -m1 '/TorchConfig.cmake$')")
    ;;
  *)
    echo "configure: TORCH must be 'pip' (libtorch 2.13, the default) or 'debian' (libtorch 1.13), not '$torch'" >&2
    exit 2
    ;;
esac

log=$(mktemp /tmp/meshguard-configure.XXXXXX.log)
if ! cmake -S . -B "$build" -G Ninja "-DTorch_DIR=$torch_dir" "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "configure: cmake failed for $build (TORCH=$torch; log: $log)" >&2
  exit 1
fi
grep -E '^-- meshguard: (libtorch|runtime|NCCL)' "$log" | sed "s|^-- |configure ($build): |" >&2
rm -f "$log"
