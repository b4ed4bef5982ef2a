// Only the root calls the c10d broadcast.
#include <meshguard/meshguard.h>

void share_vocab(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &vocab) {
  const int me = pg->getRank();
  if (me == 0)
    pg->broadcast(vocab)->wait(); // EXPECT-DIVERGENCE
}
