#!/usr/bin/env python3
"""Run every file of bench/placements-corpus-reports on the real runtime.

    bench/placements_runtime_verify.py [--build BUILD] [--work DIR]
                                       [--cases bad/01,good/01,...]
                                       [--table FILE]

Each bad/NN_*.cpp and good/NN_*.cpp of the corpus is compiled against the
real headers and the runtime of BUILD (build/lib/libmeshguard_runtime.a,
include/, libtorch from .venv: the flags of examples/train.cpp in
compile_commands.json), all of them in ONE generated translation unit, each
file inside its own namespace, with a driver `main(case)` that runs the
file's functions on Gloo ranks through scripts/meshguard-launch. The driver
prints, on every rank, the value the program computes next to the value one
process computes on the whole data (plain libtorch, no DTensor):

    RESULT got=<value> ref=<value> diff=<max abs difference>

A case is `right` when every rank printed a RESULT within 1e-4 (relative)
of its reference and the job exited 0, `wrong` when some rank's value
differs, `error` when the job died (the runtime's error is shown). A bad
file must be what its case declares: `wrong` (a Partial read locally, a
false replica) or `error` (an op without a rule, mixed meshes); a good file
`right`. With --table, the Markdown table of the
observed results replaces the text between the markers
`<!-- verify:begin -->` and `<!-- verify:end -->` of FILE.

Exit status 1 when a file is not as expected.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
CORPUS = os.path.join(HERE, "placements-corpus-reports")

# name -> (ranks, what the bad file must do: "wrong" or "error", driver
# body). The body sees `rank`, `BAD` (true for the bad file) and the file's
# namespace as `NS`; it makes its own mesh and calls report(got, ref)
# (scalars) or report_t(got, ref) (tensors).
CASES = {
    "01": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  at::Tensor local = torch::ones({4, 8});
  report(NS::rowwise_norm(mesh, local),
         torch::ones({8, 8}).pow(2).sum().sqrt().item<double>());
"""),
    "02": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  at::Tensor full = torch::arange(16, torch::kFloat).reshape({8, 2});
  report(NS::sharded_total(mesh, full), full.sum().item<double>());
"""),
    "03": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear fc(4, 4);
  torch::manual_seed(0);
  torch::nn::Linear ref(4, 4);
  NS::shard_model(fc, mesh);
  at::Tensor X = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10;
  at::Tensor Y = torch::ones({8, 4});
  at::Tensor x = distribute_tensor(X, mesh, {Shard{0}});
  at::Tensor y = distribute_tensor(Y, mesh, {Shard{0}});
  (fully_sharded_forward(fc, x) - y).pow(2).mean().backward();
  double got = NS::grad_norm_for_logging(fc);
  (ref->forward(X) - Y).pow(2).mean().backward();
  report(got, grad_norm(ref->parameters()));
"""),
    "04": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear fc(4, 4);
  torch::manual_seed(0);
  torch::nn::Linear ref(4, 4);
  NS::shard_model(fc, mesh);
  at::Tensor X = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10;
  at::Tensor Y = torch::ones({8, 4});
  at::Tensor x = distribute_tensor(X, mesh, {Shard{0}});
  at::Tensor y = distribute_tensor(Y, mesh, {Shard{0}});
  (fully_sharded_forward(fc, x) - y).pow(2).mean().backward();
  double got = NS::total_grad_norm(fc, mesh);
  (ref->forward(X) - Y).pow(2).mean().backward();
  report(got, grad_norm(ref->parameters()));
