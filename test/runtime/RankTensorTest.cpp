// Rank tests for redistribute, the dispatcher fallback, autograd and
// distribute_module (run under scripts/meshguard-launch).

#include <gmock/gmock.h>
#include <torch/torch.h>

#include "CountingGroup.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;
using ::testing::HasSubstr;

namespace {

std::vector<Placement> candidates() {
  return {Shard{0}, Shard{1}, Replicate{}, Partial{}};
}

// The local tensor a rank must hold for `full` under `placements`, computed
// here independently with torch.chunk (Partial: the value on coordinate 0).
at::Tensor expected_local(
    const at::Tensor& full,
    const DeviceMesh& mesh,
    const Placements& placements) {
  at::Tensor t = full;
  for (int64_t i = 0; i < mesh.ndim(); ++i) {
    const auto c = mesh.coordinate()[i];
    if (auto* s = std::get_if<Shard>(&placements[i])) {
      auto pieces = t.chunk(mesh.size(i), s->dim);
      if (c < static_cast<int64_t>(pieces.size())) {
        t = pieces[c];
      } else {
        auto shape = t.sizes().vec();
        shape[s->dim] = 0;
        t = at::empty(shape, t.options());
      }
    } else if (is_partial(placements[i]) && c != 0) {
      t = at::zeros_like(t);
    }
  }
  return t;
}

void check_all_pairs(const DeviceMesh& mesh, const at::Tensor& full) {
  std::vector<Placements> all;
  if (mesh.ndim() == 1) {
    for (const auto& p : candidates()) {
      all.push_back({p});
    }
  } else {
    for (const auto& p : candidates()) {
      for (const auto& q : candidates()) {
        all.push_back({p, q});
      }
    }
  }
  for (const auto& src : all) {
    for (const auto& dst : all) {
      SCOPED_TRACE(to_string(src) + " -> " + to_string(dst));
      at::Tensor a = distribute_tensor(full, mesh, src);
      ASSERT_TRUE(at::equal(to_local(a), expected_local(full, mesh, src)));
      bool to_new_partial = false;
      for (size_t i = 0; i < dst.size(); ++i) {
        to_new_partial =
            to_new_partial || (is_partial(dst[i]) && !(src[i] == dst[i]));
      }
      if (to_new_partial) { // PyTorch refuses it too
        MG_EXPECT_THROW_WITH(
            redistribute(a, dst), PlacementError, "for internal use only");
        continue;
      }
      at::Tensor b = redistribute(a, dst);
      EXPECT_EQ(*placements_of(b), dst);
      EXPECT_EQ(b.sizes(), full.sizes());
      EXPECT_TRUE(at::allclose(to_local(b), expected_local(full, mesh, dst)));
      EXPECT_TRUE(at::allclose(full_tensor(b), full));
    }
  }
}

} // namespace

TEST(Redistribute, AllPairs1D) {
  auto mesh = world_mesh();
  check_all_pairs(
      mesh, full_of({5, 3}, 1)); // uneven on both dims for 2 and 4 ranks
  check_all_pairs(mesh, full_of({4, 8}, 2)); // even
}

// Gloo has no bool; bool DTensors travel as bytes (compat), so masks can be
// distributed, gathered and reduced like any tensor.
TEST(Redistribute, BoolTensors) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({5, 3}, 4).gt(0);
  for (const Placements& ps :
       {Placements{Shard{0}}, Placements{Shard{1}}, Placements{Replicate{}}}) {
    at::Tensor b = distribute_tensor(full, mesh, ps);
    EXPECT_EQ(b.scalar_type(), at::kBool);
    EXPECT_TRUE(at::equal(full_tensor(b), full)) << to_string(ps);
    EXPECT_TRUE(at::equal(full_tensor(redistribute(b, {Replicate{}})), full))
        << to_string(ps);
    EXPECT_TRUE(at::equal(full_tensor(b.logical_not()), full.logical_not()))
        << to_string(ps);
  }
  // A partial "or": the rank's own row of an otherwise false mask, reduced.
  at::Tensor mine = at::zeros({mesh.size(), 2}, at::kBool);
  mine[mesh.get_rank()][mesh.get_rank() % 2] = true;
  at::Tensor any =
      full_tensor(from_local(mine, mesh, {Partial{ReduceOp::SUM}}));
  at::Tensor expected = at::zeros({mesh.size(), 2}, at::kBool);
  for (int64_t r = 0; r < mesh.size(); ++r) {
    expected[r][r % 2] = true;
  }
  EXPECT_TRUE(at::equal(any, expected));
}

