// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Lambdas, macros, templates, implicit flows and ?: for
// dtensor-rank-divergent-collective. Positive/negative twins.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;

// --- Lambdas: a call of a lambda that communicates is that collective. ------

void lambdaCalledOnRank0(const DeviceMesh &mesh, at::Tensor loss) {
  auto report = [&] { meshguard::dist::all_reduce_({loss}); };
  if (mesh.get_rank() == 0)
    report();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'lambda', which performs the collective 'meshguard::dist::all_reduce_', runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-6]]:23: note: 'lambda' performs the collective 'meshguard::dist::all_reduce_' here
}

void lambdaCalledEverywhere(const DeviceMesh &mesh, at::Tensor loss) {
  auto report = [&] { meshguard::dist::all_reduce_({loss}); };
  report();
}

// A captured rank decides inside the lambda.
void lambdaCapturesRank(const DeviceMesh &mesh, at::Tensor w) {
  const int64_t rank = mesh.get_rank();
  auto save = [&] {
    if (rank == 0)
      w = meshguard::full_tensor(w);
  };
  // CHECK-NOTES: :[[@LINE-2]]:11: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-4]]:9: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:24: note: the rank-dependent value comes from 'mesh.get_rank()' here
  save();
}

void lambdaCapturesWorld(const DeviceMesh &mesh, at::Tensor w) {
  const int64_t world = mesh.size();
  auto save = [&] {
    if (world > 1)
      w = meshguard::full_tensor(w);
  };
  save();
}

// --- Macros: reported at the macro's use. ------------------------------------

#define ON_MAIN(mesh, stmt)                                                    \
  do {                                                                         \
    if ((mesh).get_rank() == 0) {                                              \
      stmt;                                                                    \
    }                                                                          \
  } while (0)

void macroBad(const DeviceMesh &mesh, const at::Tensor &w) {
  ON_MAIN(mesh, torch::save(meshguard::full_tensor(w), "w.pt"));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-2]]:3: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-9]]:9: note: expanded from macro 'ON_MAIN'
  // CHECK-NOTES: :[[@LINE-4]]:3: note: the rank-dependent value comes from this expression here
  // CHECK-NOTES: :[[@LINE-11]]:9: note: expanded from macro 'ON_MAIN'
}

void macroGood(const DeviceMesh &mesh, const at::Tensor &w) {
  at::Tensor full = meshguard::full_tensor(w);
  ON_MAIN(mesh, torch::save(full, "w.pt"));
}

// --- Templates: each instantiation is analysed, reported once. ---------------

template <typename T> void snapshot(const DeviceMesh &mesh, const T &w) {
  if (mesh.get_rank() == 0)
    torch::save(meshguard::full_tensor(w), "snap.pt");
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

template <typename T> void snapshotEverywhere(const DeviceMesh &mesh, const T &w) {
  at::Tensor full = meshguard::full_tensor(w);
  if (mesh.get_rank() == 0)
    torch::save(full, "snap.pt");
}

void instantiate(const DeviceMesh &mesh, const at::Tensor &w) {
  snapshot(mesh, w);
  snapshot<at::Tensor>(mesh, w);
  snapshotEverywhere(mesh, w);
}

// --- Implicit flow: a count changed under a rank-dependent condition. --------

void unevenBatches(const DeviceMesh &mesh, int64_t total, at::Tensor g) {
  int64_t mine = total / mesh.size();
  if (mesh.get_rank() < total % mesh.size())
    mine += 1;
  for (int64_t b = 0; b < mine; ++b)
    meshguard::dist::all_reduce_({g});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs in a loop whose trip count differs per rank
  // CHECK-NOTES: :[[@LINE-3]]:23: note: the loop condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void evenBatches(const DeviceMesh &mesh, int64_t total, at::Tensor g) {
  int64_t mine = total / mesh.size();
  if (mesh.size() > 4)
    mine += 1;
  for (int64_t b = 0; b < mine; ++b)
    meshguard::dist::all_reduce_({g});
}

// --- ?: and short-circuit conditions. ----------------------------------------

at::Tensor ternaryBad(const DeviceMesh &mesh, const at::Tensor &w) {
  return mesh.get_rank() == 0 ? meshguard::full_tensor(w) : w;
  // CHECK-NOTES: :[[@LINE-1]]:33: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-2]]:10: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:10: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

at::Tensor ternaryBalanced(const DeviceMesh &mesh, const at::Tensor &w,
                           const at::Tensor &v) {
  return mesh.get_rank() == 0 ? meshguard::full_tensor(w)
                              : meshguard::full_tensor(v);
}

// --- The fix-it is withheld when hoisting is not safe. ----------------------

void noFixOperandWrittenFirst(const DeviceMesh &mesh, at::Tensor w) {
  if (mesh.get_rank() == 0) {
    w = w * 2;
    auto full = meshguard::full_tensor(w);
    torch::save(full, "w.pt");
  }
  // CHECK-NOTES: :[[@LINE-3]]:17: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-6]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: {{^}}    auto full = meshguard::full_tensor(w);{{$}}
}

void noFixWithElse(const DeviceMesh &mesh, at::Tensor w) {
  if (mesh.get_rank() == 0) {
    auto full = meshguard::full_tensor(w);
    torch::save(full, "w.pt");
  } else {
    torch::save(w, "local.pt");
  }
  // CHECK-NOTES: :[[@LINE-5]]:17: warning: collective 'meshguard::full_tensor' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-7]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-8]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: {{^}}    auto full = meshguard::full_tensor(w);{{$}}
}
