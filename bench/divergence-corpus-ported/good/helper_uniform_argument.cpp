// flush_metrics all-reduces only when `reduce` is true; it is called with the
// rank in the harmless `tag` slot and with uniform values for `reduce`.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_arg.c
//   (the `bar(rank, 0)` call)
#include <meshguard/meshguard.h>

void write_tagged(const at::Tensor &m, int tag);

void flush_metrics(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                   std::vector<at::Tensor> &m, int tag, bool reduce) {
  if (reduce)
    pg->allreduce(m)->wait();
  write_tagged(m[0], tag);
}

void end_of_epoch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  std::vector<at::Tensor> &m, int epoch) {
  const int rank = pg->getRank();
  flush_metrics(pg, m, /*tag=*/rank, /*reduce=*/false);
  flush_metrics(pg, m, /*tag=*/rank, /*reduce=*/pg->getSize() > 1);
  flush_metrics(pg, m, /*tag=*/0, /*reduce=*/epoch % 10 == 0);
}