TEST(Redistribute, AllPairs2x2) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  check_all_pairs(mesh, full_of({5, 3}, 1));
  // Nested shards of one tensor dim: mesh dim 0 chunks first, then dim 1.
  at::Tensor full = full_of({7, 2}, 3);
  at::Tensor nested = distribute_tensor(full, mesh, {Shard{0}, Shard{0}});
  EXPECT_TRUE(at::equal(
      to_local(nested), expected_local(full, mesh, {Shard{0}, Shard{0}})));
  EXPECT_TRUE(at::equal(
      full_tensor(redistribute(nested, {Shard{0}, Replicate{}})), full));
  EXPECT_TRUE(at::equal(full_tensor(nested), full));
  EXPECT_TRUE(at::equal(
      to_local(redistribute(nested, {Replicate{}, Shard{0}})),
      expected_local(full, mesh, {Replicate{}, Shard{0}})));
}

TEST(Fallback, PointwiseOnEqualShards) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({6, 3}, 0);
  auto a = distribute_tensor(full, mesh, {Shard{0}});
  auto b = distribute_tensor(full * 2, mesh, {Shard{0}});
  at::Tensor c = a + b;
  ASSERT_TRUE(is_dtensor(c));
  EXPECT_EQ(*placements_of(c), (Placements{Shard{0}}));
  EXPECT_EQ(c.sizes(), full.sizes());
  EXPECT_TRUE(at::allclose(full_tensor(c), full * 3));
  EXPECT_TRUE(
      at::allclose(full_tensor(at::relu(a - 5.0)), at::relu(full - 5.0)));
  EXPECT_TRUE(at::allclose(
      full_tensor(a * at::scalar_tensor(2.0)),
      full * 2)); // 0-dim plain: Replicate
  EXPECT_TRUE(
      at::allclose(full_tensor(at::sigmoid(a).mul_(3)), at::sigmoid(full) * 3));
  at::Tensor d = a.clone();
  d.add_(b); // in place keeps the DTensor
  EXPECT_TRUE(is_dtensor(d));
  EXPECT_TRUE(at::allclose(full_tensor(d), full * 3));
}

TEST(Fallback, MixedAndUnsupportedAreErrors) {
  auto mesh = world_mesh();
  auto a = distribute_tensor(full_of({4, 3}, 0), mesh, {Shard{0}});
  MG_EXPECT_THROW_WITH(
      a + at::ones({4, 3}),
      c10::Error,
      "aten.add.Tensor got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to "
      "DTensor before calling distributed operators!\n");
  try {
    (void)at::trace(a); // not in the sharding-rule table
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("aten::trace"));
    EXPECT_THAT(e.what(), HasSubstr("Shard(dim=0)"));
  }
  auto p = from_local(full_of({4, 3}, 0), mesh, {Partial{}});
  EXPECT_TRUE(
      at::allclose(full_tensor(p + p), full_of({4, 3}, 0) * 2 * world_size()));
  EXPECT_TRUE(
      at::allclose(full_tensor(p * 3), full_of({4, 3}, 0) * 3 * world_size()));
  // Not linear in a Partial operand: reduced first, so the value is right.
  EXPECT_TRUE(
      at::allclose(full_tensor(p + 1), full_of({4, 3}, 0) * world_size() + 1));
}

// Autograd's gradient for an unused split/unbind output is plain zeros, cat
// with the DTensor gradients: zeros join as Replicate (PyTorch 2.13's DTensor
// refuses them: docs/runtime/conformance.md). Any other plain operand, or
// zeros that require grad (user data, not autograd's filler), is the error.
TEST(Fallback, PlainZerosJoinAsReplicate) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({4, 6}, 0);
  auto a = distribute_tensor(full, mesh, {Shard{0}});
  at::Tensor joined = at::cat({a, at::zeros({4, 6})}, 1);
  ASSERT_TRUE(is_dtensor(joined));
  EXPECT_TRUE(
      at::allclose(full_tensor(joined), at::cat({full, at::zeros({4, 6})}, 1)));
  MG_EXPECT_THROW_WITH(
      at::cat({a, at::ones({4, 6})}, 1),
      c10::Error,
      "aten.cat.default got mixed torch.Tensor");
  MG_EXPECT_THROW_WITH(
      at::cat({a, at::zeros({4, 6}).requires_grad_()}, 1),
      c10::Error,
      "aten.cat.default got mixed torch.Tensor");

  // Only the first chunk (and one of unbind's rows) reaches the loss.
  auto x = distribute_tensor(full, mesh, {Shard{0}}).requires_grad_();
  auto ref = full.clone().requires_grad_();
  (x.split(2, 1)[0].sum() + x.unbind(1)[5].sum()).backward();
  (ref.split(2, 1)[0].sum() + ref.unbind(1)[5].sum()).backward();
  ASSERT_TRUE(is_dtensor(x.grad()));
  EXPECT_TRUE(at::allclose(full_tensor(x.grad()), ref.grad()));
}

