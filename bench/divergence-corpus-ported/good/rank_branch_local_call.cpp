// Non-zero ranks call a local callback chosen by a uniform flag; the
// callbacks do no communication and the barrier follows on every rank.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/indirect_ok.c
#include <meshguard/meshguard.h>

void shrink_lr(int *lr_step) { (*lr_step)--; }
void grow_lr(int *lr_step) { (*lr_step)++; }
using Adjust = void (*)(int *);

void adjust(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, bool warmup,
            int *lr_step) {
  Adjust fn = warmup ? grow_lr : shrink_lr;
  if (pg->getRank())
    fn(lr_step);
  pg->barrier()->wait();
}
