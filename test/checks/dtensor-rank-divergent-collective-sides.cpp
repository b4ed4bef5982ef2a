// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Findings where the user looks (issue #44 item 2): a branch whose sides run
// different collectives is reported at each collective of each side, with
// the condition that depends on the rank, not at the side's first statement
// (a log line, a timer). Positive/negative twins.

#include <cstdio>
#include <meshguard/meshguard.h>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

void logThenCommunicate(const PG &pg, std::vector<at::Tensor> &params,
                        std::vector<at::Tensor> &grads) {
  if (pg->getRank() == 0) {
    std::printf("rank 0: broadcasting parameters\n");
    pg->broadcast(params)->wait();
    pg->barrier()->wait();
  } else {
    std::printf("rank %d: reducing gradients\n", pg->getRank());
    pg->allreduce(grads)->wait();
  }
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::broadcast, c10d::ProcessGroup::barrier; other side: c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::broadcast, c10d::ProcessGroup::barrier; other side: c10d::ProcessGroup::allreduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-12]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-13]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::allreduce; other side: c10d::ProcessGroup::broadcast, c10d::ProcessGroup::barrier): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-15]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-16]]:7: note: the rank-dependent value comes from 'pg->getRank()' here
}

void logThenCommunicateAlike(const PG &pg, std::vector<at::Tensor> &params) {
  if (pg->getRank() == 0) {
    std::printf("rank 0: broadcasting parameters\n");
    pg->broadcast(params)->wait();
  } else {
    std::printf("receiving parameters\n");
    pg->broadcast(params)->wait();
  }
}

void syncStats(const PG &pg, std::vector<at::Tensor> &stats) {
  pg->allreduce(stats)->wait();
}

void switchOnRole(const PG &pg, std::vector<at::Tensor> &t) {
  switch (pg->getRank() % 3) {
  case 0:
    std::printf("role: reducer\n");
    pg->reduce(t)->wait();
    break;
  case 1:
    std::printf("role: stats\n");
    syncStats(pg, t);
    break;
  default:
    pg->reduce(t)->wait();
    break;
  }
  // CHECK-NOTES: :[[@LINE-10]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::reduce; other side: syncStats): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-14]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-15]]:11: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-9]]:5: warning: the sides of a rank-dependent branch run different collectives (syncStats; other side: c10d::ProcessGroup::reduce): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-17]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-18]]:11: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-23]]:3: note: 'syncStats' performs the collective 'c10d::ProcessGroup::allreduce' here
  // CHECK-NOTES: :[[@LINE-10]]:5: warning: the sides of a rank-dependent branch run different collectives (c10d::ProcessGroup::reduce; other side: syncStats): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-21]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-22]]:11: note: the rank-dependent value comes from 'pg->getRank()' here
}

// --- Two adjacent guards on complementary conditions. ------------------------

void complementaryHalves(const PG &pg, std::vector<at::Tensor> &t) {
  const int rank = pg->getRank();
  if (rank % 2 == 1)
    pg->barrier()->wait();
  if (rank % 2 == 0)
    pg->barrier()->wait();
  if (rank == 0) {
    std::printf("root reduces first\n");
    pg->allreduce(t)->wait();
  }
  if (rank != 0)
    pg->allreduce(t)->wait();
}

// The twins: a third of the ranks runs neither; the complementary sides run
// different collectives.
void notComplementary(const PG &pg, std::vector<at::Tensor> &t) {
  const int rank = pg->getRank();
  if (rank % 3 == 1)
    pg->barrier()->wait();
  if (rank % 3 == 0)
    pg->barrier()->wait();
  if (rank == 0)
    pg->barrier()->wait();
  if (rank != 0)
    pg->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-7]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-11]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-10]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-14]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-9]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-11]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-17]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
  // CHECK-NOTES: :[[@LINE-10]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-12]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-20]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
}
