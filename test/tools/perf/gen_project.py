#!/usr/bin/env python3
"""Generate a directory of N translation units and a compile_commands.json,
for meshguard-tidy scaling runs and the run-clang-tidy test.

    gen_project.py OUT_DIR N --stubs DIR

Every file has one finding (a plain-tensor broadcast_), one clean DTensor
broadcast_ and some filler functions without collectives, so the per-file
work is the same at every N.
"""
import argparse
import json
import os

TEMPLATE = """#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace unit{i} {{
void plainBroadcast() {{
  at::Tensor T = torch::randn({{4, 4}});
  meshguard::dist::broadcast_({{T}}, /*src=*/0);
}}

void dtensorBroadcast(const meshguard::DeviceMesh &Mesh) {{
  at::Tensor D = meshguard::distribute_tensor(torch::randn({{4, 4}}), Mesh,
                                              {{meshguard::Replicate{{}}}});
  meshguard::dist::broadcast_({{D}}, /*src=*/0);
}}
{filler}}} // namespace unit{i}
"""
FILLER = """
int helper{j}(int X) {{
  int Sum = 0;
  for (int K = 0; K < X; ++K)
    Sum += K * {j};
  return Sum;
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--stubs", required=True)
    args = ap.parse_args()
    src = os.path.join(os.path.abspath(args.out), "src")
    os.makedirs(src, exist_ok=True)
    db = []
    for i in range(args.n):
        path = os.path.join(src, "unit%d.cpp" % i)
        with open(path, "w") as f:
            f.write(TEMPLATE.format(i=i, filler="".join(FILLER.format(j=j) for j in range(5))))
        db.append({"directory": src, "file": path,
                   "arguments": ["c++", "-std=c++17", "-I", os.path.abspath(args.stubs),
                                 "-c", path, "-o", path + ".o"]})
    with open(os.path.join(os.path.abspath(args.out), "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=1)


if __name__ == "__main__":
    main()
