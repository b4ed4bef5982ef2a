// Guard overhead benchmark.
//
//   scripts/meshguard-launch --nproc 2 -- build/bin/meshguard_bench [--quick]
//
// Part 1 (rank 0 prints): guarded::broadcast_/all_reduce_ against the raw
// c10d ProcessGroup call on the same tensors, 4 B to 64 MiB, interleaved in
// one run so both see the same machine state; ratio = guarded / raw median.
// Part 2 (single process, no communication): the guard's own cost per call
// (mesh discovery, require_mesh, the whole guarded path minus the
// collective) for 1 to 64 arguments.
// Part 3: the DTensor wrapper's memory beyond its local tensor.
//
//   scripts/meshguard-launch --nproc <GPUs> -- build/bin/meshguard_bench --cuda
//
// --cuda: part 1 on a CUDA mesh (NCCL), 4 KiB to 64 MiB, one rank per GPU.
// Every call is followed by a device synchronize, so a time is the whole
// collective. With one rank a mesh dim of size 1 needs no collective and
// guarded:: skips it; the "guard + raw" column (CollectiveGuard::
// call_collective around the very same raw call) measures the guard there.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <meshguard/meshguard.h>

#include "BenchStats.h"

using namespace meshguard;
using bench::human;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void raw_broadcast(const DeviceMesh& mesh, std::vector<at::Tensor>& t) {
  c10d::BroadcastOptions opts;
  opts.rootRank = 0;
  mesh.get_group(0)->broadcast(t, opts)->wait();
}

void raw_allreduce(const DeviceMesh& mesh, std::vector<at::Tensor>& t) {
  c10d::AllreduceOptions opts;
  mesh.get_group(0)->allreduce(t, opts)->wait();
}

void collectives(const DeviceMesh& mesh, bool quick) {
  const bool printer = mesh.get_rank() == 0;
  if (printer) {
    std::printf(
        "## guarded vs raw c10d (Gloo, %lld ranks, loopback), median us per call\n\n",
        static_cast<long long>(mesh.size()));
    std::printf(
        "| size | op | raw us | guarded(DTensor) us | ratio | paired ratio | guarded(plain, promoted) us | ratio | paired ratio |\n");
    std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  for (int64_t bytes = 4; bytes <= (64 << 20); bytes *= 4) {
    const int64_t numel = bytes / 4;
    int iters = bytes <= (64 << 10) ? 200 : bytes <= (4 << 20) ? 30 : 6;
    if (quick) {
      iters = std::max(3, iters / 10);
    }
    at::Tensor plain = at::ones({numel});
    at::Tensor dt = from_local(at::ones({numel}), mesh, {Replicate{}});
    for (const char* op : {"broadcast", "allreduce"}) {
      const bool bc = std::strcmp(op, "broadcast") == 0;
      std::vector<double> raw, guarded_dt, guarded_plain;
      std::vector<at::Tensor> raw_args{plain};
      for (int i = 0; i < iters + 2; ++i) {
        // Interleaved so drift hits all three alike; the first 2 warm up.
        auto t0 = Clock::now();
        bc ? raw_broadcast(mesh, raw_args) : raw_allreduce(mesh, raw_args);
        double r = seconds_since(t0);
        t0 = Clock::now();
        if (bc) {
          guarded::broadcast_({dt}, mesh, 0);
        } else {
          // Reduce a Replicate DTensor: c10d semantics (sum of replicas).
          guarded::all_reduce_({dt}, mesh, ReduceOp::SUM);
        }
        double g = seconds_since(t0);
        t0 = Clock::now();
        bc ? guarded::broadcast_({plain}, mesh, 0)
           : guarded::all_reduce_({plain}, mesh, ReduceOp::SUM);
        double p = seconds_since(t0);
        if (i >= 2) {
          raw.push_back(r * 1e6);
          guarded_dt.push_back(g * 1e6);
          guarded_plain.push_back(p * 1e6);
        }
      }
      if (!bc) {
        plain.fill_(1);
        get_dtensor_impl(dt)->local().fill_(1);
      }
      const double mr = median(raw), mg = median(guarded_dt),
                   mp = median(guarded_plain);
      // Paired ratios (each guarded call over the raw call just before it)
      // cancel the slow drift of a shared machine better than medians do.
      std::vector<double> pg, pp;
      for (size_t k = 0; k < raw.size(); ++k) {
        pg.push_back(guarded_dt[k] / raw[k]);
        pp.push_back(guarded_plain[k] / raw[k]);
      }
      const double ng = median(pg), np = median(pp);
      if (printer) {
        std::printf(
            "| %s | %s | %.1f | %.1f | %.3f | %.3f | %.1f | %.3f | %.3f |\n",
            human(bytes).c_str(),
            op,
            mr,
            mg,
            mg / mr,
            ng,
            mp,
            mp / mr,
            np);
        std::fflush(stdout);
      }
    }
  }
}

// The raw call on `args` (DTensors are unwrapped to their locals).
void raw_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& args,
    bool bc) {
  std::vector<at::Tensor> locals;
  locals.reserve(args.size());
  for (const auto& a : args) {
    auto* impl = get_dtensor_impl(a);
    locals.push_back(impl != nullptr ? impl->local() : a);
  }
  bc ? raw_broadcast(mesh, locals) : raw_allreduce(mesh, locals);
}

