"""python -m meshguard [--plugin | --cmake-prefix-path | --version]"""

import argparse
import sys

import meshguard


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m meshguard", description=__doc__)
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--plugin", action="store_true",
                       help="print the path of the clang-tidy plugin (clang-tidy -load PATH)")
    group.add_argument("--cmake-prefix-path", action="store_true",
                       help="print the directory for CMAKE_PREFIX_PATH (find_package(meshguard))")
    group.add_argument("--version", action="store_true",
                       help="print meshguard's, LLVM's and libtorch's versions")
    args = ap.parse_args(argv)
    if args.plugin:
        print(meshguard.plugin_path())
    elif args.cmake_prefix_path:
        print(meshguard.cmake_prefix_path)
    else:
        print("meshguard %s (LLVM %s, libtorch %s)"
              % (meshguard.__version__, meshguard.LLVM_VERSION, meshguard.TORCH_VERSION))
    return 0


if __name__ == "__main__":
    sys.exit(main())
