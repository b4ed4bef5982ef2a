#include "checkpoint/LocalBlock.h"

#include "Internal.h"

namespace meshguard {
namespace checkpoint {

Block block_of(
    const DTensorSpec& spec,
    const std::string& name,
    const char* doing) {
  Block b = whole(spec.shape);
  const auto& coordinate = spec.mesh.coordinate();
  for (size_t i = 0; i < spec.placements.size(); ++i) {
    const Placement& p = spec.placements[i];
    TORCH_CHECK(
        !is_partial(p),
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
    if (const auto* s = std::get_if<Shard>(&p)) {
      const int64_t k = spec.mesh.size(static_cast<int64_t>(i));
      const int64_t c = coordinate[i];
      b.start[s->dim] += detail::chunk_offset(b.length[s->dim], k, c);
      b.length[s->dim] = detail::chunk_length(b.length[s->dim], k, c);
    }
  }
  return b;
}

Block whole(const std::vector<int64_t>& shape) {
  return Block{std::vector<int64_t>(shape.size(), 0), shape};
}

} // namespace checkpoint
} // namespace meshguard
