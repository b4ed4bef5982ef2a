"""Packages a finished meshguard CMake build as the meshguard wheel.

Nothing is compiled here: build_py runs the build's install rules
(`cmake --install BUILD --component runtime|tools --strip`) into a staging
prefix and copies what they installed under the meshguard package:

    meshguard/bin/      meshguard-tidy, meshguard-clangd (static LLVM/Clang),
                        meshguard-run, meshguard-sarif, meshguard-launch
    meshguard/lib/      libmeshguard_runtime.so (RPATH $ORIGIN/../../torch/lib),
                        the clang-tidy plugin, cmake/meshguard/ (the package),
                        clang/<major>/include (clang's builtin headers, copied:
                        the tools parse with them on a machine without LLVM)
    meshguard/include/  the runtime's headers
    meshguard/docs/checks/  the checks' pages (meshguard-sarif's rule help)

MESHGUARD_BUILD names the build (default: build). The version is the CMake
project's, the torch pin the libtorch the runtime was built against.
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("MESHGUARD_BUILD", os.path.join(ROOT, "build")))
WORK = os.path.join(BUILD, "wheel")
os.makedirs(WORK, exist_ok=True)


def cache_value(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    raise SystemExit("setup.py: %s is not in %s/CMakeCache.txt" % (name, BUILD))


def build_info():
    """(meshguard version, torch version) of the build."""
    version = cache_value("CMAKE_PROJECT_VERSION")
    config = os.path.join(BUILD, "meshguardConfig.cmake")
    if not os.path.exists(config):
        raise SystemExit("setup.py: %s has no runtime package (meshguardConfig.cmake): "
                         "build it with the runtime (make build)" % BUILD)
    with open(config) as f:
        torch = re.search(r'set\(MESHGUARD_TORCH_VERSION "([^"]+)"\)', f.read()).group(1)
    return version, torch


VERSION, TORCH_VERSION = build_info()


class StageBuild(build_py):
    """build_py, plus the CMake build's installed files and _build_info.py."""

    def run(self):
        super().run()
        stage = os.path.join(WORK, "stage")
        shutil.rmtree(stage, ignore_errors=True)
        for component in ("runtime", "tools"):
            subprocess.check_call(["cmake", "--install", BUILD, "--prefix", stage,
                                   "--component", component, "--strip"],
                                  stdout=subprocess.DEVNULL)
        # clang's builtin headers: the install links lib/clang/<major> to
        # LLVM's resource directory; the wheel carries a copy of its include/.
        clang = os.path.join(stage, "lib", "clang")
        for major in os.listdir(clang):
            link = os.path.join(clang, major)
            target = os.path.realpath(link)
            os.remove(link)
            shutil.copytree(os.path.join(target, "include"), os.path.join(link, "include"))
        docs = os.path.join(stage, "docs", "checks")
        os.makedirs(docs)
        for name in sorted(os.listdir(os.path.join(ROOT, "docs", "checks"))):
            if name.startswith("dtensor-") and name.endswith(".md"):
                shutil.copy(os.path.join(ROOT, "docs", "checks", name), docs)
        out = subprocess.run([os.path.join(stage, "bin", "meshguard-tidy"), "--version"],
                             check=True, capture_output=True, text=True).stdout
        llvm = re.search(r"built with LLVM (\S+)", out).group(1)
        package = os.path.join(self.build_lib, "meshguard")
        shutil.copytree(stage, package, dirs_exist_ok=True)
        with open(os.path.join(package, "_build_info.py"), "w") as f:
            f.write("# Written by setup.py from the CMake build the wheel was made from.\n")
            f.write("VERSION = %r\nTORCH_VERSION = %r\nLLVM_VERSION = %r\n"
                    % (VERSION, TORCH_VERSION, llvm))


class PlatformWheel(bdist_wheel):
    """Not pure (it holds ELF files), but no CPython extension either: any
    Python 3 on this platform (auditwheel repair gives the manylinux tag)."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    version=VERSION,
    install_requires=["torch==%s" % TORCH_VERSION, "PyYAML>=5.4"],
    distclass=BinaryDistribution,
    cmdclass={"build_py": StageBuild, "bdist_wheel": PlatformWheel},
    options={"build": {"build_base": os.path.join(WORK, "setuptools")},
             "egg_info": {"egg_base": WORK}},
)
