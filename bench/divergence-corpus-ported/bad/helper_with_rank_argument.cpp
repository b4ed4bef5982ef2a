// flush_metrics all-reduces only when its `reduce` argument is true. Passing
// the rank as the tag is harmless; passing `rank == 0` as `reduce` is not.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_arg.c
#include <meshguard/meshguard.h>

void write_tagged(const at::Tensor &m, int tag);

void flush_metrics(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                   std::vector<at::Tensor> &m, int tag, bool reduce) {
  if (reduce)
    pg->allreduce(m)->wait();
  write_tagged(m[0], tag);
}

void end_of_epoch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  std::vector<at::Tensor> &m) {
  const int rank = pg->getRank();
  flush_metrics(pg, m, /*tag=*/rank, /*reduce=*/true);
  flush_metrics(pg, m, /*tag=*/0, /*reduce=*/rank == 0); // EXPECT-DIVERGENCE
}
