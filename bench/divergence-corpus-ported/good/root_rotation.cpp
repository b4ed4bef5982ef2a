// The broadcast root rotates with the epoch (uniform), so every rank calls
// the broadcast with the same root.
// Ported from: mquinson/MBI/scripts/generators/CollArgGenerator.py,
//   root-matching family (ParamMatching_Root_*: correct when all ranks agree)
#include <meshguard/meshguard.h>

void refresh_from(int owner, std::vector<at::Tensor> &table);

void share_embedding_table(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                           std::vector<at::Tensor> &table, int epoch) {
  c10d::BroadcastOptions opts;
  opts.rootRank = epoch % pg->getSize();
  if (pg->getRank() == opts.rootRank)
    refresh_from(pg->getRank(), table);
  pg->broadcast(table, opts)->wait();
}
