// The collective-consistency mode's cost per collective.
//
//   scripts/meshguard-launch --nproc 2 -- build/bin/meshguard_debug_bench
//   [--quick] [--json MAX_BYTES]
//
// --json MAX_BYTES: sizes up to MAX_BYTES, one JSON object per row instead
// of the table (side_by_side/run.py reads them).
//
// On the same tensors, interleaved call by call so that all see the same
// machine state:
//   raw:     the c10d ProcessGroupGloo call and Work::wait(timeout), no check
//            at all (what the runtime's wait was before it polled for a
//            failed Gloo transport thread);
//   default: dist::all_reduce_ / dist::broadcast_ with the mode off (the
//            guard, and the wait that turns a size mismatch into an error);
//   debug:   the same call with the mode on (set_debug_collectives, switched
//            alike on every rank between calls).
// Rank 0 prints median us per call, ratios of medians and paired ratios
// (median over iterations of a call / the raw call just before it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <meshguard/meshguard.h>

#include "BenchStats.h"

using namespace meshguard;
using bench::human;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F>
double timed_us(F&& f) {
  const auto t0 = Clock::now();
  std::forward<F>(f)();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false, json = false;
  int64_t max_bytes = 64 << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json = true;
      max_bytes = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--json MAX_BYTES]\n", argv[0]);
      return 2;
    }
  }
  auto mesh = init_device_mesh("cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
  const bool printer = mesh.get_rank() == 0;
  set_debug_collectives(false);
  if (printer && !json) {
    std::printf(
        "## collective-consistency mode: on vs off (Gloo, %lld ranks, loopback), median us per call\n\n",
        static_cast<long long>(mesh.size()));
    std::printf(
        "| size | op | raw us | default us | default/raw | paired | debug us | debug/default | paired | debug "
        "adds us |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  const auto timeout = mesh.timeout();
  for (int64_t bytes = 4; bytes <= max_bytes; bytes *= 16) {
    const int64_t numel = bytes / 4;
    int iters = bytes <= (64 << 10) ? 300 : bytes <= (1 << 20) ? 60 : 12;
    if (quick) {
      iters = std::max(5, iters / 10);
    }
    at::Tensor dt = from_local(at::zeros({numel}), mesh, {Replicate{}});
    std::vector<at::Tensor> raw_args{at::zeros({numel})};
    for (const char* op : {"all_reduce_", "broadcast_"}) {
      const bool bc = std::strcmp(op, "broadcast_") == 0;
      auto call = [&] {
        if (bc) {
          dist::broadcast_({dt}, 0);
        } else {
          dist::all_reduce_({dt}); // a Replicate of zeros stays zeros
        }
      };
      auto raw = [&] {
        if (bc) {
          c10d::BroadcastOptions opts;
          opts.rootRank = 0;
          opts.timeout = timeout;
          mesh.get_group(0)->broadcast(raw_args, opts)->wait(timeout);
        } else {
          c10d::AllreduceOptions opts;
          opts.timeout = timeout;
          mesh.get_group(0)->allreduce(raw_args, opts)->wait(timeout);
        }
      };
      std::vector<double> raws, offs, ons, off_paired, on_paired;
      for (int i = 0; i < iters + 3; ++i) {
        const double r = timed_us(raw);
        const double a = timed_us(call);
        set_debug_collectives(true);
        const double b = timed_us(call);
        set_debug_collectives(false);
        if (i >= 3) { // warm-up
          raws.push_back(r);
          offs.push_back(a);
          ons.push_back(b);
          off_paired.push_back(a / r);
          on_paired.push_back(b / a);
        }
      }
      const double mr = median(raws), mo = median(offs), mn = median(ons);
      if (printer && json) {
        std::printf(
            "{\"bytes\": %lld, \"op\": \"%s\", \"default_us\": %.2f, \"debug_us\": %.2f}\n",
            static_cast<long long>(bytes),
            op,
            mo,
            mn);
        std::fflush(stdout);
      } else if (printer) {
        std::printf(
            "| %s | %s | %.1f | %.1f | %.3f | %.3f | %.1f | %.3f | %.3f | %.1f |\n",
            human(bytes).c_str(),
            op,
            mr,
            mo,
            mo / mr,
            median(off_paired),
            mn,
            mn / mo,
            median(on_paired),
            mn - mo);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
