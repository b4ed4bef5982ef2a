// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Rank dependence is about control, not data (issue #44 item 3): tensor
// values differ per rank by design (gradients, local shards, losses before
// their reduction) and decide only where a branch reads them; a tensor's
// definedness and shape, a module's parameter list, an aggregate's other
// fields, the other coordinate of a 2-D mesh and a distributed sampler's
// trip count are the same on every rank. Positive/negative twins.

#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
namespace dist = meshguard::dist;

// --- Gradients and losses differ per rank; what they are does not. ---------

struct Net : torch::nn::Module {
  at::Tensor forward(const at::Tensor &x);
};

void allreduceGrads(torch::nn::Module &model) {
  for (auto &p : model.parameters())
    if (p.grad().defined())
      dist::all_reduce_({p.grad()}, meshguard::ReduceOp::AVG);
}

void syncIfDefined(const at::Tensor &t) {
  if (t.defined() && t.numel() > 0)
    dist::all_reduce_({t});
}

void syncIfPositive(const at::Tensor &t) {
  if (t.item<float>() > 0)
    dist::all_reduce_({t});
}

void dataParallelStep(const DeviceMesh &mesh, Net &model, at::Tensor batch) {
  at::Tensor shard = batch * at::full({1}, mesh.get_rank());
  at::Tensor loss = model.forward(shard).sum();
  allreduceGrads(model);
  syncIfDefined(loss);
  // The twins: a branch that reads the local loss's value.
  syncIfPositive(loss);
  if (loss.item<float>() > 10.0f)
    dist::all_reduce_({loss});
  // CHECK-NOTES: :[[@LINE-3]]:3: warning: 'syncIfPositive' runs the collective 'meshguard::dist::all_reduce_' only when its parameter 't' says so, and this call passes a value that differs per rank: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:18: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:44: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-16]]:7: note: inside 'syncIfPositive', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-16]]:5: note: 'syncIfPositive' performs the collective 'meshguard::dist::all_reduce_' here
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-8]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-15]]:44: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// --- Aggregates: each field its own fact. ------------------------------------

struct DistInfo {
  int64_t rank;
  int64_t world;
};

DistInfo distInfo(const DeviceMesh &mesh) {
  return DistInfo{mesh.get_rank(), mesh.size()};
}

void aggregateInit(const DeviceMesh &mesh, at::Tensor metric) {
  DistInfo info{mesh.get_rank(), mesh.size()};
  if (info.world > 1)
    dist::all_reduce_({metric});
  if (info.rank == 0)
    dist::all_reduce_({metric});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-11]]:19: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void returnedStruct(const DeviceMesh &mesh, at::Tensor metric) {
  const DistInfo info = distInfo(mesh);
  if (info.world > 1)
    dist::all_reduce_({metric});
  if (info.rank == 0)
    dist::all_reduce_({metric});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-22]]:19: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

struct Topology {
  Topology(int64_t r, int64_t w) : rank(r), world(w) {}
  bool isRoot() const { return rank == 0; }
  int64_t rank;
  int64_t world;
};

void constructedStruct(const DeviceMesh &mesh, at::Tensor metric) {
  Topology topo(mesh.get_rank(), mesh.size());
  if (topo.world > 1)
    dist::all_reduce_({metric});
  if (topo.isRoot())
    dist::all_reduce_({metric});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'topo.isRoot()' here
}

// --- mesh_dim on a 2-D mesh: the other coordinate is the group's own. -------

void otherCoordinate(const DeviceMesh &mesh, at::Tensor grad, at::Tensor w) {
  // Rows of the (dp, tp) mesh: every member of a tp group (dim 1) has the
  // same dp coordinate.
  if (mesh.get_local_rank(0) == 0)
    dist::all_reduce_({grad}, meshguard::ReduceOp::SUM, /*mesh_dim=*/1);
  if (mesh.coordinate()[1] == 0)
    meshguard::guarded::broadcast_({w}, mesh, 0, /*mesh_dim=*/0);
  // The twins: the coordinate along the group's own dim.
  if (mesh.get_local_rank(1) == 0)
    dist::all_reduce_({grad}, meshguard::ReduceOp::SUM, /*mesh_dim=*/1);
  if (mesh.coordinate()[0] == 0)
    dist::all_reduce_({grad});
  // CHECK-NOTES: :[[@LINE-3]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-5]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:7: note: the rank-dependent value comes from 'mesh.get_local_rank(1)' here
  // CHECK-NOTES: :[[@LINE-4]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-6]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:7: note: the rank-dependent value comes from 'mesh.coordinate()' here
}