void cuda_collectives(const DeviceMesh& mesh, bool quick) {
  const bool printer = mesh.get_rank() == 0;
  const bool one_rank = mesh.size() == 1;
  const auto dev = mesh.device();
  if (printer) {
    std::printf(
        "## guarded vs raw c10d (NCCL, %lld rank(s), %s), median us per call incl. synchronize\n\n",
        static_cast<long long>(mesh.size()),
        dev.str().c_str());
    if (one_rank) {
      std::printf(
          "One rank: guarded:: skips the collective on a 1-rank mesh dim, so its column is the guard alone;\n"
          "'guard + raw' wraps the same raw NCCL call in CollectiveGuard::call_collective.\n\n");
    }
    std::printf(
        "| size | op | raw us | guard + raw (DTensor) us | ratio | paired ratio | guard + raw (plain) us | "
        "paired ratio | guarded:: (DTensor) us | paired ratio |\n");
    std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  CollectiveGuard guard(mesh);
  for (int64_t bytes = 4 << 10; bytes <= (64 << 20); bytes *= 4) {
    const int64_t numel = bytes / 4;
    int iters = bytes <= (1 << 20) ? 300 : 60;
    if (quick) {
      iters = std::max(5, iters / 10);
    }
    at::Tensor plain = at::ones({numel}, at::TensorOptions().device(dev));
    at::Tensor dt = from_local(
        at::ones({numel}, at::TensorOptions().device(dev)),
        mesh,
        {Replicate{}});
    for (const char* op : {"broadcast", "allreduce"}) {
      const bool bc = std::strcmp(op, "broadcast") == 0;
      std::vector<double> raw, wrapped, wrapped_plain, guarded_dt;
      std::vector<at::Tensor> raw_args{plain};
      auto timed = [&](auto&& f) {
        auto t0 = Clock::now();
        f();
        torch::cuda::synchronize();
        return seconds_since(t0) * 1e6;
      };
      for (int i = 0; i < iters + 5; ++i) {
        // Interleaved so drift hits all alike; the first 5 warm up (NCCL
        // connects in its first collective).
        const double r = timed([&] {
          bc ? raw_broadcast(mesh, raw_args) : raw_allreduce(mesh, raw_args);
        });
        const double w = timed([&] {
          guard.call_collective(
              {dt},
              [&](const std::vector<at::Tensor>& args, const DeviceMesh& m) {
                raw_on(m, args, bc);
              });
        });
        const double wp = timed([&] {
          guard.call_collective(
              {plain},
              [&](const std::vector<at::Tensor>& args, const DeviceMesh& m) {
                raw_on(m, args, bc);
              });
        });
        const double g = timed([&] {
          bc ? guarded::broadcast_({dt}, mesh, 0)
             : guarded::all_reduce_({dt}, mesh, ReduceOp::SUM);
        });
        if (i >= 5) {
          raw.push_back(r);
          wrapped.push_back(w);
          wrapped_plain.push_back(wp);
          guarded_dt.push_back(g);
        }
      }
      if (!bc) {
        plain.fill_(1);
        get_dtensor_impl(dt)->local().fill_(1);
      }
      auto paired = [&](const std::vector<double>& v) {
        std::vector<double> q;
        q.reserve(v.size());
        for (size_t k = 0; k < v.size(); ++k) {
          q.push_back(v[k] / raw[k]);
        }
        return median(q);
      };
      const double mr = median(raw), mw = median(wrapped);
      if (printer) {
        std::printf(
            "| %s | %s | %.1f | %.1f | %.3f | %.3f | %.1f | %.3f | %.1f | %.3f |\n",
            human(bytes).c_str(),
            op,
            mr,
            mw,
            mw / mr,
            paired(wrapped),
            median(wrapped_plain),
            paired(wrapped_plain),
            median(guarded_dt),
            paired(guarded_dt));
        std::fflush(stdout);
      }
    }
  }
}

DeviceMesh solo_mesh() {
  MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  opts.gloo_hostname = "127.0.0.1";
  return init_device_mesh("cpu", {1}, opts);
}

template <typename F>
double ns_per_call(const F& f, int iters) {
  for (int i = 0; i < iters / 10 + 1; ++i) {
    f();
  }
  std::vector<double> runs;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) {
      f();
    }
    runs.push_back(seconds_since(t0) * 1e9 / iters);
  }
  return median(runs);
}

