// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Subgroup membership (issue #44, cause (3) of its real-code findings): the
// ranks outside a subgroup hold no handle to it (splitGroup gives them
// nullptr) or leave before the members build it; the members then run the
// subgroup's collective together. A collective on another group after the
// same test is still reported. Positive/negative twins.

#include <algorithm>
#include <cstdlib>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

// --- splitGroup: nullptr outside the subgroup. -------------------------------

void pairAllreduce(const PG &world, std::vector<at::Tensor> &t) {
  auto pairs = world->splitGroup({0, 1});
  if (!pairs)
    return;
  pairs->allreduce(t)->wait();
}

void pairThenWorld(const PG &world, std::vector<at::Tensor> &t) {
  auto pairs = world->splitGroup({0, 1});
  if (!pairs)
    return;
  world->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d::ProcessGroup::allreduce' is skipped by the ranks that leave early through a rank-dependent 'return': the other ranks wait for them and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:16: note: the rank-dependent value comes from 'world->splitGroup({0, 1})' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

void pairIfMember(const PG &world, std::vector<at::Tensor> &t) {
  PG pairs = world->splitGroup({0, 1});
  if (pairs != nullptr)
    pairs->broadcast(t)->wait();
  if (pairs != nullptr)
    world->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:14: note: the rank-dependent value comes from 'world->splitGroup({0, 1})' here
}

// --- The members build the subgroup after the others left. -------------------

void firstRanksGroup(const PG &world, const std::string &path, int n,
                     std::vector<at::Tensor> &t) {
  const int rank = world->getRank();
  if (rank >= n)
    return;
  auto store = c10::make_intrusive<c10d::FileStore>(path, n);
  auto sub = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, n);
  sub->allreduce(t)->wait();
}

void firstRanksOnWorld(const PG &world, int n, std::vector<at::Tensor> &t) {
  const int rank = world->getRank();
  if (rank >= n)
    return;
  world->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d::ProcessGroup::barrier' is skipped by the ranks that leave early through a rank-dependent 'return': the other ranks wait for them and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:20: note: the rank-dependent value comes from 'world->getRank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

// A copy of the world group is no subgroup of the ranks that pass.
void firstRanksOnWorldCopy(const PG &world, int n, std::vector<at::Tensor> &t) {
  const int rank = world->getRank();
  if (rank < n) {
    PG group = world;
    group->allreduce(t)->wait();
  }
  // CHECK-NOTES: :[[@LINE-2]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-5]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:20: note: the rank-dependent value comes from 'world->getRank()' here
}

void envRankSubgroup(const std::string &path, std::vector<at::Tensor> &t) {
  const int rank = std::atoi(std::getenv("RANK"));
  if (rank < 4) {
    auto store = c10::make_intrusive<c10d::FileStore>(path, 4);
    c10d::ProcessGroupGloo first(store, rank, 4);
    first.allreduce(t)->wait();
  }
}

// --- The subgroup built first, its members picked by the rank. ---------------
// (the real-code corpus's reproducer: non-members hold null and leave)

void firstNSplit(const PG &world, int n, std::vector<at::Tensor> &t) {
  std::vector<int> ranks(n);
  for (int i = 0; i < n; ++i)
    ranks[i] = i;
  auto sub = world->splitGroup(ranks);
  if (world->getRank() >= n)
    return; // not a member: sub is null here
  sub->allreduce(t)->wait();
}

void memberOfList(const PG &world, const std::vector<int> &ranks,
                  std::vector<at::Tensor> &t) {
  auto sub = world->splitGroup(ranks);
  if (std::find(ranks.begin(), ranks.end(), world->getRank()) == ranks.end())
    return;
  sub->allreduce(t)->wait();
}

// The same bound before a collective on the world group: reported.
void firstNSplitThenWorld(const PG &world, int n, std::vector<at::Tensor> &t) {
  auto sub = world->splitGroup({0, 1});
  if (world->getRank() >= n)
    return;
  world->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d::ProcessGroup::barrier' is skipped by the ranks that leave early through a rank-dependent 'return': the other ranks wait for them and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'world->getRank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

// Rank 0 is a member that leaves: not a membership test, reported.
void memberLeaves(const PG &world, std::vector<at::Tensor> &t) {
  auto sub = world->splitGroup({0, 1});
  if (world->getRank() == 0)
    return;
  sub->allreduce(t)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d::ProcessGroup::allreduce' is skipped by the ranks that leave early through a rank-dependent 'return': the other ranks wait for them and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'world->getRank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}
