// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Classic hang shapes from PARCOACH's tests and the MPI Bugs Initiative
// (issue #28), on raw c10d process groups: barriers, collectives in a
// different order, field- and index-sensitive ranks, helpers whose
// parameter decides, 2-D mesh groups, point-to-point. Positive/negative
// twins.

#include <meshguard/meshguard.h>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

// --- Barriers are collectives. -----------------------------------------------

void barrierOnRoot(const PG &pg) {
  if (pg->getRank() == 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void barrierOnEveryRank(const PG &pg) {
  if (pg->getSize() > 1)
    pg->barrier()->wait();
}

void monitoredOnRoot(const PG &pg) {
  if (pg->getRank() == 0)
    pg->monitoredBarrier();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::monitoredBarrier' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void gatherOnRootOnly(const PG &pg, std::vector<std::vector<at::Tensor>> &out,
                      std::vector<at::Tensor> &in) {
  if (pg->getRank() == 0)
    pg->gather(out, in)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::gather' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void gatherEverywhere(const PG &pg, std::vector<std::vector<at::Tensor>> &out,
                      std::vector<at::Tensor> &in) {
  pg->gather(out, in)->wait();
}

// --- The same collectives in a different order. ------------------------------

void swappedOrder(const PG &pg, std::vector<at::Tensor> &t) {
  if (pg->getRank() % 2 == 0) {
    pg->barrier()->wait();
    pg->allreduce(t)->wait();
  } else {
    pg->allreduce(t)->wait();
    pg->barrier()->wait();
  }
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier, c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce, c10d::ProcessGroup::barrier)
  // CHECK-NOTES: :[[@LINE-8]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-9]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier, c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce, c10d::ProcessGroup::barrier): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-11]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-12]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-9]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce, c10d::ProcessGroup::barrier; other side: c10d::ProcessGroup::barrier, c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-14]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-15]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-11]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce, c10d::ProcessGroup::barrier; other side: c10d::ProcessGroup::barrier, c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-17]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-18]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void sameOrder(const PG &pg, std::vector<at::Tensor> &t) {
  if (pg->getRank() % 2 == 0) {
    pg->barrier()->wait();
    pg->allreduce(t)->wait();
  } else {
    pg->barrier()->wait();
    pg->allreduce(t)->wait();
  }
}

// --- Fields and elements are told apart. -------------------------------------

struct Topology {
  int mype;
  int nproc;
};

void conditionOnOwnRank(const PG &pg) {
  Topology topo;
  topo.mype = pg->getRank();
  topo.nproc = pg->getSize();
  if (topo.mype == 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:15: note: the rank-dependent value comes from 'pg->getRank()' here
}

void conditionOnWorldSize(const PG &pg) {
  Topology topo;
  topo.mype = pg->getRank();
  topo.nproc = pg->getSize();
  if (topo.nproc > 1)
    pg->barrier()->wait();
}

void conditionOnRankElement(const PG &pg) {
  int sizes[2];
  sizes[0] = pg->getSize();
  sizes[1] = pg->getRank();
  if (sizes[1] == 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:14: note: the rank-dependent value comes from 'pg->getRank()' here
}

void conditionOnSizeElement(const PG &pg) {
  int sizes[2];
  sizes[0] = pg->getSize();
  sizes[1] = pg->getRank();
  if (sizes[0] > 1)
    pg->barrier()->wait();
}

// Written at a rank-dependent index, every element may differ.
void writtenAtRankIndex(const PG &pg) {
  int flags[8] = {0};
  flags[pg->getRank()] = 1;
  if (flags[0] == 1)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:9: note: the rank-dependent value comes from 'pg->getRank()' here
}

// --- A helper whose parameter decides: the call is the mistake. -------------

void maybeSync(const PG &pg, bool doit) {
  if (doit)
    pg->barrier()->wait();
}

// Passes its own parameter on: the decision moves to its callers.
void maybeSyncTwice(const PG &pg, bool doit) {
  maybeSync(pg, doit);
  maybeSync(pg, doit);
}

void syncOnRankArgument(const PG &pg) {
  maybeSync(pg, pg->getRank() == 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'maybeSync' runs the collective 'c10d::ProcessGroup::barrier' only when its parameter 'doit' says so, and this call passes a value that differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:17: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:17: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-15]]:7: note: inside 'maybeSync', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-15]]:5: note: 'maybeSync' performs the collective 'c10d::ProcessGroup::barrier' here
}

void syncOnRankThroughTwoHelpers(const PG &pg) {
  const bool leader = pg->getRank() == 0;
  maybeSyncTwice(pg, leader);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'maybeSyncTwice' runs the collective 'c10d::ProcessGroup::barrier' only when its parameter 'doit' says so
  // CHECK-NOTES: :[[@LINE-2]]:22: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:23: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-19]]:17: note: inside 'maybeSyncTwice', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-20]]:3: note: 'maybeSyncTwice' performs the collective 'c10d::ProcessGroup::barrier' here
}

void syncOnUniformArgument(const PG &pg) {
  maybeSync(pg, pg->getSize() > 1);
  maybeSyncTwice(pg, true);
}

// An unconditional helper is right; calling it on one rank is not.
void syncAll(const PG &pg) { pg->barrier()->wait(); }

void syncAllOnRoot(const PG &pg) {
  syncAll(pg);
  if (pg->getRank() == 0)
    syncAll(pg);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'syncAll', which performs the collective 'c10d::ProcessGroup::barrier', runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-9]]:30: note: 'syncAll' performs the collective 'c10d::ProcessGroup::barrier' here
}

// A lambda whose parameter decides.
void lambdaOnRankArgument(const PG &pg) {
  auto sync = [&](bool doit) {
    if (doit)
      pg->barrier()->wait();
  };
  sync(true);
  sync(pg->getRank() == 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'lambda' runs the collective 'c10d::ProcessGroup::barrier' only when its parameter 'doit' says so
  // CHECK-NOTES: :[[@LINE-2]]:8: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:8: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:9: note: inside 'lambda', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-8]]:7: note: 'lambda' performs the collective 'c10d::ProcessGroup::barrier' here
}

// --- 2-D meshes: a dim-0 group shares its dim-1 coordinate. -----------------

void rowGroupOnColumnCondition(const meshguard::DeviceMesh &mesh,
                               std::vector<at::Tensor> &t) {
  if (mesh.coordinate()[1] == 0)
    mesh.get_group(0)->allreduce(t)->wait();
  const int64_t col = mesh.get_local_rank(1);
  if (col == 0)
    mesh.get_group(0)->barrier()->wait();
}

void rowGroupOnRowCondition(const meshguard::DeviceMesh &mesh,
                            std::vector<at::Tensor> &t) {
  if (mesh.coordinate()[0] == 0)
    mesh.get_group(0)->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.coordinate()' here
}

void rowGroupOnColumnAndRank(const meshguard::DeviceMesh &mesh,
                             std::vector<at::Tensor> &t) {
  if (mesh.coordinate()[1] == 0 || mesh.get_rank() == 3)
    mesh.get_group(0)->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:36: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// --- Point to point is not a collective. ------------------------------------

void gatherByHand(const PG &pg, std::vector<at::Tensor> &t) {
  if (pg->getRank() == 0) {
    for (int r = 1; r < pg->getSize(); ++r)
      pg->recv(t, r, 0)->wait();
  } else {
    pg->send(t, 0, 0)->wait();
  }
  pg->barrier()->wait();
}
