# lit configuration for meshguard's check and tool tests.
import os
import shlex
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "meshguard"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".cpp", ".test"]
# Inputs holds headers and fixtures; runtime, oracle and conformance hold programs run by ctest;
# wheel is its own step of make test (test/wheel/run.py).
config.excludes = ["Inputs", "runtime", "oracle", "conformance", "lsp", "wheel", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.meshguard_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
config.environment["PATH"] = os.pathsep.join(
    [config.meshguard_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

src = config.meshguard_src_root
py = shlex.quote(config.python_executable)
tidy = os.path.join(config.meshguard_bin_dir, "meshguard-tidy")
stubs = os.path.join(src, "test", "Inputs", "stubs")

config.substitutions += [
    ("%check_meshguard", "%s %s --tidy %s" % (
        py, os.path.join(src, "test", "check_meshguard.py"), tidy)),
    ("%meshguard_tidy", tidy),
    ("%meshguard_clangd", os.path.join(config.meshguard_bin_dir, "meshguard-clangd")),
    ("%meshguard_plugin", os.path.join(config.meshguard_lib_dir, "MeshguardTidyPlugin.so")),
    ("%clang_tidy", config.host_clang_tidy),
    ("%clangd", config.host_clangd),
    ("%lsp_client", "%s %s" % (py, os.path.join(src, "test", "lsp", "lsp_client.py"))),
    ("%python", py),
    ("%cxx", config.cxx_compiler),
    ("%stubs", stubs),
    ("%runtime_include", os.path.join(src, "include")),
    ("%torch_cflags", config.torch_cflags),
    ("%src_root", src),
    ("%obj_root", config.meshguard_obj_root),
]

if config.have_clang_tools:
    config.available_features.add("clang-tools")
if config.have_runtime:
    config.available_features.add("runtime")
if config.host_clang_tidy:
    config.available_features.add("host-clang-tidy")


def torch_major_version(cxx, cflags):
    """TORCH_VERSION_MAJOR of the <torch/version.h> that %cxx finds with
    %torch_cflags (2.x's forwards to torch/headeronly/version.h), or None."""
    if not cflags.strip():
        return None
    try:
        proc = subprocess.run(
            [cxx, "-E", "-dM", "-x", "c++", "-"] + shlex.split(cflags),
            input="#include <torch/version.h>\n", stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts[:2] == ["#define", "TORCH_VERSION_MAJOR"] and len(parts) > 2:
            try:
                return int(parts[2])
            except ValueError:
                return None
    return None


# torch2: %torch_cflags reach libtorch 2.x headers (c10d::Backend behind a
# ProcessGroup, no c10d/Ops.hpp); otherwise they are 1.13's, or none.
if config.have_runtime and (torch_major_version(config.cxx_compiler, config.torch_cflags) or 0) >= 2:
    config.available_features.add("torch2")
