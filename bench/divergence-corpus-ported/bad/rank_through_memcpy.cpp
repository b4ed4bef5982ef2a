// The rank is copied byte-wise into another variable (a serialised header)
// and the copy guards the barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/intra_memtransfer.c
#include <cstring>
#include <meshguard/meshguard.h>

void sync_all(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  pg->barrier()->wait();
}

void write_header(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  sync_all(pg);
  const int rank = pg->getRank();
  int writer_id;
  std::memcpy(&writer_id, &rank, sizeof(int));
  if (writer_id > 0)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
