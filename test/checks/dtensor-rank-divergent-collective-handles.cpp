// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Raw c10d code as pytorch's own C++ tests and trainers write it (issue #44,
// causes (1) and (2) of its real-code findings): a store or process group
// built with the rank is valid on every rank, so its handle, its Work
// results and null checks are not rank data; a throw after a failed wait()
// and a retry loop around a collective are error handling, not a schedule.
// Positive/negative twins.

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

static int envRank() { return std::atoi(std::getenv("RANK")); }

// --- A process group built with the rank; a throw after a failed wait(). ----

void allreduceThenBarrier(const std::string &path, int size) {
  const int rank = envRank();
  auto store = c10::make_intrusive<::c10d::FileStore>(path, size);
  auto options = ::c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(
      ::c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  ::c10d::ProcessGroupGloo pg(store, rank, size, options);
  std::vector<at::Tensor> tensors = {at::full({16, 16}, rank)};
  auto work = pg.allreduce(tensors);
  if (!work->wait())
    throw std::runtime_error("allreduce failed");
  pg.barrier()->wait();
}

// The twin: rank 0 throws on its own, the others wait in the barrier.
void rankZeroThrowsBeforeBarrier(const std::string &path, int size) {
  const int rank = envRank();
  auto store = c10::make_intrusive<::c10d::FileStore>(path, size);
  ::c10d::ProcessGroupGloo pg(store, rank, size);
  std::vector<at::Tensor> tensors = {at::full({16, 16}, rank)};
  pg.allreduce(tensors)->wait();
  if (rank == 0)
    throw std::runtime_error("rank 0 has no checkpoint");
  pg.barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d::ProcessGroup::barrier' is skipped by the ranks that leave early through a rank-dependent 'throw': the other ranks wait for them and the job hangs
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:20: note: the rank-dependent value comes from 'envRank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

// --- A TCP store whose server is rank 0; a null check on the group. ---------

void tcpStoreGroup(int size) {
  const int rank = envRank();
  auto store = c10::make_intrusive<::c10d::TCPStore>("127.0.0.1", 29500, size,
                                                     rank == 0);
  auto pg = c10::make_intrusive<::c10d::ProcessGroupGloo>(store, rank, size);
  if (pg == nullptr)
    return;
  std::vector<at::Tensor> grads = {at::ones({4})};
  pg->allreduce(grads)->wait();
}

void tcpStoreOptionsGroup(int size) {
  const int rank = envRank();
  ::c10d::TCPStoreOptions opts;
  opts.port = 29500;
  opts.isServer = rank == 0;
  opts.numWorkers = size;
  auto store = c10::make_intrusive<::c10d::TCPStore>("127.0.0.1", opts);
  auto pg = c10::make_intrusive<::c10d::ProcessGroupGloo>(store, rank, size);
  if (!pg)
    throw std::runtime_error("no process group");
  std::vector<at::Tensor> grads = {at::ones({4})};
  pg->allreduce(grads)->wait();
  // The twin: a barrier on the server rank only.
  if (opts.isServer)
    pg->barrier()->wait();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'c10d::ProcessGroup::barrier' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-16]]:20: note: the rank-dependent value comes from 'envRank()' here
}

// --- Retry loops around a collective. ---------------------------------------

void allreduceWithRetry(const c10::intrusive_ptr<::c10d::ProcessGroup> &pg,
                        std::vector<at::Tensor> &grads) {
  bool ok = false;
  while (!ok) {
    try {
      pg->allreduce(grads)->wait();
      ok = true;
    } catch (const std::exception &e) {
      // Gloo timed out: every rank sees the failure and retries.
    }
  }
  pg->barrier()->wait();
}

void retryUntilWorkCompletes(const c10::intrusive_ptr<::c10d::ProcessGroup> &pg,
                             std::vector<at::Tensor> &grads) {
  c10::intrusive_ptr<::c10d::Work> work;
  for (int attempt = 0; attempt < 3; ++attempt) {
    work = pg->allreduce(grads);
    if (work->wait() && work->isSuccess())
      break;
  }
  pg->barrier()->wait();
}

// The twin: the ranks retry as often as their rank says.
void retryByRank(const c10::intrusive_ptr<::c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &grads) {
  const int rank = pg->getRank();
  int attempts = 0;
  while (attempts <= rank) {
    pg->allreduce(grads)->wait();
    ++attempts;
  }
  // CHECK-NOTES: :[[@LINE-3]]:5: warning: collective 'c10d::ProcessGroup::allreduce' runs in a loop whose trip count differs per rank: the ranks call it a different number of times and the job hangs
  // CHECK-NOTES: :[[@LINE-5]]:10: note: the loop condition depends on the rank
  // CHECK-NOTES: :[[@LINE-8]]:20: note: the rank-dependent value comes from 'pg->getRank()' here
}
