// Tensor-parallel styles (Parallelize.h) on real Gloo ranks: a Colwise +
// Rowwise MLP trains like one process, with the analytical minimum of
// collectives; embeddings; one dimension of a 2x2 mesh; bad plans.

#include <torch/torch.h>

#include "CountingGroup.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

struct MlpImpl : torch::nn::Module {
  MlpImpl(int64_t in, int64_t hidden, int64_t out)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, out))) {}
  // parallel_forward is the plain forward on a module without a style.
  at::Tensor forward(const at::Tensor& x) {
    return parallel_forward(fc2, at::relu(parallel_forward(fc1, x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

struct EmbeddingMlpImpl : torch::nn::Module {
  EmbeddingMlpImpl(int64_t vocab, int64_t dim, int64_t out)
      : emb(register_module("emb", torch::nn::Embedding(vocab, dim))),
        mlp(register_module("mlp", Mlp(dim, 12, out))) {}
  at::Tensor forward(const at::Tensor& idx) {
    return mlp->forward(parallel_forward(emb, idx)).mean(1);
  }
  torch::nn::Embedding emb;
  Mlp mlp;
};
TORCH_MODULE(EmbeddingMlp);

// A pre-norm residual MLP over [batch, seq, 8] whose positions, under
// sequence parallelism, are split across the ranks between the layers:
// forward takes and returns the whole tensor so that it trains against a
// one-process copy.
struct SeqBlockImpl : torch::nn::Module {
  SeqBlockImpl()
      : ln(register_module(
            "ln",
            torch::nn::LayerNorm(torch::nn::LayerNormOptions({8})))),
        fc1(register_module("fc1", torch::nn::Linear(8, 16))),
        fc2(register_module("fc2", torch::nn::Linear(16, 8))) {}
  at::Tensor forward(const at::Tensor& whole) {
    at::Tensor x = mesh
        ? whole.chunk(mesh->size(), 1)[mesh->get_rank()].contiguous()
        : whole;
    at::Tensor y =
        x +
        parallel_forward(
            fc2, at::relu(parallel_forward(fc1, parallel_forward(ln, x))));
    return mesh ? full_tensor(from_local(y, *mesh, {Shard{1}})) : y;
  }
  torch::nn::LayerNorm ln;
  torch::nn::Linear fc1, fc2;
  std::optional<DeviceMesh> mesh; // set: sequence parallel
};
TORCH_MODULE(SeqBlock);

struct StepCounts {
  int64_t forward = 0, backward = 0, optimizer = 0;
};

// Trains `model` and `ref` (same initial values) for `steps` SGD-momentum
// steps on the same data; returns the collectives of the last step.
template <typename M, typename Input>
StepCounts train_and_compare(
    M& model,
    M& ref,
    const Input& x,
    const at::Tensor& y,
    int steps,
    const std::vector<c10::intrusive_ptr<CountingGroup>>& counters) {
  auto opts = torch::optim::SGDOptions(0.05).momentum(0.9);
  torch::optim::SGD opt(model->parameters(), opts),
      ref_opt(ref->parameters(), opts);
  auto collectives = [&] {
    int64_t n = 0;
    for (const auto& c : counters) {
      n += c->total();
    }
    return n;
  };
  StepCounts counts;
  for (int step = 0; step < steps; ++step) {
    ref_opt.zero_grad();
    at::Tensor ref_loss = torch::mse_loss(ref->forward(x), y);
    ref_loss.backward();
    ref_opt.step();

    for (const auto& c : counters) {
      c->reset();
    }
    opt.zero_grad();
    at::Tensor out = model->forward(x);
    at::Tensor loss =
        torch::mse_loss(is_dtensor(out) ? full_tensor(out) : out, y);
    counts.forward = collectives();
    loss.backward();
    counts.backward = collectives() - counts.forward;
    opt.step();
    counts.optimizer = collectives() - counts.forward - counts.backward;
    EXPECT_NEAR(loss.item<float>(), ref_loss.item<float>(), 1e-5)
        << "step " << step;
  }
  return counts;
}

} // namespace

// Megatron's MLP: fc1 column-wise, fc2 row-wise. Forward needs one
// all-reduce (fc2's partial sums), backward none (the input needs no
// gradient), the optimizer none: the analytical minimum.
TEST(Parallel, ColwiseRowwiseMlpTrainsLikeOneProcess) {
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  torch::manual_seed(5);
  Mlp model(8, 16, 4), ref(8, 16, 4);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  parallelize_module(
      *model, mesh, {{"fc1", ColwiseParallel{}}, {"fc2", RowwiseParallel{}}});
  check_fully_distributed(*model);
  EXPECT_EQ(*placements_of(model->fc1->weight), (Placements{Shard{0}}));
  EXPECT_EQ(*placements_of(model->fc1->bias), (Placements{Shard{0}}));
  EXPECT_EQ(*placements_of(model->fc2->weight), (Placements{Shard{1}}));
  EXPECT_EQ(*placements_of(model->fc2->bias), (Placements{Replicate{}}));
  at::Tensor x = torch::randn({16, 8}), y = torch::randn({16, 4});
  StepCounts c = train_and_compare(model, ref, x, y, 30, counters);
  EXPECT_EQ(c.forward, 1);
  EXPECT_EQ(c.backward, 0);
  EXPECT_EQ(c.optimizer, 0);
  // The one collective is an all-reduce of the output, [16, 4] floats.
  counters[0]->reset();
  at::Tensor out = model->forward(x);
  EXPECT_EQ(counters[0]->all_reduces.load(), 1);
  EXPECT_EQ(counters[0]->bytes.load(), 16 * 4 * 4);
  // The output is the local tensor of a Replicate DTensor: plain, full.
  EXPECT_FALSE(is_dtensor(out));
  EXPECT_EQ(out.sizes(), (c10::IntArrayRef{16, 4}));
  // The gradients land with the parameters' placements.
  EXPECT_EQ(*placements_of(model->fc1->weight.grad()), (Placements{Shard{0}}));
  EXPECT_EQ(*placements_of(model->fc2->weight.grad()), (Placements{Shard{1}}));
}

// use_local_output = false: DTensors out; output_layouts Shard(0) for the
// row-wise layer (a reduce-scatter's worth: the rows are sharded).
TEST(Parallel, DTensorOutputsAndOtherLayouts) {
  auto mesh = world_mesh();
  torch::manual_seed(6);
  Mlp model(8, 16, 4), ref(8, 16, 4);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  ColwiseParallel col;
  col.use_local_output = false;
  RowwiseParallel row;
  row.output_layouts = Shard{0};
  row.use_local_output = false;
  parallelize_module(*model, mesh, {{"fc1", col}, {"fc2", row}});
  at::Tensor x = torch::randn({10, 8}), y = torch::randn({10, 4});
  at::Tensor out = model->forward(x);
  ASSERT_TRUE(is_dtensor(out));
  EXPECT_EQ(*placements_of(out), (Placements{Shard{0}}));
  EXPECT_TRUE(at::allclose(full_tensor(out), ref->forward(x), 1e-5, 1e-6));
  train_and_compare(model, ref, x, y, 5, {});
}

// An embedding row-wise (its output all-reduced), then the MLP; and a
// column-wise embedding feeding a row-wise linear directly.
TEST(Parallel, EmbeddingStylesTrainLikeOneProcess) {
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  // Seeded: the plain inputs must be the same on every rank (the generator's
  // state is not guaranteed equal across ranks before).
  torch::manual_seed(17);
  at::Tensor idx = torch::randint(0, 11, {6, 5});
  at::Tensor y = torch::randn({6, 3});
  for (bool rowwise_embedding : {true, false}) {
    SCOPED_TRACE(
        rowwise_embedding ? "row-wise embedding" : "column-wise embedding");
    torch::manual_seed(7);
    EmbeddingMlp model(11, 8, 3), ref(11, 8, 3);
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < ref->parameters().size(); ++i) {
        ref->parameters()[i].copy_(model->parameters()[i]);
      }
    }
    if (rowwise_embedding) {
      parallelize_module(
          *model,
          mesh,
          {{"emb", RowwiseParallel{}},
           {"mlp.fc1", ColwiseParallel{}},
           {"mlp.fc2", RowwiseParallel{}}});
      EXPECT_EQ(*placements_of(model->emb->weight), (Placements{Shard{0}}));
    } else {
      ColwiseParallel col; // output Shard(-1) stays a DTensor for fc1
      col.use_local_output = false;
      parallelize_module(
          *model, mesh, {{"emb", col}, {"mlp.fc1", RowwiseParallel{}}});
      EXPECT_EQ(*placements_of(model->emb->weight), (Placements{Shard{1}}));
    }
    StepCounts c = train_and_compare(model, ref, idx, y, 30, counters);
    if (rowwise_embedding) {
      // Forward: the embedding's and fc2's partial sums; backward: fc1's
      // input gradient (partial sums) for the embedding.
      EXPECT_EQ(c.forward, 2);
      EXPECT_EQ(c.backward, 1);
    } else {
      EXPECT_EQ(c.forward, 1);
      EXPECT_EQ(c.backward, 0);
    }
    EXPECT_EQ(c.optimizer, 0);
  }
}

// Tensor parallelism on dimension 1 of a 2x2 mesh (PyTorch's mesh["tp"]):
// the collectives run on that dimension's groups only.
TEST(Parallel, OneDimensionOfTwoByTwoMesh) {
  ASSERT_EQ(world_size(), 4);
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(init_device_mesh("cpu", {2, 2}), counters);
  auto tp = mesh_dim_mesh(mesh, 1);
  EXPECT_EQ(tp.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(tp.mesh(), mesh.group_ranks(1));
  torch::manual_seed(8);
  Mlp model(8, 16, 4), ref(8, 16, 4);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  parallelize_module(
      *model, tp, {{"fc1", ColwiseParallel{}}, {"fc2", RowwiseParallel{}}});
  EXPECT_EQ(
      counters[1]->broadcasts.load(),
      4); // distribute_tensor: rank 0's parameters win
  counters[1]->reset();
  at::Tensor x = torch::randn({16, 8}), y = torch::randn({16, 4});
  std::vector<c10::intrusive_ptr<CountingGroup>> none;
  train_and_compare(model, ref, x, y, 30, none);
  EXPECT_EQ(counters[0]->total(), 0);
  EXPECT_EQ(counters[1]->all_reduces.load(), 30); // one per step
  EXPECT_EQ(counters[1]->total(), 30);
}

// Megatron's sequence parallelism: the norm on this rank's positions
// (SequenceParallel), fc1 gathers them (input_layouts Shard(1)), fc2
// reduce-scatters back to them (output_layouts Shard(1)).
TEST(Parallel, SequenceParallelTrainsLikeOneProcess) {
  auto mesh = world_mesh();
  torch::manual_seed(6);
  SeqBlock model, ref;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  ColwiseParallel fc1;
  fc1.input_layouts = Shard{1};
  RowwiseParallel fc2;
  fc2.output_layouts = Shard{1};
  parallelize_module(
      *model, mesh, {{"ln", SequenceParallel{}}, {"fc1", fc1}, {"fc2", fc2}});
  model->mesh = mesh;
  EXPECT_EQ(*placements_of(model->ln->weight), (Placements{Replicate{}}));
  EXPECT_EQ(*placements_of(model->fc1->weight), (Placements{Shard{0}}));
  at::Tensor x = torch::randn({3, 2 * mesh.size(), 8}),
             y = torch::randn({3, 2 * mesh.size(), 8});
  train_and_compare(model, ref, x, y, 10, {});
}

// The prepare styles convert one side of any module and leave its
// parameters alone.
TEST(Parallel, PrepareModuleInputAndOutput) {
  auto mesh = world_mesh();
  const int64_t k = mesh.size();
  at::Tensor whole = at::arange(2 * k * 3, at::kFloat).view({2 * k, 3});
  at::Tensor mine = whole.chunk(k, 0)[mesh.get_rank()];
  torch::nn::Identity pre, post, passes;
  PrepareModuleInput in;
  in.input_layouts = Shard{0};
  in.desired_input_layouts = Replicate{};
  parallelize_module(*pre, mesh, in);
  at::Tensor gathered = parallel_forward(pre, mine);
  ASSERT_TRUE(is_dtensor(gathered));
  EXPECT_EQ(*placements_of(gathered), (Placements{Replicate{}}));
  EXPECT_TRUE(at::equal(to_local(gathered), whole));
  PrepareModuleOutput out;
  out.output_layouts = Shard{0};
  out.desired_output_layouts = Replicate{};
  parallelize_module(*post, mesh, out);
  at::Tensor back = parallel_forward(post, mine); // plain: use_local_output
  EXPECT_FALSE(is_dtensor(back));
  EXPECT_TRUE(at::equal(back, whole));
  parallelize_module(
      *passes,
      mesh,
      PrepareModuleInput{}); // no input_layouts: the input passes as it is
  EXPECT_TRUE(parallel_forward(passes, mine).is_same(mine));
}

// Plan keys as PyTorch reads them: dotted paths of fnmatch patterns; a key
// that names nothing is skipped with PyTorch's warning.
TEST(Parallel, PlanKeysArePatternsAsInPyTorch) {
  auto mesh = world_mesh();
  EmbeddingMlp model(10, 8, 4);
  ::testing::internal::CaptureStderr();
  parallelize_module(
      *model,
      mesh,
      {{"mlp.fc3", RowwiseParallel{}}, {"lm_head", ColwiseParallel{}}});
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(
      warned.find(
          "Parallelize plan key 'mlp.fc3' could not be resolved: no submodule matching token 'fc3'"),
      std::string::npos)
      << warned;
  EXPECT_NE(
      warned.find("plan key 'lm_head' could not be resolved"),
      std::string::npos)
      << warned;
  EXPECT_FALSE(is_dtensor(model->mlp->fc1->weight));
  parallelize_module(
      *model,
      mesh,
      {{"*.fc[1]", ColwiseParallel{}}, {"m?p.f*2", RowwiseParallel{}}});
  EXPECT_EQ(placements_of(model->mlp->fc1->weight)->at(0), Placement(Shard{0}));
  EXPECT_EQ(placements_of(model->mlp->fc2->weight)->at(0), Placement(Shard{1}));
  EXPECT_FALSE(is_dtensor(model->emb->weight));
}

TEST(Parallel, BadPlansAreErrorsAndChangeNothing) {
  auto mesh = world_mesh();
  Mlp model(8, 16, 4);
  MG_EXPECT_THROW_WITH(
      parallelize_module(
          *model,
          mesh,
          {{"fc1", ColwiseParallel{}},
           {"fc2", ColwiseParallel{}},
           {"fc?", RowwiseParallel{}}}),
      PlacementError,
      "the plan names 'fc1' twice (key 'fc?')");
  EXPECT_FALSE(
      is_dtensor(model->fc1->weight)); // checked before anything changed
  MG_EXPECT_THROW_WITH(
      parallelize_module(*model, mesh, ColwiseParallel{}),
      PlacementError,
      "applies to torch::nn::Linear and torch::nn::Embedding only");
  MG_EXPECT_THROW_WITH(
      parallelize_module(
          *model,
          mesh,
          {{"fc1", ColwiseParallel{}}, {"fc1", RowwiseParallel{}}}),
      PlacementError,
      "names 'fc1' twice");
  if (world_size() == 4) {
    auto mesh2 = init_device_mesh("cpu", {2, 2});
    MG_EXPECT_THROW_WITH(
        parallelize_module(*model, mesh2, {{"fc1", ColwiseParallel{}}}),
        PlacementError,
        "runs on a 1-D mesh");
  }
  parallelize_module(*model, mesh, {{"fc1", ColwiseParallel{}}});
  MG_EXPECT_THROW_WITH(
      parallelize_module(*model, mesh, {{"fc1", RowwiseParallel{}}}),
      PlacementError,
      "already is a DTensor");
}