TEST(Fallback, ReplicateRunsAnyOp) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({4, 3}, 1);
  auto r = distribute_tensor(full, mesh, {Replicate{}});
  at::Tensor m = at::matmul(r, r.t());
  ASSERT_TRUE(is_dtensor(m));
  EXPECT_TRUE(at::allclose(to_local(m), at::matmul(full, full.t())));
  EXPECT_TRUE(
      at::allclose(to_local(r.sum(1).softmax(0)), full.sum(1).softmax(0)));
  EXPECT_TRUE(
      at::allclose(to_local(at::cat({r, r}, 0)), at::cat({full, full}, 0)));
  EXPECT_EQ(r.view({12}).sizes(), (c10::IntArrayRef{12}));
  EXPECT_FLOAT_EQ(r.sum().item<float>(), full.sum().item<float>());
}

// A Partial input's gradient: a Partial output gradient stays Partial (no
// collective: reducing it changes nothing), a Replicate one stays Replicate.
TEST(Autograd, PartialInputsKeepTheirGradientsLayout) {
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  const Placements partial{Partial{ReduceOp::SUM}};
  at::Tensor p =
      from_local(at::ones({3}) * (mesh.get_rank() + 1), mesh, partial)
          .detach()
          .requires_grad_(true);
  at::Tensor same = redistribute(p, partial);
  at::Tensor g = from_local(at::full({3}, 0.5), mesh, partial);
  counters[0]->reset();
  same.backward(g);
  EXPECT_EQ(counters[0]->total(), 0) << counters[0]->calls();
  EXPECT_EQ(*placements_of(p.grad()), partial);
  EXPECT_TRUE(at::allclose(full_tensor(p.grad()), full_tensor(g)));
  p.mutable_grad() = at::Tensor();
  at::Tensor whole = redistribute(p, {Replicate{}}); // the forward all-reduces
  at::Tensor twos = from_local(at::full({3}, 2.0), mesh, {Replicate{}});
  counters[0]->reset();
  whole.backward(twos);
  EXPECT_EQ(counters[0]->total(), 0) << counters[0]->calls();
  EXPECT_EQ(*placements_of(p.grad()), (Placements{Replicate{}}));
  EXPECT_TRUE(at::allclose(full_tensor(p.grad()), at::full({3}, 2.0)));
}

TEST(Autograd, ThroughDTensorOps) {
  auto mesh = world_mesh();
  torch::manual_seed(0);
  at::Tensor w0 = torch::randn({3, 2});
  at::Tensor x0 = torch::randn({4, 3});
  // Reference on plain tensors.
  at::Tensor w_ref = w0.clone().requires_grad_();
  at::mm(x0, w_ref).tanh().pow(2).sum().backward();

  at::Tensor w = distribute_tensor(w0, mesh, {Replicate{}});
  w.requires_grad_();
  at::Tensor x = distribute_tensor(x0, mesh, {Replicate{}});
  at::Tensor loss = at::mm(x, w).tanh().pow(2).sum();
  ASSERT_TRUE(is_dtensor(loss));
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  ASSERT_TRUE(is_dtensor(w.grad()));
  EXPECT_TRUE(at::allclose(to_local(w.grad()), w_ref.grad()));

  // to_local / from_local / redistribute are differentiable.
  at::Tensor s = distribute_tensor(w0, mesh, {Shard{0}});
  s.requires_grad_();
  at::Tensor g = full_tensor(s);
  (g * g).sum().backward();
  ASSERT_TRUE(is_dtensor(s.grad()));
  EXPECT_TRUE(at::allclose(full_tensor(s.grad()), 2 * w0));
  at::Tensor leaf = at::ones({2}).requires_grad_();
  at::Tensor lifted = from_local(leaf, mesh, {Replicate{}});
  to_local(lifted * 3).sum().backward();
  EXPECT_TRUE(at::allclose(leaf.grad(), at::full({2}, 3.0f)));
}

