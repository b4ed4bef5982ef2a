// FSDP-style sharding (FullyShard.h): parameters Shard(0) on the data-
// parallel mesh, gathered for compute, gradients reduce-scattered; the batch
// a Shard(0) DTensor. An MLP trains like one process on the whole batch.

#include <torch/torch.h>
#include <torch/version.h>

#include "CountingGroup.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(6, 10))),
        fc2(register_module("fc2", torch::nn::Linear(10, 3))) {}
  at::Tensor forward(const at::Tensor& x) {
    return fc2(at::relu(fc1(x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

// Megatron's MLP for the tensor-parallel styles (parallel_forward is the
// plain forward on a module without a style).
struct TpNetImpl : torch::nn::Module {
  TpNetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, 16))),
        fc2(register_module("fc2", torch::nn::Linear(16, 4))) {}
  at::Tensor forward(const at::Tensor& x) {
    return parallel_forward(fc2, at::relu(parallel_forward(fc1, x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(TpNet);

// Colwise fc1 + Rowwise fc2 on `tp`, keeping DTensors between the layers:
// on a 2-D mesh a local tensor would lose the batch's dp placement.
void parallelize_mlp(TpNet& model, const DeviceMesh& tp) {
  ColwiseParallel colwise;
  colwise.use_local_output = false;
  RowwiseParallel rowwise;
  rowwise.use_local_output = false;
  parallelize_module(*model, tp, {{"fc1", colwise}, {"fc2", rowwise}});
}

// What one group saw in one phase of a step.
struct Phase {
  Phase() = default;
  explicit Phase(const CountingGroup& g)
      : total(g.total()),
        all_gathers(g.all_gathers),
        all_reduces(g.all_reduces),
        reduce_scatters(g.reduce_scatters),
        bytes(g.bytes),
        calls(g.calls()) {}
  int64_t total = 0, all_gathers = 0, all_reduces = 0, reduce_scatters = 0,
          bytes = 0;
  std::string calls;
};

struct PhaseCounts {
  Phase forward, backward, optimizer;
};

// libtorch 2.x's Gloo has a reduce-scatter; 1.13's has none, and a
// Partial -> Shard redistribute is an all-reduce of the whole tensor there.
constexpr bool kReduceScatter = TORCH_VERSION_MAJOR >= 2;

} // namespace

TEST(FullyShard, MlpTrainsLikeOneProcess) {
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  torch::manual_seed(4);
  Net model, ref;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  fully_shard(*model, mesh);
  for (const auto& p : model->parameters()) {
    EXPECT_EQ(*placements_of(p), (Placements{Shard{0}}));
  }
  // An uneven batch: 2 * world + 1 rows.
  const int64_t batch = 2 * world_size() + 1;
  at::Tensor x = torch::randn({batch, 6}), y = torch::randn({batch, 3});
  at::Tensor xd = distribute_tensor(x, mesh, {Shard{0}}),
             yd = distribute_tensor(y, mesh, {Shard{0}});
  auto opts = torch::optim::AdamOptions(0.01);
  torch::optim::Adam opt(model->parameters(), opts),
      ref_opt(ref->parameters(), opts);
  PhaseCounts last;
  for (int step = 0; step < 30; ++step) {
    ref_opt.zero_grad();
    at::Tensor ref_loss = torch::mse_loss(ref->forward(x), y);
    ref_loss.backward();
    ref_opt.step();

    opt.zero_grad();
    counters[0]->reset();
    at::Tensor loss = torch::mse_loss(fully_sharded_forward(model, xd), yd);
    last.forward = Phase(*counters[0]);
    counters[0]->reset();
    loss.backward();
    last.backward = Phase(*counters[0]);
    counters[0]->reset();
    opt.step();
    last.optimizer = Phase(*counters[0]);
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_loss.item<float>(), 1e-5)
        << "step " << step;
  }
  // The analytical minimum (docs/runtime/parallel.md), as FSDP2's flat
  // buffer. Forward: one all-gather of every parameter's (padded) shard
  // packed together. Backward: one reduce-scatter of the gradients padded
  // to equal blocks, packed (libtorch 1.13's Gloo has none: an all-reduce of
  // that buffer). Optimizer: none (parameters, gradients and Adam state are
  // all Shard(0)). loss.backward() seeds the gradient with ones_like of the
  // Partial loss, which needs no reduction.
  const int64_t k = world_size();
  int64_t gather_bytes = 0, reduce_bytes = 0;
  for (const auto& p : ref->parameters()) {
    const int64_t block =
        (p.numel() / p.size(0)) * ((p.size(0) + k - 1) / k) * 4;
    gather_bytes += block;
    reduce_bytes += block * k;
  }
  EXPECT_EQ(last.forward.all_gathers, 1) << last.forward.calls;
  EXPECT_EQ(last.forward.total, 1) << last.forward.calls;
  EXPECT_EQ(last.forward.bytes, gather_bytes) << last.forward.calls;
  EXPECT_EQ(
      kReduceScatter ? last.backward.reduce_scatters
                     : last.backward.all_reduces,
      1)
      << last.backward.calls;
  EXPECT_EQ(last.backward.total, 1) << last.backward.calls;
  EXPECT_EQ(last.backward.bytes, reduce_bytes) << last.backward.calls;
  EXPECT_EQ(last.optimizer.total, 0) << last.optimizer.calls;
  std::printf(
      "fully_shard MLP per step: forward %s; backward %s; optimizer %lld\n",
      last.forward.calls.c_str(),
      last.backward.calls.c_str(),
      static_cast<long long>(last.optimizer.total));
  for (const auto& p : model->parameters()) {
    EXPECT_EQ(*placements_of(p), (Placements{Shard{0}}));
    EXPECT_EQ(*placements_of(p.grad()), (Placements{Shard{0}}));
  }
  for (size_t i = 0; i < ref->parameters().size(); ++i) {
    EXPECT_TRUE(at::allclose(
        full_tensor(model->parameters()[i]),
        ref->parameters()[i].detach(),
        1e-5,
        1e-6));
  }
}

TEST(FullyShard, BadInput) {
  auto mesh = world_mesh();
  Net model;
  fully_shard(*model, mesh);
  MG_EXPECT_THROW_WITH(
      fully_shard(*model, mesh), PlacementError, "already is a DTensor");
}

// FSDP over TP on a 2x2 mesh (dim 0 "dp", dim 1 "tp"): parameters are
// [FSDP shard on dp, TP placement on tp], the batch [Shard(0), Replicate].
TEST(FullyShard, OverTensorParallelOnTwoByTwo) {
  ASSERT_EQ(world_size(), 4);
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(init_device_mesh("cpu", {2, 2}), counters);
  const int64_t dp = 0, tp = 1;
  torch::manual_seed(6);
  TpNet model, ref;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  // Ranks off dp coordinate 0 start from other values: rank 0's must win
  // (parallelize_module broadcasts within each tp group, fully_shard on dp).
  if (mesh.coordinate()[dp] != 0) {
    torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) {
      p.add_(1);
    }
  }
  parallelize_mlp(model, mesh_dim_mesh(mesh, tp));
  fully_shard(*model, mesh, dp);
  // The FSDP shard takes the first dim the TP placement leaves whole; the
  // column-parallel bias has none and stays Replicate on dp.
  EXPECT_EQ(
      *placements_of(model->fc1->weight), (Placements{Shard{1}, Shard{0}}));
  EXPECT_EQ(
      *placements_of(model->fc1->bias), (Placements{Replicate{}, Shard{0}}));
  EXPECT_EQ(
      *placements_of(model->fc2->weight), (Placements{Shard{0}, Shard{1}}));
  EXPECT_EQ(
      *placements_of(model->fc2->bias), (Placements{Shard{0}, Replicate{}}));
  for (size_t i = 0; i < ref->parameters().size(); ++i) {
    EXPECT_TRUE(at::equal(
        full_tensor(model->parameters()[i]), ref->parameters()[i].detach()))
        << i;
  }
  // An uneven batch over dp: 5 rows.
  at::Tensor x = torch::randn({5, 8}), y = torch::randn({5, 4});
  at::Tensor xd = distribute_tensor(x, mesh, {Shard{0}, Replicate{}});
  at::Tensor yd = distribute_tensor(y, mesh, {Shard{0}, Replicate{}});
  auto opts = torch::optim::AdamOptions(0.01);
  torch::optim::Adam opt(model->parameters(), opts),
      ref_opt(ref->parameters(), opts);
  std::vector<PhaseCounts> last(2);
  auto record = [&](Phase PhaseCounts::* phase) {
    for (int64_t d = 0; d < 2; ++d) {
      last[d].*phase = Phase(*counters[d]);
      counters[d]->reset();
    }
  };
  for (int step = 0; step < 30; ++step) {
    ref_opt.zero_grad();
    at::Tensor ref_loss = torch::mse_loss(ref->forward(x), y);
    ref_loss.backward();
    ref_opt.step();

    opt.zero_grad();
    counters[0]->reset();
    counters[1]->reset();
    at::Tensor loss = torch::mse_loss(fully_sharded_forward(model, xd), yd);
    record(&PhaseCounts::forward);
    loss.backward();
    record(&PhaseCounts::backward);
    opt.step();
    record(&PhaseCounts::optimizer);
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_loss.item<float>(), 1e-5)
        << "step " << step;
  }
  // The analytical minimum (docs/runtime/parallel.md). Forward, dp: one
  // all-gather of the dp-sharded parameters' shards packed together (3:
  // not fc1.bias): fc1.weight [8, 4], fc2.weight [2, 8], fc2.bias [2].
  // Forward, tp: one all-reduce of fc2's [local rows, 4] output. Backward,
  // dp: one reduce-scatter (an all-reduce on libtorch 1.13's Gloo) of their
  // gradients' tp shards packed: [8, 8], [4, 8], [4]; fc1.bias's [8] is the
  // all-reduce a Replicate parameter needs. Backward, tp: none. Optimizer:
  // none.
  const int64_t rows = to_local(xd).size(0);
  EXPECT_EQ(last[dp].forward.all_gathers, 1) << last[dp].forward.calls;
  EXPECT_EQ(last[dp].forward.total, 1) << last[dp].forward.calls;
  EXPECT_EQ(last[dp].forward.bytes, (8 * 4 + 2 * 8 + 2) * 4)
      << last[dp].forward.calls;
  EXPECT_EQ(last[tp].forward.all_reduces, 1) << last[tp].forward.calls;
  EXPECT_EQ(last[tp].forward.total, 1) << last[tp].forward.calls;
  EXPECT_EQ(last[tp].forward.bytes, rows * 4 * 4) << last[tp].forward.calls;
  EXPECT_EQ(last[dp].backward.all_reduces, kReduceScatter ? 1 : 2)
      << last[dp].backward.calls;
  EXPECT_EQ(last[dp].backward.reduce_scatters, kReduceScatter ? 1 : 0)
      << last[dp].backward.calls;
  EXPECT_EQ(last[dp].backward.total, 2) << last[dp].backward.calls;
  EXPECT_EQ(last[dp].backward.bytes, (8 * 8 + 8 + 4 * 8 + 4) * 4)
      << last[dp].backward.calls;
  EXPECT_EQ(last[tp].backward.total, 0) << last[tp].backward.calls;
  EXPECT_EQ(last[dp].optimizer.total + last[tp].optimizer.total, 0)
      << last[dp].optimizer.calls << " | " << last[tp].optimizer.calls;
  std::printf(
      "2x2 FSDP x TP per step: forward dp [%s] tp [%s]; backward dp [%s] tp [%s]\n",
      last[dp].forward.calls.c_str(),
      last[tp].forward.calls.c_str(),
      last[dp].backward.calls.c_str(),
      last[tp].backward.calls.c_str());
  for (size_t i = 0; i < ref->parameters().size(); ++i) {
    const at::Tensor p = model->parameters()[i];
    EXPECT_EQ(*placements_of(p.grad()), *placements_of(p)) << i;
    EXPECT_TRUE(
        at::allclose(full_tensor(p), ref->parameters()[i].detach(), 1e-5, 1e-6))
        << i;
  }
}

// PyTorch's defaults on a 2x2 mesh: the styles hand back local tensors
// (each rank's rows between the layers, as FSDP2 runs a module), a module
// without a style (the LayerNorm) computes on plain tensors with plain
// parameters, and only the last layers return a DTensor, so the loss is the
// whole batch's. Trains like one process; activations cost no dp traffic,
// and the plain tensor that fc3 and fc4 both read is wrapped once (one
// all-reduce of its gradient on tp, not one per reader).
struct LocalNetImpl : torch::nn::Module {
  LocalNetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, 16))),
        fc2(register_module("fc2", torch::nn::Linear(16, 6))),
        ln(register_module(
            "ln",
            torch::nn::LayerNorm(torch::nn::LayerNormOptions({6})))),
        fc3(register_module(
            "fc3",
            torch::nn::Linear(torch::nn::LinearOptions(6, 4).bias(false)))),
        fc4(register_module(
            "fc4",
            torch::nn::Linear(torch::nn::LinearOptions(6, 4).bias(false)))) {}
  at::Tensor forward(const at::Tensor& x) {
    at::Tensor h = parallel_forward(fc2, at::relu(parallel_forward(fc1, x)));
    plain_between = !is_dtensor(h) && !is_dtensor(ln->weight);
    const at::Tensor n = ln(h);
    return parallel_forward(fc3, n) + parallel_forward(fc4, n);
  }
  torch::nn::Linear fc1, fc2;
  torch::nn::LayerNorm ln;
  torch::nn::Linear fc3, fc4;
  bool plain_between = false;
};
TORCH_MODULE(LocalNet);

