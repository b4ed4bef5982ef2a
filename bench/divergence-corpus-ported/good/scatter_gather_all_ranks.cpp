// Every rank scatters then gathers; only rank 0 prepares and consumes the
// buffers.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/Aislinn_invalid_order.c (fixed)
#include <meshguard/meshguard.h>

std::vector<at::Tensor> make_chunks(int n);
void consume(const std::vector<at::Tensor> &chunks);

void shuffle_round(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                   std::vector<at::Tensor> &out) {
  const int rank = pg->getRank();
  std::vector<std::vector<at::Tensor>> all(1);
  if (rank == 0)
    all[0] = make_chunks(pg->getSize());
  pg->scatter(out, all)->wait();
  out[0] = out[0] * 2;
  pg->gather(all, out)->wait();
  if (rank == 0)
    consume(all[0]);
}
