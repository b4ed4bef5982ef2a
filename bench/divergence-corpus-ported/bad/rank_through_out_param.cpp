// The rank reaches the guard through an output parameter.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_sideeffect.c
//   (the `sideEffect(&a)` case)
#include <meshguard/meshguard.h>

void query_rank(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int *out) {
  *out = pg->getRank();
}

void sync_grads(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                std::vector<at::Tensor> &grads) {
  pg->barrier()->wait();
  int me = 0;
  query_rank(pg, &me);
  if (me > 0)
    pg->allreduce(grads)->wait(); // EXPECT-DIVERGENCE
}
