// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Collectives that not every rank reaches hang the job (pytorch#77562,
// #80581, #122903). Positive/negative twins.

#include <cstdlib>
#include <meshguard/meshguard.h>
#include <string>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

// --- Rank-0 checkpoint: the gather must run on every rank. -----------------

void checkpointBad(const DeviceMesh &mesh, const at::Tensor &w) {
  const int64_t rank = mesh.get_rank();
  if (rank == 0) {
    auto full = meshguard::full_tensor(w);
    torch::save(full, "ckpt.pt");
  }
  // CHECK-NOTES: :[[@LINE-3]]:17: warning: collective 'meshguard::full_tensor' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs [dtensor-rank-divergent-collective]
  // CHECK-NOTES: :[[@LINE-5]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:24: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: {{^}}  auto full = meshguard::full_tensor(w);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  if (rank == 0) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}    torch::save(full, "ckpt.pt");{{$}}
}

void checkpointGood(const DeviceMesh &mesh, const at::Tensor &w) {
  const int64_t rank = mesh.get_rank();
  auto full = meshguard::full_tensor(w);
  if (rank == 0)
    torch::save(full, "ckpt.pt");
}

// --- Uniform conditions: world size, step counters, configuration. ---------

void uniformConditions(const DeviceMesh &mesh, at::Tensor w, int step,
                       bool save) {
  if (mesh.size() > 1)
    meshguard::dist::all_reduce_({w});
  if (step % 10 == 0 && save)
    w = meshguard::full_tensor(w);
  for (int i = 0; i < mesh.size(); ++i)
    meshguard::dist::broadcast_({w}, i);
}

// --- A value that went through an all-reduce agrees on every rank. ----------

void earlyStopOnReducedLoss(const DeviceMesh &mesh, at::Tensor w) {
  const int64_t rank = mesh.get_rank();
  for (int step = 0; step < 100; ++step) {
    at::Tensor loss = torch::tensor(double(rank));
    meshguard::dist::all_reduce_({loss});
    if (loss.item<double>() < 0.1)
      break;
    meshguard::dist::all_reduce_({w});
  }
}

void earlyStopOnLocalLoss(const DeviceMesh &mesh, at::Tensor w) {
  const int64_t rank = mesh.get_rank();
  for (int step = 0; step < 100; ++step) {
    at::Tensor loss = torch::tensor(double(rank));
    if (loss.item<double>() < 0.1)
      break;
    meshguard::dist::all_reduce_({w});
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' is skipped by the ranks that leave early through a rank-dependent 'break': the other ranks wait for them and the job hangs
    // CHECK-NOTES: :[[@LINE-4]]:9: note: this condition depends on the rank
    // CHECK-NOTES: :[[@LINE-8]]:24: note: the rank-dependent value comes from 'mesh.get_rank()' here
    // CHECK-NOTES: :[[@LINE-5]]:7: note: some ranks leave here
  }
}

// --- Same sequence on both sides: balanced. ---------------------------------

void sameSequence(const DeviceMesh &mesh, at::Tensor w, at::Tensor g) {
  if (mesh.get_rank() == 0) {
    w = w * 2;
    meshguard::dist::all_reduce_({g});
  } else {
    meshguard::dist::all_reduce_({g});
  }
}

void differentOrder(const DeviceMesh &mesh, at::Tensor w, at::Tensor g) {
  if (mesh.get_rank() % 2 == 0) {
    meshguard::dist::all_reduce_({g});
    meshguard::dist::broadcast_({w}, 0);
  } else {
    meshguard::dist::broadcast_({w}, 0);
    meshguard::dist::all_reduce_({g});
  }
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::all_reduce_, meshguard::dist::broadcast_; other side: meshguard::dist::broadcast_, meshguard::dist::all_reduce_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-8]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-9]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::all_reduce_, meshguard::dist::broadcast_; other side: meshguard::dist::broadcast_, meshguard::dist::all_reduce_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-11]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-12]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-9]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::broadcast_, meshguard::dist::all_reduce_; other side: meshguard::dist::all_reduce_, meshguard::dist::broadcast_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-14]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-15]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-11]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::broadcast_, meshguard::dist::all_reduce_; other side: meshguard::dist::all_reduce_, meshguard::dist::broadcast_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-17]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-18]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// --- Local work only under a rank condition. ---------------------------------

void localWorkOnly(const DeviceMesh &mesh, at::Tensor w) {
  meshguard::dist::all_reduce_({w});
  if (mesh.get_rank() == 0)
    torch::save(w, "w.pt");
}

// --- Environment, process groups, coordinates, fields. -----------------------