// --- Distributed samplers: one trip count on every rank. --------------------

void trainEpochs(const DeviceMesh &mesh, Net &model, size_t epochs) {
  const size_t rank = mesh.get_rank();
  const size_t world = mesh.size();
  auto dataset = torch::data::datasets::MNIST("./data").map(
      torch::data::transforms::Stack<>());
  const size_t n = dataset.size().value();
  torch::data::samplers::DistributedRandomSampler sampler(n, world, rank,
                                                          false);
  auto loader =
      torch::data::make_data_loader(std::move(dataset), sampler, 64);
  for (size_t epoch = 0; epoch < epochs; ++epoch) {
    sampler.set_epoch(epoch);
    for (auto &batch : *loader) {
      at::Tensor loss = model.forward(batch.data).sum();
      for (auto &p : model.parameters())
        dist::all_reduce_({p.grad()}, meshguard::ReduceOp::AVG);
    }
  }
}

void evaluate(const DeviceMesh &mesh, Net &model) {
  auto dataset = torch::data::datasets::MNIST(
      "./data", torch::data::datasets::MNIST::Mode::kTest);
  const size_t n = dataset.size().value();
  auto loader = torch::data::make_data_loader(
      std::move(dataset),
      torch::data::samplers::DistributedSequentialSampler(n, mesh.size(),
                                                          mesh.get_rank()),
      torch::data::DataLoaderOptions().batch_size(128));
  for (auto &batch : *loader) {
    at::Tensor correct = model.forward(batch.data).sum();
    dist::all_reduce_({correct});
  }
}

// The twin: each rank counts its own share of the batches.
void trainOwnShare(const DeviceMesh &mesh, Net &model, int64_t batches) {
  const int64_t rank = mesh.get_rank();
  const int64_t mine = (batches - rank + mesh.size() - 1) / mesh.size();
  for (int64_t step = 0; step < mine; ++step)
    for (auto &p : model.parameters())
      dist::all_reduce_({p.grad()}, meshguard::ReduceOp::AVG);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: collective 'meshguard::dist::all_reduce_' runs in a loop whose trip count differs per rank: the ranks call it a different number of times and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:26: note: the loop condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:24: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// --- A rank condition that holds on every rank. ------------------------------

void guardHoldsEverywhere(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                          std::vector<at::Tensor> &grads) {
  const int rank = pg->getRank();
  const int nprocs = pg->getSize();
  if (rank < nprocs) {
    pg->barrier()->wait();
    pg->allreduce(grads)->wait();
  }
  if (pg->getRank() >= 0)
    pg->barrier()->wait();
  // The twin: the last rank skips it.
  if (rank < nprocs - 1)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-13]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
}

// --- A module's structure is the same on every rank; its values are not. ----

void syncWhileTraining(torch::nn::Module &m) {
  if (m.is_training() && !m.parameters().empty())
    for (auto &p : m.parameters())
      dist::all_reduce_({p.grad()}, meshguard::ReduceOp::AVG);
}

void syncIfFirstWeightPositive(torch::nn::Module &m) {
  if (m.parameters()[0].item<float>() > 0)
    dist::all_reduce_({m.parameters()[0]});
}

void moduleAfterLocalStep(const DeviceMesh &mesh, Net &model, at::Tensor x) {
  at::Tensor loss = model.forward(x * at::full({1}, mesh.get_rank())).sum();
  syncWhileTraining(model);
  // The twin: the helper reads a parameter's value, which differs per rank.
  syncIfFirstWeightPositive(model);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'syncIfFirstWeightPositive' runs the collective 'meshguard::dist::all_reduce_' only when its parameter 'm' says so, and this call passes a value that differs per rank: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-2]]:29: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:53: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-12]]:7: note: inside 'syncIfFirstWeightPositive', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-12]]:5: note: 'syncIfFirstWeightPositive' performs the collective 'meshguard::dist::all_reduce_' here
}