"""),
    "05": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear fc(4, 8);
  torch::manual_seed(0);
  torch::nn::Linear ref(4, 8);
  NS::parallelize(fc, mesh);
  at::Tensor X = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10;
  parallel_forward(fc, X).pow(2).sum().backward();
  double got = NS::clip_norm(fc);
  ref->forward(X).pow(2).sum().backward();
  report(got, grad_norm(ref->parameters()));
"""),
    "06": (4, "error", r"""
  at::Tensor Wd = (torch::arange(16, torch::kFloat).reshape({4, 4}) / 10)
                      .requires_grad_(true);
  at::Tensor We = (torch::arange(16, torch::kFloat).reshape({4, 4}) / 20 + 1)
                      .requires_grad_(true);
  auto placed = NS::place_weights(Wd, We);
  placed.first.pow(2).sum().backward();
  placed.second.pow(2).sum().backward();
  double got = NS::clip_all(placed.first, placed.second, 1.0);
  report(got, 2 * std::sqrt(Wd.detach().pow(2).sum().item<double>() +
                            We.detach().pow(2).sum().item<double>()));
"""),
    "07": (4, "error", r"""
  at::Tensor D = torch::arange(16, torch::kFloat).reshape({4, 4}) / 10;
  at::Tensor E = torch::arange(16, torch::kFloat).reshape({4, 4}) / 20 + 1;
  report(NS::total_norm(D, E),
         std::sqrt(D.pow(2).sum().item<double>() + E.pow(2).sum().item<double>()));
"""),
    "08": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear up(4, 8), down(8, 4);
  torch::manual_seed(0);
  torch::nn::Linear ref_up(4, 8), ref_down(8, 4);
  NS::parallelize_mlp(up, down, mesh);
  std::vector<at::Tensor> batches = {
      torch::arange(8, torch::kFloat).reshape({2, 4}) / 10,
      (torch::arange(8, torch::kFloat).reshape({2, 4}) + 5) / 7};
  at::Tensor got = NS::mlp_step(up, down, mesh, batches);
  // The bad file means each rank's own batch; the fixed one (the thread's
  // fix: the TP group's input replicated) computes rank 0's batch.
  int64_t src = BAD ? rank : 0;
  report_t(got, ref_down->forward(ref_up->forward(batches[src])));
"""),
    "09": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  at::Tensor w = NS::init_weight(mesh, 4, 4);
  torch::manual_seed(0);
  at::Tensor want = torch::randn({4, 4});
  report_t(to_local(w), want);
"""),
    "10": (2, "error", r"""
  auto mesh = init_device_mesh("cpu", {2});
  at::Tensor act = (torch::arange(32, torch::kFloat) / 8 - 2).reshape({8, 4});
  report_t(NS::activation_histogram(mesh, act), act.histc(16, -2, 2));
"""),
    "11": (4, "error", r"""
  torch::manual_seed(0);
  torch::nn::Linear vit(4, 4), lm(4, 8);
  torch::manual_seed(0);
  torch::nn::Linear ref_vit(4, 4), ref_lm(4, 8);
  NS::shard_vit_and_lm(vit, lm);
  for (const at::Tensor &p : vit->parameters())
    p.pow(2).sum().backward();
  for (const at::Tensor &p : lm->parameters())
    p.pow(2).sum().backward();
  double got = NS::clip(vit, lm, 1.0);
  std::vector<at::Tensor> ref = ref_vit->parameters();
  for (const at::Tensor &p : ref_lm->parameters())
    ref.push_back(p);
  for (const at::Tensor &p : ref)
    p.pow(2).sum().backward();
  report(got, grad_norm(ref));
"""),
    "12": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear fc(4, 4);
  torch::manual_seed(0);
  torch::nn::Linear ref(4, 4);
  NS::shard_model(fc, mesh);
  at::Tensor X = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10;
  at::Tensor Y = torch::ones({8, 4});
  at::Tensor x = distribute_tensor(X, mesh, {Shard{0}});
  at::Tensor y = distribute_tensor(Y, mesh, {Shard{0}});
  (fully_sharded_forward(fc, x) - y).pow(2).mean().backward();
  double got = NS::clip_grad_norm(fc, 1.0);
  (ref->forward(X) - Y).pow(2).mean().backward();
  report(got, grad_norm(ref->parameters()));