TEST(FullyShard, LocalActivationsOnTwoByTwo) {
  ASSERT_EQ(world_size(), 4);
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(init_device_mesh("cpu", {2, 2}), counters);
  const int64_t dp = 0, tp = 1;
  torch::manual_seed(8);
  LocalNet model, ref;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  ColwiseParallel colwise, last;
  RowwiseParallel rowwise; // use_local_output: PyTorch's default
  last.output_layouts = Replicate{};
  last.use_local_output = false;
  parallelize_module(
      *model,
      mesh_dim_mesh(mesh, tp),
      {{"fc1", colwise}, {"fc2", rowwise}, {"fc3", last}, {"fc4", last}});
  fully_shard(*model, mesh, dp);
  // 8 rows: each dp rank's 4 are read back as Shard(0) on dp.
  at::Tensor x = torch::randn({8, 8}), y = torch::randn({8, 4});
  at::Tensor xd = distribute_tensor(x, mesh, {Shard{0}, Replicate{}});
  at::Tensor yd = distribute_tensor(y, mesh, {Shard{0}, Replicate{}});
  auto opts = torch::optim::SGDOptions(0.1);
  torch::optim::SGD opt(model->parameters(), opts),
      ref_opt(ref->parameters(), opts);
  std::vector<PhaseCounts> last_step(2);
  auto record = [&](Phase PhaseCounts::* phase) {
    for (int64_t d = 0; d < 2; ++d) {
      last_step[d].*phase = Phase(*counters[d]);
      counters[d]->reset();
    }
  };
  for (int step = 0; step < 10; ++step) {
    ref_opt.zero_grad();
    at::Tensor ref_loss = torch::mse_loss(ref->forward(x), y);
    ref_loss.backward();
    ref_opt.step();

    opt.zero_grad();
    counters[0]->reset();
    counters[1]->reset();
    at::Tensor out = fully_sharded_forward(model, xd);
    EXPECT_TRUE(model->plain_between);
    EXPECT_EQ(*placements_of(out), (Placements{Shard{0}, Replicate{}}));
    at::Tensor loss = torch::mse_loss(out, yd);
    record(&PhaseCounts::forward);
    loss.backward();
    record(&PhaseCounts::backward);
    opt.step();
    record(&PhaseCounts::optimizer);
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_loss.item<float>(), 1e-5)
        << "step " << step;
  }
  EXPECT_TRUE(is_dtensor(model->ln->weight)); // sharded again after forward
  for (size_t i = 0; i < ref->parameters().size(); ++i) {
    const at::Tensor p = model->parameters()[i];
    EXPECT_EQ(*placements_of(p.grad()), *placements_of(p)) << i;
    EXPECT_TRUE(
        at::allclose(full_tensor(p), ref->parameters()[i].detach(), 1e-5, 1e-6))
        << i;
  }
  // Forward: dp, the one packed all-gather; tp, fc2's all-reduce and fc3's
  // and fc4's all-gathers of their Replicate outputs, nothing for the plain
  // activations. Backward: tp, one all-reduce of the gradient of the input
  // fc3 and fc4 share (read Replicate); dp, the packed reduce-scatter (an
  // all-reduce on 1.13) and the all-reduce of fc1.bias, Replicate on dp.
  EXPECT_EQ(last_step[dp].forward.all_gathers, 1)
      << last_step[dp].forward.calls;
  EXPECT_EQ(last_step[dp].forward.total, 1) << last_step[dp].forward.calls;
  EXPECT_EQ(last_step[tp].forward.all_reduces, 1)
      << last_step[tp].forward.calls;
  EXPECT_EQ(last_step[tp].forward.all_gathers, 2)
      << last_step[tp].forward.calls;
  EXPECT_EQ(last_step[tp].forward.total, 3) << last_step[tp].forward.calls;
  EXPECT_EQ(last_step[tp].backward.all_reduces, 1)
      << last_step[tp].backward.calls;
  EXPECT_EQ(last_step[tp].backward.total, 1) << last_step[tp].backward.calls;
  EXPECT_EQ(last_step[dp].backward.reduce_scatters, kReduceScatter ? 1 : 0)
      << last_step[dp].backward.calls;
  EXPECT_EQ(last_step[dp].backward.total, 2) << last_step[dp].backward.calls;
  EXPECT_EQ(last_step[dp].optimizer.total + last_step[tp].optimizer.total, 0);
}

