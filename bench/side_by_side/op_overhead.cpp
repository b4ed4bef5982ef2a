// meshguard_op_overhead: what a DTensor op costs over the same op on the
// local tensors, meshguard's side of bench/side_by_side/run.py (op_overhead.py
// is PyTorch's, with the same rows). One rank of a launch (each rank runs
// its own ops; none of the rows communicates), 1 thread; rank 0 prints one
// JSON object: per row the median ns per call of the DTensor op and of the
// local op, interleaved rep by rep.
//
//   scripts/meshguard-launch --nproc 2 -- meshguard_op_overhead [ITERS]

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIndexing.h>

#include <meshguard/meshguard.h>

#include "../BenchStats.h"

using namespace meshguard;
using Clock = std::chrono::steady_clock;

namespace {

double ns_per_call(const std::function<void()>& f, int iters) {
  const auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) {
    f();
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
      iters;
}

} // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  at::set_num_threads(1);
  const char* world_env = std::getenv("WORLD_SIZE");
  auto mesh = init_device_mesh("cpu", {world_env ? std::atoll(world_env) : 1});
  const Placements s0{Shard{0}}, r{Replicate{}};
  at::manual_seed(0);
  at::Tensor x = at::randn({64, 64}), y = at::randn({64, 64}),
             w = at::randn({64, 64}), b = at::randn({64});
  at::Tensor xs = distribute_tensor(x, mesh, s0),
             ys = distribute_tensor(y, mesh, s0);
  at::Tensor xr = distribute_tensor(x, mesh, r),
             wr = distribute_tensor(w, mesh, r),
             br = distribute_tensor(b, mesh, r);
  at::Tensor xl = to_local(xs), yl = to_local(ys);
  // Indexing, convolution and attention on batch shards (issue #39's rows).
  at::Tensor cols = at::arange(0, 64, 2),
             colsr = distribute_tensor(cols, mesh, r);
  at::Tensor img = at::randn({8, 4, 8, 8}), kernel = at::randn({4, 4, 3, 3});
  at::Tensor imgs = distribute_tensor(img, mesh, s0),
             kernelr = distribute_tensor(kernel, mesh, r);
  at::Tensor imgl = to_local(imgs);
  at::Tensor q = at::randn({4, 2, 16, 8}), qs = distribute_tensor(q, mesh, s0),
             ql = to_local(qs);
  struct Row {
    const char* name;
    std::function<void()> dtensor, local;
  };
  // The rows of op_overhead.py, in the same order and with the same names.
  std::vector<Row> rows = {
      {"add S(0)+S(0)", [&] { (void)(xs + ys); }, [&] { (void)(xl + yl); }},
      {"add R+R", [&] { (void)(xr + wr); }, [&] { (void)(x + w); }},
      {"mul S(0)*S(0)", [&] { (void)(xs * ys); }, [&] { (void)(xl * yl); }},
      {"mm S(0)xR",
       [&] { (void)at::mm(xs, wr); },
       [&] { (void)at::mm(xl, w); }},
      {"mm RxR", [&] { (void)at::mm(xr, wr); }, [&] { (void)at::mm(x, w); }},
      {"addmm R+S(0)xR",
       [&] { (void)at::addmm(br, xs, wr); },
       [&] { (void)at::addmm(b, xl, w); }},
      {"sum S(0) -> P", [&] { (void)xs.sum(); }, [&] { (void)xl.sum(); }},
      {"sum(1) S(0)", [&] { (void)xs.sum(1); }, [&] { (void)xl.sum(1); }},
      {"view S(0)",
       [&] { (void)xs.view({64, 8, 8}); },
       [&] { (void)xl.view({xl.size(0), 8, 8}); }},
      {"softmax(-1) S(0)",
       [&] { (void)at::softmax(xs, -1); },
       [&] { (void)at::softmax(xl, -1); }},
      {"softmax(-1) R",
       [&] { (void)at::softmax(xr, -1); },
       [&] { (void)at::softmax(x, -1); }},
      {"index S(0)[:, cols]",
       [&] { (void)xs.index({at::indexing::Slice(), colsr}); },
       [&] { (void)xl.index({at::indexing::Slice(), cols}); }},
      {"conv2d S(0)",
       [&] { (void)at::conv2d(imgs, kernelr); },
       [&] { (void)at::conv2d(imgl, kernel); }},
      {"sdpa S(0)",
       [&] { (void)at::scaled_dot_product_attention(qs, qs, qs); },
       [&] { (void)at::scaled_dot_product_attention(ql, ql, ql); }},
  };
  std::string json = "{\"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    ns_per_call(row.dtensor, iters / 10 + 1); // warm the decision cache
    ns_per_call(row.local, iters / 10 + 1);
    std::vector<double> d, l;
    for (int rep = 0; rep < 7; ++rep) {
      l.push_back(ns_per_call(row.local, iters));
      d.push_back(ns_per_call(row.dtensor, iters));
    }
    std::array<char, 256> buf{};
    std::snprintf(
        buf.data(),
        buf.size(),
        R"(%s{"name": "%s", "dtensor_ns": %.1f, "local_ns": %.1f})",
        i ? ", " : "",
        row.name,
        bench::median(d),
        bench::median(l));
    json += buf.data();
  }
  json += "]}";
  if (mesh.get_rank() == 0) {
    std::printf("%s\n", json.c_str());
  }
  return 0;
}