"""),
    "13": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  torch::manual_seed(0);
  torch::nn::Linear fc(4, 4);
  torch::manual_seed(0);
  torch::nn::Linear ref(4, 4);
  NS::shard_model(fc, mesh);
  at::Tensor X = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10;
  at::Tensor Y = torch::ones({8, 4});
  double got = NS::train_step_loss(fc, mesh, X, Y);
  report(got, at::mse_loss(ref->forward(X), Y).item<double>());
"""),
    "14": (4, "error", r"""
  at::Tensor Wd = (torch::arange(16, torch::kFloat).reshape({4, 4}) / 10)
                      .requires_grad_(true);
  at::Tensor We = (torch::arange(16, torch::kFloat).reshape({4, 4}) / 20 + 1)
                      .requires_grad_(true);
  auto placed = NS::place_weights(Wd, We);
  placed.first.pow(2).sum().backward();
  placed.second.pow(2).sum().backward();
  report(NS::dense_and_expert_norm(placed.first, placed.second),
         2 * std::sqrt(Wd.detach().pow(2).sum().item<double>() +
                       We.detach().pow(2).sum().item<double>()));
"""),
    "15": (2, "wrong", r"""
  auto mesh = init_device_mesh("cpu", {2});
  // The checkpoint is the same file on every rank; rank 0 alone copies it.
  at::Tensor checkpoint = torch::arange(16, torch::kFloat).reshape({4, 4}) / 16;
  at::Tensor w = NS::load_weight(mesh, checkpoint);
  report_t(to_local(w), checkpoint);
"""),
}

PRELUDE = r"""
// Generated by bench/placements_runtime_verify.py: every file of
// bench/placements-corpus-reports in its own namespace, one driver.
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <meshguard/runtime/FullyShard.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>
"""

DRIVER_HEAD = r"""
using namespace meshguard;
static int rank = 0;

static void report(double got, double ref) {
  std::printf("RESULT got=%.6g ref=%.6g diff=%.6g\n", got, ref,
              std::fabs(got - ref));
  std::fflush(stdout);
}

static void report_t(const at::Tensor &got, const at::Tensor &ref) {
  at::Tensor g = got.detach().to(torch::kDouble);
  at::Tensor r = ref.detach().to(torch::kDouble);
  double diff = g.sizes() == r.sizes() ? (g - r).abs().max().item<double>()
                                       : INFINITY;
  std::printf("RESULT got=%.6g ref=%.6g diff=%.6g\n", g.sum().item<double>(),
              r.sum().item<double>(), diff);
  std::fflush(stdout);
}

static double grad_norm(const std::vector<at::Tensor> &params) {
  double sq = 0;
  for (const at::Tensor &p : params)
    sq += p.grad().pow(2).sum().item<double>();
  return std::sqrt(sq);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s bad/NN|good/NN\n", argv[0]);
    return 2;
  }
  const char *env = std::getenv("RANK");
  rank = env ? std::atoi(env) : 0;
  std::map<std::string, std::function<void()>> cases;
"""

DRIVER_TAIL = r"""
  auto it = cases.find(argv[1]);
  if (it == cases.end()) {
    std::fprintf(stderr, "no case %s\n", argv[1]);
    return 2;
  }
  try {
    it->second();
  } catch (const std::exception &e) {
    std::string what = e.what();
    std::printf("ERROR %s\n", what.substr(0, what.find('\n')).c_str());
    std::fflush(stdout);
    return 3;
  }
  return 0;
}
"""


def corpus_files():
    files = {}
    for kind in ("bad", "good"):
        for name in sorted(os.listdir(os.path.join(CORPUS, kind))):
            if name.endswith(".cpp"):
                files["%s/%s" % (kind, name[:2])] = os.path.join(CORPUS, kind, name)
    return files


def generate(files):
    out = [PRELUDE]
    for case, path in sorted(files.items()):
        out.append("namespace %s {\n#include \"%s\"\n} // namespace %s\n" %
                   (case.replace("/", "_"), path, case.replace("/", "_")))
    out.append(DRIVER_HEAD)
    for case in sorted(files):
        kind, num = case.split("/")
        body = CASES[num][2]
        out.append("  cases[\"%s\"] = [] {\n    namespace NS = %s;\n"
                   "    constexpr bool BAD = %s;\n    (void)BAD;%s  };\n" %
                   (case, case.replace("/", "_"),
                    "true" if kind == "bad" else "false", body))
    out.append(DRIVER_TAIL)
    return "".join(out)