void guard_only(bool quick) {
  auto mesh = solo_mesh();
  const int iters = quick ? 2000 : 20000;
  std::printf(
      "\n## guard cost alone (single process, no communication), ns per call\n\n");
  std::printf(
      "| args | find_mesh | CollectiveGuard::require_mesh | guarded::broadcast_ on a 1-rank mesh (DTensors) | "
      "guarded::broadcast_ (plain, promoted) |\n|---:|---:|---:|---:|---:|\n");
  for (int n : {1, 4, 16, 64}) {
    std::vector<at::Tensor> dts, plains;
    for (int i = 0; i < n; ++i) {
      dts.push_back(from_local(at::ones({4}), mesh, {Replicate{}}));
      plains.push_back(at::ones({4}));
    }
    CollectiveGuard guard(mesh);
    double find = ns_per_call(
        [&] { (void)find_mesh(dts, "c10d.broadcast_.default"); }, iters);
    double req = ns_per_call([&] { (void)guard.require_mesh(dts); }, iters);
    // A 1-rank mesh skips the collective itself: what is left is the guard.
    double full =
        ns_per_call([&] { guarded::broadcast_(dts, mesh, 0); }, iters);
    double promo =
        ns_per_call([&] { guarded::broadcast_(plains, mesh, 0); }, iters / 4);
    std::printf(
        "| %d | %.0f | %.0f | %.0f | %.0f |\n", n, find, req, full, promo);
  }
  std::printf(
      "\nper argument: find_mesh and require_mesh scan the arguments once; promotion builds one "
      "DTensorImpl per plain tensor.\n");
}

void memory() {
  auto mesh = solo_mesh();
  at::Tensor dt = from_local(at::ones({4, 4}), mesh, {Replicate{}});
  const auto* impl = get_dtensor_impl(dt);
  // The impl object itself plus the heap part of its spec (placements; the
  // shape vector) and the TensorImpl's heap-allocated autograd/extra meta,
  // which is null until requires_grad.
  const size_t spec_heap =
      impl->spec().placements.capacity() * sizeof(Placement) +
      impl->spec().shape.capacity() * sizeof(int64_t);
  std::printf(
      "\n## memory\n\nDTensor wrapper beyond its local tensor: sizeof(DTensorImpl) = %zu B "
      "(c10::TensorImpl is %zu B of it) + %zu B of spec on the heap for a 2-d tensor on a 1-d mesh; "
      "the mesh state is shared by all DTensors of a mesh.\n",
      sizeof(DTensorImpl),
      sizeof(c10::TensorImpl),
      spec_heap);
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool guard_part = true;
  bool cuda = false;
  for (int i = 1; i < argc; ++i) {
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
    guard_part = guard_part && std::strcmp(argv[i], "--collectives-only") != 0;
    cuda = cuda || std::strcmp(argv[i], "--cuda") == 0;
  }
  if (std::getenv("RANK") != nullptr) {
    auto mesh = init_device_mesh(
        cuda ? "cuda" : "cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
    cuda ? cuda_collectives(mesh, quick) : collectives(mesh, quick);
    if (mesh.get_rank() != 0) {
      return 0;
    }
  } else {
    std::printf("(not under meshguard-launch: skipping the 2-rank part)\n");
  }
  if (guard_part) {
    guard_only(quick);
    memory();
  }
  return 0;
}
