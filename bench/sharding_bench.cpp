// meshguard_sharding_bench: what sharding propagation costs on top of the
// local op, once its decision is cached. One process, a 1-rank mesh (so no
// communication: the kernel unwraps, looks the decision up, runs the local
// op and wraps), interleaved with the same op on the plain local tensors.
// Prints median ns per call and the overhead in us; --quick: fewer
// iterations; --only TEXT: only the rows whose name contains TEXT (to
// profile one op with perf).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <meshguard/meshguard.h>

#include "BenchStats.h"

using namespace meshguard;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

DeviceMesh solo_mesh() {
  MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  opts.gloo_hostname = "127.0.0.1";
  return init_device_mesh("cpu", {1}, opts);
}

// Median over 7 runs of the mean ns per call, the two interleaved run by run.
std::pair<double, double> ns_per_call(
    const std::function<void()>& dtensor,
    const std::function<void()>& plain,
    int iters) {
  for (int i = 0; i < iters / 10 + 1; ++i) {
    dtensor();
    plain();
  }
  std::vector<double> d, p;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) {
      plain();
    }
    p.push_back(
        std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
        iters);
    t0 = Clock::now();
    for (int i = 0; i < iters; ++i) {
      dtensor();
    }
    d.push_back(
        std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
        iters);
  }
  return {median(d), median(p)};
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  const int iters = quick ? 2000 : 20000;
  at::set_num_threads(1);
  auto mesh = solo_mesh();
  const Placements s0{Shard{0}}, r{Replicate{}};
  at::Tensor x = at::randn({16, 16}), y = at::randn({16, 16}),
             w = at::randn({16, 16});
  at::Tensor xs = distribute_tensor(x, mesh, s0),
             ys = distribute_tensor(y, mesh, s0);
  at::Tensor wr = distribute_tensor(w, mesh, r),
             xr = distribute_tensor(x, mesh, r);
  at::Tensor idx = at::arange(0, 16, 2),
             idx_r = distribute_tensor(idx, mesh, r);
  struct Row {
    const char* op;
    std::function<void()> dtensor, plain;
  };
  std::vector<Row> rows = {
      {"add S0+S0", [&] { (void)(xs + ys); }, [&] { (void)(x + y); }},
      {"mul S0*scalar", [&] { (void)(xs * 2.0); }, [&] { (void)(x * 2.0); }},
      {"mm S0 x R", [&] { (void)at::mm(xs, wr); }, [&] { (void)at::mm(x, w); }},
      {"sum(1) of S0", [&] { (void)xs.sum(1); }, [&] { (void)x.sum(1); }},
      {"t() of S0", [&] { (void)xs.t(); }, [&] { (void)x.t(); }},
      {"view of S0",
       [&] { (void)xs.view({16, 4, 4}); },
       [&] { (void)x.view({16, 4, 4}); }},
      {"slice(1, 2, 10) of S0",
       [&] { (void)xs.slice(1, 2, 10); },
       [&] { (void)x.slice(1, 2, 10); }},
      {"select(1, 3) of S0",
       [&] { (void)xs.select(1, 3); },
       [&] { (void)x.select(1, 3); }},
      {"split(4, 1) of S0",
       [&] { (void)xs.split(4, 1); },
       [&] { (void)x.split(4, 1); }},
      {"cat({S0, S0}, 1)",
       [&] { (void)at::cat({xs, ys}, 1); },
       [&] { (void)at::cat({x, y}, 1); }},
      {"index_select(S0, 1, R)",
       [&] { (void)at::index_select(xs, 1, idx_r); },
       [&] { (void)at::index_select(x, 1, idx); }},
      {"max(1) of S0", [&] { (void)xs.max(1); }, [&] { (void)x.max(1); }},
      {"prod(1) of S0", [&] { (void)xs.prod(1); }, [&] { (void)x.prod(1); }},
      {"add R+R (no rule: Replicate path)",
       [&] { (void)(xr + wr); },
       [&] { (void)(x + w); }},
  };
  std::printf(
      "## cached sharding propagation on a 1-rank mesh, [16, 16] float, 1 thread, median ns per call\n\n");
  std::printf(
      "| op | DTensor | plain local op | overhead (us) | ratio |\n|---|---|---|---|---|\n");
  for (const auto& row : rows) {
    if (!only.empty() && std::string(row.op).find(only) == std::string::npos) {
      continue;
    }
    auto [d, p] = ns_per_call(row.dtensor, row.plain, iters);
    std::printf(
        "| %s | %.0f | %.0f | %.2f | %.2f |\n",
        row.op,
        d,
        p,
        (d - p) / 1000.0,
        d / p);
  }
  return 0;
}
