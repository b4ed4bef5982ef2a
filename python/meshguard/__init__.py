"""meshguard: static checks for PyTorch DTensor programs in C++ (the dtensor-*
clang-tidy checks, meshguard-tidy, meshguard-clangd, meshguard-run,
meshguard-sarif) and the C++ DTensor runtime on libtorch.

    import meshguard
    meshguard.cmake_prefix_path    # for find_package(meshguard), as torch.utils.cmake_prefix_path
    meshguard.plugin_path()        # the clang-tidy plugin: clang-tidy -load <it>
    python -m meshguard --plugin   # the same, printed

The runtime library links the libtorch of one PyTorch release (the wheel
depends on exactly that torch); importing meshguard checks that the torch
installed beside it is that release, so that a mismatch is an error here and
not an unresolved symbol at run time.
"""

import os as _os

from ._build_info import LLVM_VERSION, TORCH_VERSION, VERSION

__version__ = VERSION
__all__ = ["__version__", "TORCH_VERSION", "LLVM_VERSION", "cmake_prefix_path",
           "plugin_path", "package_dir"]

package_dir = _os.path.dirname(_os.path.abspath(__file__))
# <prefix>/meshguard/meshguardConfig.cmake: find_package(meshguard) finds it
# with this on CMAKE_PREFIX_PATH (torch.utils.cmake_prefix_path is the same
# kind of directory for Torch).
cmake_prefix_path = _os.path.join(package_dir, "lib", "cmake")


def plugin_path():
    """The clang-tidy plugin to pass to `clang-tidy -load` (clang-tidy 19)."""
    return _os.path.join(package_dir, "lib", "MeshguardTidyPlugin.so")


def _check_torch():
    from importlib import metadata, util

    fix = "pip install torch==%s" % TORCH_VERSION
    try:
        have = metadata.version("torch")
    except metadata.PackageNotFoundError:
        raise ImportError(
            "meshguard %s needs PyTorch %s (its runtime library links that libtorch), and this "
            "Python environment has no torch package: %s" % (VERSION, TORCH_VERSION, fix)) from None
    if have.split("+")[0] != TORCH_VERSION:
        raise ImportError(
            "meshguard %s was built for PyTorch %s, but this Python environment has torch %s "
            "(libtorch has no stable C++ ABI across releases: the runtime would fail to load or "
            "misbehave): %s, or install the meshguard release built for torch %s"
            % (VERSION, TORCH_VERSION, have, fix, have))
    spec = util.find_spec("torch")
    lib = _os.path.join(_os.path.dirname(spec.origin or ""), "lib", "libtorch.so") if spec else ""
    if not _os.path.isfile(lib):
        raise ImportError("meshguard %s: torch %s is installed, but its libtorch.so is missing "
                          "(looked for %s): reinstall it, %s" % (VERSION, have, lib, fix))


if not _os.environ.get("MESHGUARD_SKIP_TORCH_CHECK"):
    _check_torch()
