#include "checkpoint/LocalBlock.h"

#include <meshguard/runtime/CheckpointPlan.h>

#include "Internal.h"

namespace meshguard {
namespace checkpoint {

void block_at(
    const std::vector<int64_t>& shape,
    const Placements& placements,
    const std::vector<int64_t>& mesh_shape,
    const std::vector<int64_t>& coordinate,
    std::vector<int64_t>& start,
    std::vector<int64_t>& length) {
  start.assign(shape.size(), 0);
  length = shape;
  for (size_t i = 0; i < placements.size(); ++i) {
    TORCH_CHECK(!is_partial(placements[i]), "a Partial placement has no block");
    if (const auto* s = std::get_if<Shard>(&placements[i])) {
      TORCH_CHECK(
          s->dim >= 0 && s->dim < static_cast<int64_t>(shape.size()),
          "Shard(",
          s->dim,
          ") of a tensor with ",
          shape.size(),
          " dims");
      const int64_t k = mesh_shape[i];
      const int64_t c = coordinate[i];
      start[s->dim] += detail::chunk_offset(length[s->dim], k, c);
      length[s->dim] = detail::chunk_length(length[s->dim], k, c);
    }
  }
}

Block block_of(
    const DTensorSpec& spec,
    const std::string& name,
    const char* doing) {
  for (size_t i = 0; i < spec.placements.size(); ++i) {
    TORCH_CHECK(
        !is_partial(spec.placements[i]),
        "checkpoint::",
        doing,
        ": '",
        name,
        "' is Partial on mesh dim ",
        i,
        "; ",
        std::string(doing) == "save"
            ? "reduce it first (SaveOptions::reduce_partial)"
            : "load into Replicate, then redistribute");
  }
  Block b;
  block_at(
      spec.shape,
      spec.placements,
      spec.mesh.shape(),
      spec.mesh.coordinate(),
      b.start,
      b.length);
  return b;
}

Block whole(const std::vector<int64_t>& shape) {
  return Block{std::vector<int64_t>(shape.size(), 0), shape};
}

bool overlap(
    const Block& block,
    const Chunk& chunk,
    std::vector<int64_t>& lo,
    std::vector<int64_t>& hi) {
  const size_t n = block.start.size();
  lo.resize(n);
  hi.resize(n);
  bool overlaps = true;
  for (size_t d = 0; d < n; ++d) {
    lo[d] = std::max(block.start[d], chunk.offsets[d]);
    hi[d] = std::min(
        block.start[d] + block.length[d], chunk.offsets[d] + chunk.sizes[d]);
    overlaps = overlaps && lo[d] < hi[d];
  }
  return overlaps;
}

} // namespace checkpoint
} // namespace meshguard
