#!/usr/bin/env bash
# Installs, with apt, exactly what meshguard needs to build and test on Debian 12.
#   scripts/bootstrap.sh [--torch=pip|debian]
# --torch=pip (the default) installs no libtorch: the PyTorch 2.13 wheel comes
# from pip (scripts/torch-venv.sh); --torch=debian adds Debian's libtorch 1.13.
# Idempotent and quiet: packages already installed are not touched, and apt runs
# only when something is missing. Fails loudly naming the package it could not get.
set -euo pipefail

# What each package is for:
#   LLVM/Clang 19: the analysis, the clang-tidy module and the tools link them;
#     clang-tidy-19 hosts the -load plugin; llvm-19-tools gives lit and FileCheck;
#     clang-format-19 keeps the analysis and tidy sources in LLVM style (make lint).
#   libcadical-dev: the CDCL SAT solver behind the analysis's queries.
#   gRPC/protobuf/absl: Debian's clangd archives reference them at link time.
#   python3-venv: the venv that holds the PyTorch 2.13 wheel (the default libtorch).
#   libgloo-dev: Gloo's headers. The PyTorch wheel ships c10d's headers but not
#     Gloo's, which its ProcessGroupGloo.hpp includes: needed with either libtorch.
#   libtorch-dev: Debian's libtorch 1.13.1 with c10d and Gloo (--torch=debian).
#   googletest/benchmark: runtime tests and benchmarks.
#   python3-yaml: reads clang-tidy's exported fixes (meshguard-run, meshguard-sarif, the demo's report).
#   gnuplot-nox: the demo's loss plot (SVG).
#   neovim: a real LSP client (0.7, no plugins) drives meshguard-clangd headless
#     in make test (test/tools/nvim-lsp-session.test), as a user's editor does.
#   nodejs/npm: Microsoft's SARIF Multitool (npm, pinned) validates meshguard's
#     SARIF in make test's wheel step (test/wheel/run.py).
PACKAGES=(
  cmake ninja-build ccache python3 python3-yaml python3-venv git g++ lld-19
  llvm-19-dev libclang-19-dev clang-19 clang-tidy-19 clang-format-19 clangd-19 llvm-19-tools
  libcadical-dev libgrpc++-dev libprotobuf-dev libabsl-dev libgloo-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  gnuplot-nox neovim
)
# Debian's nodejs and npm, unless an npm is already there (a NodeSource nodejs
# carries its own npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

torch=pip
for arg in "$@"; do
  case $arg in
    --torch=pip | --torch=debian) torch=${arg#--torch=} ;;
    *) echo "bootstrap: unknown argument '$arg' (use --torch=pip or --torch=debian)" >&2; exit 2 ;;
  esac
done
if [ "$torch" != pip ]; then
  PACKAGES+=(libtorch-dev)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/meshguard-apt.XXXXXX.log)

# Package lists may be missing on a fresh machine, or too old to know a package.
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 ||
   ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
  $SUDO apt-get update -q >"$log" 2>&1 || { echo "bootstrap: apt-get update failed (log: $log)" >&2; exit 1; }
fi

if ! $SUDO apt-get install -y -q "${missing[@]}" >>"$log" 2>&1; then
  for pkg in "${missing[@]}"; do
    if ! apt-cache show "$pkg" >/dev/null 2>&1; then
      echo "bootstrap: package '$pkg' cannot be installed: apt does not know it" >&2
    fi
  done
  echo "bootstrap: apt-get install failed for: ${missing[*]} (log: $log)" >&2
  exit 1
fi
echo "bootstrap: done" >&2