def flags(build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        for entry in json.load(f):
            if entry["file"].endswith("examples/train.cpp"):
                args = shlex.split(entry["command"]) if "command" in entry \
                    else entry["arguments"]
                break
        else:
            sys.exit("no examples/train.cpp in %s/compile_commands.json" % build)
    keep, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = True
            continue
        keep.append(a)
    torch_inc = next(a for a in keep if a.endswith("torch/include")
                     or a.endswith("torch/include/"))
    return args[0], keep, os.path.join(os.path.dirname(torch_inc.rstrip("/")), "lib")


def build_program(build, work, source):
    cxx, cflags, torch_lib = flags(build)
    src = os.path.join(work, "verify.cpp")
    obj = os.path.join(work, "verify.o")
    prog = os.path.join(work, "verify")
    old = open(src).read() if os.path.exists(src) else None
    if old != source or not os.path.exists(prog):
        with open(src, "w") as f:
            f.write(source)
        cmd = ["nice", "-n", "10", cxx] + cflags + ["-o", obj, "-c", src]
        print("compiling %s (one TU, all cases)" % src, flush=True)
        subprocess.run(cmd, check=True, cwd=build)
        link = ["nice", "-n", "10", cxx, "-O3", obj, "-o", prog,
                "-Wl,-rpath," + torch_lib,
                os.path.join(build, "lib", "libmeshguard_runtime.a"),
                os.path.join(torch_lib, "libtorch.so"),
                "-Wl,--no-as-needed," + os.path.join(torch_lib, "libtorch_cpu.so"),
                "-Wl,--as-needed", os.path.join(torch_lib, "libc10.so")]
        subprocess.run(link, check=True, cwd=build)
    return prog


def run_case(prog, case, nproc):
    cmd = [os.path.join(ROOT, "scripts", "meshguard-launch"), "--nproc",
           str(nproc), "--timeout", "120", "--", prog, case]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    results = {}
    error = None
    for line in proc.stdout.splitlines():
        m = re.match(r"\[rank (\d+)\] RESULT got=(\S+) ref=(\S+) diff=(\S+)", line)
        if m:
            results[int(m.group(1))] = (float(m.group(2)), float(m.group(3)),
                                        float(m.group(4)))
        m = re.match(r"\[rank (\d+)\] ERROR (.*)", line)
        if m and error is None:
            error = m.group(2).strip()
    if proc.returncode != 0 or error:
        verdict = "error"
    elif len(results) == nproc and all(
            d <= 1e-4 * max(1.0, abs(r)) for _, r, d in results.values()):
        verdict = "right"
    else:
        verdict = "wrong"
    return verdict, results, error, proc


def fmt(v):
    return "%.4g" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default="/tmp/placements-reports-verify")
    ap.add_argument("--cases", default="")
    ap.add_argument("--table", default="")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    files = corpus_files()
    missing = [c for c in files if c.split("/")[1] not in CASES]
    if missing:
        sys.exit("no driver for %s" % ", ".join(missing))
    os.makedirs(args.work, exist_ok=True)
    prog = build_program(os.path.abspath(args.build), args.work, generate(files))
    wanted = args.cases.split(",") if args.cases else sorted(files)
    rows, failed = [], 0
    for case in wanted:
        kind, num = case.split("/")
        nproc, bad_kind, _ = CASES[num]
        verdict, results, error, proc = run_case(prog, case, nproc)
        ok = verdict == bad_kind if kind == "bad" else verdict == "right"
        failed += not ok
        values = ", ".join("r%d %s (ref %s)" % (r, fmt(g), fmt(ref))
                           for r, (g, ref, _) in sorted(results.items()))
        shown = error if verdict == "error" else values
        print("%-8s %-6s %s %s" % (case, verdict, "ok " if ok else "BAD", shown),
              flush=True)
        if args.verbose or not ok:
            print(proc.stdout[-3000:])
        rows.append("| `%s` | %d | %s | %s | %s |" % (
            "%s/%s" % (kind, os.path.basename(files[case])), nproc,
            verdict, (error or "").replace("|", "\\|")[:160] if verdict == "error"
            else values, "yes" if ok else "**no**"))
    if args.table:
        table = ("| file | ranks | observed | values (rank: program, reference) or the error | as expected |\n"
                 "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
        text = open(args.table).read()
        text = re.sub(r"(<!-- verify:begin -->\n).*?(<!-- verify:end -->)",
                      lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
        with open(args.table, "w") as f:
            f.write(text)
    print("%d of %d cases as expected" % (len(wanted) - failed, len(wanted)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
