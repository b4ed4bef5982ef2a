// The role flag is rank-dependent, but the barrier is guarded by its
// all-reduced (hence uniform) value, not by the local one.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/phi-cond.c (fixed by
//   reducing the flag first)
#include <meshguard/meshguard.h>

void start_workers(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  int role = 0;
  if (!pg->getRank())
    role = 1;
  else
    role = 2;
  std::vector<at::Tensor> any_worker{at::full({1}, role == 2 ? 1 : 0)};
  c10d::AllreduceOptions opts;
  opts.reduceOp = c10d::ReduceOp::MAX;
  pg->allreduce(any_worker, opts)->wait();
  if (any_worker[0].item<int>() > 0)
    pg->barrier()->wait();
}
