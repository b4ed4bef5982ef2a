// Expert-parallel token exchange issued only by the odd ranks (they host the
// routed experts); even ranks skip the all-to-all.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Alltoall_none_nok (`if (rank % 2)` around one collective)
#include <meshguard/meshguard.h>

std::vector<at::Tensor> route_tokens(const at::Tensor &tokens, int world);

void moe_dispatch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  const at::Tensor &tokens) {
  std::vector<at::Tensor> send = route_tokens(tokens, pg->getSize());
  std::vector<at::Tensor> recv(send.size());
  if (pg->getRank() % 2)
    pg->alltoall(recv, send)->wait(); // EXPECT-DIVERGENCE
}
