// meshguard::checkpoint::verify: reads every byte a checkpoint's metadata
// names, so that a damaged checkpoint is found before a job is launched on
// it (meshguard-checkpoint verify).

#include <meshguard/runtime/Checkpoint.h>

#include <c10/util/accumulate.h>

#include "checkpoint/Files.h"

namespace meshguard {
namespace checkpoint {

namespace {

bool overlap(const Chunk& a, const Chunk& b) {
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    if (a.offsets[d] + a.sizes[d] <= b.offsets[d] ||
        b.offsets[d] + b.sizes[d] <= a.offsets[d]) {
      return false;
    }
  }
  return c10::multiply_integers(a.sizes) > 0 &&
      c10::multiply_integers(b.sizes) > 0;
}

} // namespace

std::string verify(
    const std::string& dir,
    const std::function<void(const std::string&)>& progress) {
  const CheckpointInfo info = read_info(dir);
  size_t chunks = 0;
  uint64_t bytes = 0;
  for (const auto& [name, e] : info.tensors) {
    int64_t covered = 0;
    for (size_t i = 0; i < e.chunks.size(); ++i) {
      const Chunk& c = e.chunks[i];
      for (size_t j = 0; j < i; ++j) {
        TORCH_CHECK(
            !overlap(c, e.chunks[j]),
            dir,
            ": entry '",
            name,
            "' has overlapping chunks at offsets ",
            c10::IntArrayRef(c.offsets),
            " and ",
            c10::IntArrayRef(e.chunks[j].offsets));
      }
      covered += c10::multiply_integers(c.sizes);
      read_chunk(dir, name, e.dtype, c);
      ++chunks;
      bytes += c.length;
    }
    TORCH_CHECK(
        covered == c10::multiply_integers(e.shape),
        dir,
        ": the chunks of entry '",
        name,
        "' cover ",
        covered,
        " of its ",
        c10::multiply_integers(e.shape),
        " elements");
    if (progress) {
      progress(name);
    }
  }
  for (const auto& [name, o] : info.objects) {
    read_item(join(dir, o.file), o.offset, o.length, name);
    bytes += o.length;
    if (progress) {
      progress(name);
    }
  }
  return dir + ": " + std::to_string(info.tensors.size()) + " tensors in " +
      std::to_string(chunks) + " chunks and " +
      std::to_string(info.objects.size()) + " objects, " +
      std::to_string(bytes) + " bytes, all readable";
}

} // namespace checkpoint
} // namespace meshguard
