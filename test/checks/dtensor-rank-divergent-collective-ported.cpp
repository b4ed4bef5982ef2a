// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Shapes of the ported corpus (bench/divergence-corpus-ported, issue #28)
// that the first round of fixes still missed or reported wrongly: helpers
// compared by the collectives inside them, nested branches whose sides
// agree, groups and loop bounds that differ, balanced branches on a
// helper's parameter, and the rank reaching a condition through a pointer's
// field, memcpy, an out-parameter or a helper's result. Positive/negative
// twins.

#include <cstring>
#include <meshguard/meshguard.h>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

// --- A helper counts as the collectives inside it. ---------------------------

void syncAll(const PG &pg) { pg->barrier()->wait(); }

void helperOrInline(const PG &pg) {
  if (pg->getRank() % 2)
    syncAll(pg);
  else
    pg->barrier()->wait();
}

void helperOrAllReduce(const PG &pg, std::vector<at::Tensor> &t) {
  if (pg->getRank() % 2)
    syncAll(pg);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (syncAll; other side: c10d::ProcessGroup::allreduce)
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-15]]:30: note: 'syncAll' performs the collective 'c10d::ProcessGroup::barrier' here
  else
    pg->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce; other side: syncAll): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

// --- A nested branch whose sides agree runs its collective once. -------------

void p2pThenAllReduce(const PG &pg, std::vector<at::Tensor> &msg,
                      std::vector<at::Tensor> &stats) {
  const int rank = pg->getRank();
  if (rank == 0) {
    pg->send(msg, 1, 3)->wait();
    pg->allreduce(stats)->wait();
  } else if (rank == 1) {
    pg->recv(msg, 0, 3)->wait();
    pg->allreduce(stats)->wait();
  } else {
    pg->allreduce(stats)->wait();
  }
}

void nestedUnbalanced(const PG &pg, std::vector<at::Tensor> &stats) {
  const int rank = pg->getRank();
  if (rank == 0) {
    pg->allreduce(stats)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce, c10d::ProcessGroup::allreduce, c10d::ProcessGroup::allreduce)
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  } else if (rank == 1) {
    pg->allreduce(stats)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce, c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce)
  // CHECK-NOTES: :[[@LINE-3]]:14: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
    pg->allreduce(stats)->wait();
  } else {
    pg->allreduce(stats)->wait();
  }
  // CHECK-NOTES: :[[@LINE-4]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce, c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-10]]:14: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-17]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::allreduce, c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-13]]:14: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-20]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
}

// --- Same collective, other group, or other loop bounds. ---------------------

void worldOrMeshGroup(const meshguard::DeviceMesh &mesh, const PG &world) {
  if (mesh.get_rank() % 2)
    world->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier; other side: c10d::ProcessGroup::barrier on the dim-0 group of 'mesh')
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  else
    mesh.get_group(0)->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier on the dim-0 group of 'mesh'; other side: c10d::ProcessGroup::barrier): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-8]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-9]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void sameMeshGroup(const meshguard::DeviceMesh &mesh) {
  if (mesh.get_rank() % 2)
    mesh.get_group(0)->barrier()->wait();
  else
    mesh.get_group(0)->barrier()->wait();
}

void loopsWithOtherBounds(const PG &pg) {
  int i = 1, j = 10;
  if (pg->getRank() % 2) {
    while (i < 10) {
      pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier in a loop on 'i<10'; other side: c10d::ProcessGroup::barrier in a loop on 'j<20')
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
      i++;
    }
  } else {
    while (j < 20) {
      pg->barrier()->wait();
      j++;
    }
  }
  // CHECK-NOTES: :[[@LINE-4]]:7: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier in a loop on 'j<20'; other side: c10d::ProcessGroup::barrier in a loop on 'i<10'): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-15]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-16]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void loopsWithSameBounds(const PG &pg, int steps) {
  if (pg->getRank() % 2) {
    for (int i = 0; i < steps; ++i)
      pg->barrier()->wait();
  } else {
    for (int i = 0; i < steps; ++i)
      pg->barrier()->wait();
  }
}

// --- A helper whose branch on its parameter is balanced decides nothing. -----

void reduceEitherWay(const PG &pg, std::vector<at::Tensor> &loss, int rank) {
  if (rank % 2)
    pg->reduce(loss)->wait();
  else
    pg->reduce(loss)->wait();
}

void callsBalancedHelper(const PG &pg, std::vector<at::Tensor> &loss) {
  reduceEitherWay(pg, loss, pg->getRank());
}

// --- The rank through a pointer field, memcpy, an out-parameter, a result. ---

struct Params {
  int mype;
  int nproc;
};

void initParams(Params *P, const PG &pg) {
  P->nproc = pg->getSize();
  P->mype = pg->getRank();
  if (P->nproc > 1)
    pg->barrier()->wait();
  if (P->mype > 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:13: note: the rank-dependent value comes from 'pg->getRank()' here
}

void rankThroughMemcpy(const PG &pg) {
  const int rank = pg->getRank();
  int writer;
  std::memcpy(&writer, &rank, sizeof(int));
  if (writer > 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  int size;
  const int world = pg->getSize();
  std::memcpy(&size, &world, sizeof(int));
  if (size > 1)
    pg->barrier()->wait();
}

void queryRank(const PG &pg, int *out) { *out = pg->getRank(); }
void querySize(const PG &pg, int *out) { *out = pg->getSize(); }

void rankThroughOutParameter(const PG &pg, std::vector<at::Tensor> &g) {
  int me = 0, n = 0;
  queryRank(pg, &me);
  querySize(pg, &n);
  if (n > 1)
    pg->allreduce(g)->wait();
  if (me > 0)
    pg->allreduce(g)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-8]]:3: note: the rank-dependent value comes from 'queryRank(pg, &me)' here
}

