// meshguard::checkpoint::verify: reads every byte a checkpoint's metadata
// names, so that a damaged checkpoint is found before a job is launched on
// it (meshguard-checkpoint verify).

#include <meshguard/runtime/Checkpoint.h>

#include <torch/csrc/jit/serialization/pickle.h>

#include "checkpoint/Files.h"

namespace meshguard {
namespace checkpoint {

namespace {

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    n *= s;
  }
  return n;
}

bool overlap(const Chunk& a, const Chunk& b) {
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    if (a.offsets[d] + a.sizes[d] <= b.offsets[d] ||
        b.offsets[d] + b.sizes[d] <= a.offsets[d]) {
      return false;
    }
  }
  return numel(a.sizes) > 0 && numel(b.sizes) > 0;
}

c10::IValue read_item(
    const std::string& dir,
    const std::string& file,
    uint64_t offset,
    uint64_t length,
    const std::string& entry) {
  const std::string path = join(dir, file);
  const std::vector<char> bytes = read_range(path, offset, length, entry);
  try {
    return torch::jit::pickle_load(bytes);
  } catch (const c10::Error& e) {
    TORCH_CHECK(
        false,
        path,
        ": entry '",
        entry,
        "' is not a readable torch.save archive: ",
        e.what_without_backtrace());
  }
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
      covered += numel(c.sizes);
      const c10::IValue item = read_item(dir, c.file, c.offset, c.length, name);
      TORCH_CHECK(
          item.isTensor() &&
              item.toTensor().sizes() == c10::IntArrayRef(c.sizes),
          join(dir, c.file),
          ": entry '",
          name,
          "' holds a chunk of another shape than the metadata says (",
          c10::IntArrayRef(c.sizes),
          ")");
      ++chunks;
      bytes += c.length;
    }
    TORCH_CHECK(
        covered == numel(e.shape),
        dir,
        ": the chunks of entry '",
        name,
        "' cover ",
        covered,
        " of its ",
        numel(e.shape),
        " elements");
    if (progress) {
      progress(name);
    }
  }
  for (const auto& [name, o] : info.objects) {
    read_item(dir, o.file, o.offset, o.length, name);
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
