#pragma once

// Copies the part of a chunk that overlaps a rank's block into the block,
// reading from the file only the rows of the chunk that overlap (straight
// into the block when the overlap is one contiguous run of it). Chunks
// whose bytes cannot be located (an unusual torch.save archive) go through
// read_chunk and a copy.

#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <meshguard/runtime/Checkpoint.h>

namespace meshguard {
namespace checkpoint {

// `lo`/`hi`: the overlap in global coordinates; `dst`: the block's view of
// it (shape hi - lo).
void copy_chunk_region(
    const std::string& dir,
    const std::string& entry,
    const TensorEntry& info,
    const Chunk& chunk,
    const std::vector<int64_t>& lo,
    const std::vector<int64_t>& hi,
    const at::Tensor& dst);

} // namespace checkpoint
} // namespace meshguard
