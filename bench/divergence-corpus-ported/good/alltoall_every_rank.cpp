// Every rank joins the expert-parallel all-to-all; only the routing (the
// local contents of the buffers) depends on the rank.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Alltoall_none_ok
#include <meshguard/meshguard.h>

std::vector<at::Tensor> route_tokens(const at::Tensor &tokens, int world,
                                     int rank);

void moe_dispatch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  const at::Tensor &tokens) {
  std::vector<at::Tensor> send =
      route_tokens(tokens, pg->getSize(), pg->getRank());
  std::vector<at::Tensor> recv(send.size());
  pg->alltoall(recv, send)->wait();
}