int stageOffset(const PG &pg) {
  int z = 12;
  if (pg->getRank() > 0)
    z = 5;
  else
    z = 0;
  return z;
}

int stageCount(const PG &pg) {
  int z = 1;
  if (pg->getSize() > 4)
    z = 2;
  return z;
}

void rankThroughResult(const PG &pg) {
  if (stageCount(pg) > 1)
    pg->barrier()->wait();
  if (stageOffset(pg) > 0)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'stageOffset(pg)' here
}

// --- A 2-D mesh group held in a reference. -----------------------------------

void heldGroup(const meshguard::DeviceMesh &mesh, std::vector<at::Tensor> &g) {
  const auto &dp = mesh.get_group(0);
  if (mesh.coordinate()[1] == 0)
    dp->allreduce(g)->wait();
  if (mesh.coordinate()[0] == 0)
    dp->allreduce(g)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.coordinate()' here
}

// --- From the review of the above. ------------------------------------------

// A recursive helper stands for itself: six barriers against one.
void barriers(const PG &pg, int n) {
  pg->barrier()->wait();
  if (n > 0)
    barriers(pg, n - 1);
}
void recursiveOnRoot(const PG &pg) {
  if (pg->getRank() == 0)
    barriers(pg, 5);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (barriers; other side: c10d::ProcessGroup::barrier)
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-10]]:3: note: 'barriers' performs the collective 'c10d::ProcessGroup::barrier' here
  else
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier; other side: barriers): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

// A collective in an if's init statement or condition variable.
void collectiveInInit(const PG &pg) {
  if (pg->getRank() == 0) {
    if (bool Ok = pg->barrier()->wait(); Ok) {
  // CHECK-NOTES: :[[@LINE-1]]:19: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
    }
  }
}

// Two parameters, each deciding one collective.
void twoDecisions(const PG &pg, std::vector<at::Tensor> &t, bool A, bool B) {
  if (A)
    pg->barrier()->wait();
  if (B)
    pg->allreduce(t)->wait();
}
void secondDecides(const PG &pg, std::vector<at::Tensor> &t) {
  twoDecisions(pg, t, true, pg->getRank() == 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'twoDecisions' runs the collective 'c10d::ProcessGroup::allreduce' only when its parameter 'B' says so, and this call passes a value that differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:29: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:29: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:7: note: inside 'twoDecisions', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-8]]:5: note: 'twoDecisions' performs the collective 'c10d::ProcessGroup::allreduce' here
}
void firstDecides(const PG &pg, std::vector<at::Tensor> &t) {
  twoDecisions(pg, t, pg->getRank() == 0, true);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'twoDecisions' runs the collective 'c10d::ProcessGroup::barrier' only when its parameter 'A' says so, and this call passes a value that differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:23: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-3]]:23: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-18]]:7: note: inside 'twoDecisions', this decides whether the collective runs
  // CHECK-NOTES: :[[@LINE-18]]:5: note: 'twoDecisions' performs the collective 'c10d::ProcessGroup::barrier' here
}
void neitherDecides(const PG &pg, std::vector<at::Tensor> &t) {
  twoDecisions(pg, t, true, pg->getSize() > 1);
}

// Two coordinates mixed are no longer one dim's coordinate.
void mixedCoordinates(const meshguard::DeviceMesh &mesh) {
  int X = mesh.coordinate()[0] + mesh.coordinate()[1];
  if (X == 0)
    mesh.get_group(1)->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:11: note: the rank-dependent value comes from 'mesh.coordinate()[0] + mesh.coordinate()[1]' here
}

// The same loop over another counter, the same condition spaced otherwise.
void sameLoopOtherCounter(const PG &pg, int n) {
  if (pg->getRank() == 0) {
    for (int i = 0; i < n; ++i)
      pg->barrier()->wait();
  } else {
    for (int j = 0; j < n; ++j)
      pg->barrier()->wait();
  }
  if (pg->getRank() == 0) {
    if (n>0)
      pg->barrier()->wait();
  } else {
    if (n > 0)
      pg->barrier()->wait();
  }
}

// A helper on both sides, its deciding parameter given other values.
void maybeSync(const PG &pg, bool Doit) {
  if (Doit)
    pg->barrier()->wait();
}
void helperGivenOtherValues(const PG &pg) {
  if (pg->getRank() == 0)
    maybeSync(pg, true);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier if 'Doit' given Doit = 'true'; other side: c10d::ProcessGroup::barrier if 'Doit' given Doit = 'false')
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: note: 'maybeSync' performs the collective 'c10d::ProcessGroup::barrier' here
  else
    maybeSync(pg, false);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::barrier if 'Doit' given Doit = 'false'; other side: c10d::ProcessGroup::barrier if 'Doit' given Doit = 'true'): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-14]]:5: note: 'maybeSync' performs the collective 'c10d::ProcessGroup::barrier' here
}
void helperGivenSameValue(const PG &pg, bool Flag) {
  if (pg->getRank() == 0)
    maybeSync(pg, Flag);
  else
    maybeSync(pg, Flag);
}