void environmentRank(at::Tensor w) {
  int rank = std::atoi(std::getenv("LOCAL_RANK"));
  if (rank != 0)
    return;
  meshguard::dist::all_reduce_({w});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'meshguard::dist::all_reduce_' is skipped by the ranks that leave early through a rank-dependent 'return'
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:24: note: the rank-dependent value comes from 'std::getenv("LOCAL_RANK")' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

void environmentWorldSize(at::Tensor w) {
  int world = std::atoi(std::getenv("WORLD_SIZE"));
  if (world == 1)
    return;
  meshguard::dist::all_reduce_({w});
}

void processGroupRank(c10d::ProcessGroup &pg, std::vector<at::Tensor> &ts) {
  if (pg.getRank() == 0)
    pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::broadcast' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg.getRank()' here
}

struct Trainer {
  explicit Trainer(const DeviceMesh &mesh) : mesh(mesh), row(mesh.coordinate()[0]) {}
  void step(at::Tensor w) {
    if (row == 0)
      w = meshguard::redistribute(w, {Replicate{}});
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: collective 'meshguard::redistribute' runs only on the ranks
    // CHECK-NOTES: :[[@LINE-3]]:9: note: this condition depends on the rank
    // CHECK-NOTES: :[[@LINE-6]]:62: note: the rank-dependent value comes from 'mesh.coordinate()' here
  }
  const DeviceMesh &mesh;
  int64_t row;
};

// --- Loops with a rank-dependent trip count. ---------------------------------

void perRankBatches(const DeviceMesh &mesh, at::Tensor w) {
  int64_t batches = 10 + mesh.get_rank();
  for (int64_t b = 0; b < batches; ++b)
    meshguard::dist::all_reduce_({w});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs in a loop whose trip count differs per rank
  // CHECK-NOTES: :[[@LINE-3]]:23: note: the loop condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:26: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void sameBatches(const DeviceMesh &mesh, at::Tensor w) {
  int64_t batches = 10 * mesh.size();
  for (int64_t b = 0; b < batches; ++b)
    meshguard::dist::all_reduce_({w});
}

// --- Helpers count as the collective they perform. ---------------------------

void saveCheckpoint(const at::Tensor &w) {
  torch::save(meshguard::full_tensor(w), "w.pt");
}

void logOnly(const at::Tensor &w) { torch::save(w, "w.pt"); }

void helperBad(const DeviceMesh &mesh, const at::Tensor &w) {
  if (mesh.get_rank() == 0)
    saveCheckpoint(w);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'saveCheckpoint', which performs the collective 'meshguard::full_tensor', runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-11]]:15: note: 'saveCheckpoint' performs the collective 'meshguard::full_tensor' here
}

void helperGood(const DeviceMesh &mesh, const at::Tensor &w) {
  if (mesh.get_rank() == 0)
    logOnly(w);
}

// A helper's rank-dependent parameter and result.
bool isLogger(int64_t rank) { return rank == 0; }

void rankThroughHelpers(const DeviceMesh &mesh, at::Tensor w) {
  if (isLogger(mesh.get_rank()))
    meshguard::dist::all_reduce_({w});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'isLogger(mesh.get_rank())' here
}

// A helper whose parameter decides is right; its caller passing the rank
// is the mistake, reported at the call (issue #28).
void rankParameter(int64_t rank, at::Tensor w) {
  if (rank == 0)
    meshguard::dist::all_reduce_({w});
}

void callsRankParameter(const DeviceMesh &mesh, at::Tensor w) {
  rankParameter(mesh.get_rank(), w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'rankParameter' runs the collective 'meshguard::dist::all_reduce_' only when its parameter 'rank' says so, and this call passes a value that differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:17: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:17: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-9]]:7: note: inside 'rankParameter', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-9]]:5: note: 'rankParameter' performs the collective 'meshguard::dist::all_reduce_' here
}

void uniformParameter(int64_t world, at::Tensor w) {
  if (world > 1)
    meshguard::dist::all_reduce_({w});
}

void callsUniformParameter(const DeviceMesh &mesh, at::Tensor w) {
  uniformParameter(mesh.size(), w);
}

// --- Implicit collectives: from_local communicates with run_check only. ------

void fromLocal(const DeviceMesh &mesh, const at::Tensor &local) {
  if (mesh.get_rank() == 0) {
    at::Tensor a = meshguard::from_local(local, mesh, {Shard{0}});
    at::Tensor b = meshguard::from_local(local, mesh, {Shard{0}}, false);
  }
  if (mesh.get_rank() == 1)
    meshguard::from_local(local, mesh, {Shard{0}}, /*run_check=*/true);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::from_local' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void checkReplicasAndModules(const DeviceMesh &mesh, torch::nn::Module &m,
                             const at::Tensor &w) {
  const bool first = mesh.get_rank() == 0;
  if (!first) {
    meshguard::check_replicas(w, mesh, "w");
    meshguard::distribute_module(m, mesh);
  }
  // CHECK-NOTES: :[[@LINE-3]]:5: warning: collective 'meshguard::check_replicas' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-5]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:22: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: warning: collective 'meshguard::distribute_module' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-8]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:22: note: the rank-dependent value comes from 'mesh.get_rank()' here
}