TEST(FullyShard, TwoDimensionalBadInput) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  TpNet model;
  MG_EXPECT_THROW_WITH(
      fully_shard(*model, mesh),
      PlacementError,
      "without a mesh dim it runs on a 1-D");
  MG_EXPECT_THROW_WITH(
      fully_shard(*model, mesh, 2),
      PlacementError,
      "on one dim of a 2-D mesh, got mesh dim 2");
  // TP on dim 1 and FSDP asked on dim 1 too: the TP parameters are not on
  // the other dim's mesh. An error, and nothing changes.
  parallelize_mlp(model, mesh_dim_mesh(mesh, 1));
  MG_EXPECT_THROW_WITH(
      fully_shard(*model, mesh, 1),
      PlacementError,
      "parameter 'fc1.weight' already is a DTensor (on DeviceMesh");
  EXPECT_EQ(mesh_of(model->fc1->weight)->ndim(), 1);
  fully_shard(*model, mesh, 0);
  EXPECT_EQ(mesh_of(model->fc1->weight)->ndim(), 2);
  MG_EXPECT_THROW_WITH(
      fully_shard(*model, mesh, 0), PlacementError, "already is a DTensor");
  // A plain input has no placement on dp.
  GatheredParameters gathered(*model);
  MG_EXPECT_THROW_WITH(
      model->forward(torch::randn({4, 8})),
      PlacementError,
      "a plain input says nothing");
}