namespace {

torch::nn::Sequential make_mlp() {
  torch::manual_seed(42);
  return torch::nn::Sequential(
      torch::nn::Linear(4, 16),
      torch::nn::Tanh(),
      torch::nn::Linear(16, 8),
      torch::nn::ReLU(),
      torch::nn::Linear(8, 1));
}

} // namespace

TEST(Module, MlpTrainingMatchesSingleProcess) {
  auto mesh = world_mesh();
  torch::manual_seed(7);
  at::Tensor x = torch::randn({32, 4});
  at::Tensor y = torch::randn({32, 1});

  auto ref = make_mlp();
  torch::optim::SGD ref_opt(
      ref->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  std::vector<float> ref_losses;
  for (int step = 0; step < 6; ++step) {
    ref_opt.zero_grad();
    auto loss = torch::mse_loss(ref->forward(x), y);
    loss.backward();
    ref_opt.step();
    ref_losses.push_back(loss.item<float>());
  }

  auto model = make_mlp();
  distribute_module(*model, mesh);
  EXPECT_NO_THROW(check_fully_distributed(*model));
  for (const auto& p : model->parameters()) {
    EXPECT_TRUE(is_dtensor(p));
    EXPECT_TRUE(p.requires_grad());
  }
  torch::optim::SGD opt(
      model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  at::Tensor xd = distribute_tensor(x, mesh, {Replicate{}});
  at::Tensor yd = distribute_tensor(y, mesh, {Replicate{}});
  for (int step = 0; step < 6; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(xd), yd);
    ASSERT_TRUE(is_dtensor(loss));
    loss.backward();
    opt.step();
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_losses[step], 1e-5)
        << "step " << step;
  }
  EXPECT_LT(ref_losses.back(), ref_losses.front());
}

TEST(Module, CheckFullyDistributedListsPlainParameters) {
  auto mesh = world_mesh();
  auto model = make_mlp();
  MG_EXPECT_THROW_WITH(
      check_fully_distributed(*model), NotDistributedError, "0.weight, 0.bias");
  // Only the first layer: the seed's incomplete wrapping.
  distribute_module(
      *model,
      mesh,
      [](const std::string& name, const at::Tensor&, const DeviceMesh& m) {
        return Placements(m.ndim(), Replicate{});
      });
  EXPECT_NO_THROW(check_fully_distributed(*model));
  auto partial = make_mlp();
  distribute_module(*partial->ptr(0), mesh);
  try {
    check_fully_distributed(*partial);
    FAIL();
  } catch (const NotDistributedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("4 parameter(s)"));
    EXPECT_THAT(e.what(), HasSubstr("2.weight, 2.bias, 4.weight, 4.bias"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("0.weight")));
  }
  // A sharded parameter through partition_fn.
  auto sharded = make_mlp();
  distribute_module(
      *sharded,
      mesh,
      [](const std::string& name, const at::Tensor& p, const DeviceMesh& m) {
        return name == "0.weight" ? Placements{Shard{0}}
                                  : Placements(m.ndim(), Replicate{});
      });
  EXPECT_TRUE(is_shard(
      placements_of(sharded->named_parameters()["0.weight"])->at(0), 0));
  EXPECT_TRUE(at::equal(
      full_tensor(sharded->named_parameters()["0.weight"]),
      make_mlp()->named_parameters()["0.weight"]));
}

