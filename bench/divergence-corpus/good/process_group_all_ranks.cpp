// Every rank calls the broadcast; the root fills the tensor first.
#include <meshguard/meshguard.h>

at::Tensor load_vocab();

void share_vocab(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &vocab) {
  if (pg->getRank() == 0)
    vocab[0] = load_vocab();
  pg->broadcast(vocab)->wait();
}
