// plan_rank: load's reads worked out from the index alone, with the same
// blocks (block_at) and overlaps (overlap) load uses.

#include <meshguard/runtime/CheckpointPlan.h>

#include <c10/util/accumulate.h>

#include "checkpoint/LocalBlock.h"

namespace meshguard {
namespace checkpoint {

std::vector<EntryPlan> plan_rank(
    const CheckpointInfo& info,
    const std::map<std::string, Placements>& targets,
    const std::vector<int64_t>& mesh_shape,
    const std::vector<int64_t>& coordinate) {
  std::vector<EntryPlan> out;
  for (const auto& [name, placements] : targets) {
    auto it = info.tensors.find(name);
    TORCH_CHECK(
        it != info.tensors.end(),
        "entry '",
        name,
        "' is not in the checkpoint",
        info.objects.count(name) ? " (it is a non-tensor entry)" : "");
    TORCH_CHECK(
        placements.size() == mesh_shape.size(),
        "entry '",
        name,
        "': ",
        placements.size(),
        " placements for a mesh of ",
        mesh_shape.size(),
        " dims");
    EntryPlan plan;
    plan.entry = name;
    try {
      block_at(
          it->second.shape,
          placements,
          mesh_shape,
          coordinate,
          plan.start,
          plan.length);
    } catch (const c10::Error& e) {
      TORCH_CHECK(false, "entry '", name, "': ", e.what_without_backtrace());
    }
    const Block block{plan.start, plan.length};
    const bool empty = c10::multiply_integers(plan.length) == 0;
    std::vector<int64_t> lo, hi;
    for (const Chunk& chunk : it->second.chunks) {
      if (!empty && overlap(block, chunk, lo, hi)) {
        plan.reads.push_back(
            ByteRead{chunk.file, chunk.offset, chunk.length, chunk.offsets});
      }
    }
    out.push_back(std::move(plan));
  }
  return out;
}

} // namespace checkpoint
} // namespace meshguard