// Data parallelism as docs/runtime/module.md describes it: Replicate DTensor
// parameters, each rank computes on its batch shard through to_local(), and
// gradients are averaged with guarded::all_reduce_. Same losses as one
// process on the whole batch.
TEST(Module, DataParallelStepsMatchSingleProcess) {
  auto mesh = world_mesh();
  torch::manual_seed(3);
  const int64_t batch = 8 * world_size();
  at::Tensor x = torch::randn({batch, 4});
  at::Tensor y = torch::randn({batch, 1});
  torch::manual_seed(5);
  std::vector<at::Tensor> init = {
      torch::randn({8, 4}) * 0.5,
      torch::zeros({8}),
      torch::randn({1, 8}) * 0.5,
      torch::zeros({1})};
  auto forward = [](const std::vector<at::Tensor>& p, const at::Tensor& in) {
    return at::linear(at::tanh(at::linear(in, p[0], p[1])), p[2], p[3]);
  };

  std::vector<at::Tensor> ref;
  ref.reserve(init.size());
  for (const auto& t : init) {
    ref.push_back(t.clone().requires_grad_());
  }
  torch::optim::SGD ref_opt(ref, 0.1);
  std::vector<float> ref_losses;
  for (int step = 0; step < 4; ++step) {
    ref_opt.zero_grad();
    auto loss = torch::mse_loss(forward(ref, x), y);
    loss.backward();
    ref_opt.step();
    ref_losses.push_back(loss.item<float>());
  }

  std::vector<at::Tensor> params;
  params.reserve(init.size());
  for (const auto& t : init) {
    params.push_back(
        distribute_tensor(t, mesh, {Replicate{}}).requires_grad_());
  }
  torch::optim::SGD opt(params, 0.1);
  at::Tensor x_local = x.chunk(world_size(), 0)[rank()];
  at::Tensor y_local = y.chunk(world_size(), 0)[rank()];
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    std::vector<at::Tensor> locals;
    locals.reserve(params.size());
    for (const auto& p : params) {
      locals.push_back(to_local(p));
    }
    auto loss = torch::mse_loss(forward(locals, x_local), y_local);
    loss.backward();
    std::vector<at::Tensor> grads;
    for (const auto& p : params) {
      ASSERT_TRUE(is_dtensor(p.grad()));
      grads.push_back(p.grad());
    }
    guarded::all_reduce_(grads, mesh, ReduceOp::AVG);
    opt.step();
    at::Tensor global_loss = loss.detach().clone();
    guarded::all_reduce_({global_loss}, mesh, ReduceOp::AVG);
    EXPECT_NEAR(global_loss.item<float>(), ref_losses[step], 1e-5)
        << "step " << step;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(
        at::allclose(full_tensor(params[i]), ref[i].detach(), 1e-5, 1e-6))
        << "param " << i;
  }
}

// Tensor parallelism (Megatron-style) with the runtime's building blocks:
// a column-parallel Linear (weight Shard(0)) feeding a row-parallel Linear
// (weight Shard(1)) whose partial sums become a Partial DTensor, reduced
// with redistribute. Gradients flow through to_local/from_local/redistribute
// into the sharded DTensor parameters; losses equal one process's.
TEST(Module, TensorParallelMlpMatchesSingleProcess) {
  auto mesh = world_mesh();
  torch::manual_seed(11);
  at::Tensor x = torch::randn({16, 4});
  at::Tensor y = torch::randn({16, 2});
  std::vector<at::Tensor> init = {
      torch::randn({8, 4}) * 0.5,
      torch::randn({8}) * 0.1,
      torch::randn({2, 8}) * 0.5,
      torch::randn({2}) * 0.1};

  std::vector<at::Tensor> ref;
  ref.reserve(init.size());
  for (const auto& t : init) {
    ref.push_back(t.clone().requires_grad_());
  }
  torch::optim::SGD ref_opt(ref, torch::optim::SGDOptions(0.1).momentum(0.5));
  std::vector<float> ref_losses;
  for (int step = 0; step < 4; ++step) {
    ref_opt.zero_grad();
    auto h = at::relu(at::linear(x, ref[0], ref[1]));
    auto loss = torch::mse_loss(at::linear(h, ref[2], ref[3]), y);
    loss.backward();
    ref_opt.step();
    ref_losses.push_back(loss.item<float>());
  }

  const Placements column{Shard{0}}, row{Shard{1}}, replicate{Replicate{}};
  std::vector<at::Tensor> params = {
      distribute_tensor(init[0], mesh, column).requires_grad_(),
      distribute_tensor(init[1], mesh, column).requires_grad_(),
      distribute_tensor(init[2], mesh, row).requires_grad_(),
      distribute_tensor(init[3], mesh, replicate).requires_grad_()};
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.5));
  at::Tensor yd = distribute_tensor(y, mesh, replicate);
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    at::Tensor h_local =
        at::relu(at::linear(x, to_local(params[0]), to_local(params[1])));
    at::Tensor partial_out =
        from_local(at::linear(h_local, to_local(params[2])), mesh, {Partial{}});
    at::Tensor out = redistribute(partial_out, replicate) + params[3];
    at::Tensor loss = torch::mse_loss(out, yd);
    loss.backward();
    opt.step();
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_losses[step], 1e-5)
        << "step " << step;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(*placements_of(params[i].grad()), *placements_of(params[i]))
        << "param " << i;
    EXPECT_TRUE(
        at::allclose(full_tensor(params[i]), ref[i].detach(), 1e-5, 1e-6))
        << "param " << i;
  }
}
