#pragma once

// Where this rank's block of a DTensor lies in the global tensor: its start
// and length per dim (nested torch.chunk over the mesh dims, as the DTensor
// holds it). Shared by load and save.

#include <string>
#include <vector>

#include <meshguard/runtime/Checkpoint.h>
#include <meshguard/runtime/DTensorImpl.h>

namespace meshguard {
namespace checkpoint {

struct Block {
  std::vector<int64_t> start;
  std::vector<int64_t> length;
};

// A Partial placement is an error naming `name` and `doing` ("load").
Block block_of(
    const DTensorSpec& spec,
    const std::string& name,
    const char* doing);

// The whole of a tensor of `shape`.
Block whole(const std::vector<int64_t>& shape);

// Whether `chunk` overlaps `block`; if so, [lo, hi) is the overlap in
// global coordinates.
bool overlap(
    const Block& block,
    const Chunk& chunk,
    std::vector<int64_t>& lo,
    std::vector<int64_t>& hi);

} // namespace checkpoint
} // namespace meshguard
