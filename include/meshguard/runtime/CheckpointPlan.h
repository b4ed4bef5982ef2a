#pragma once

// What meshguard::checkpoint::load would read on each rank of a target
// mesh, worked out from a checkpoint's index alone, before a job is
// launched (meshguard-checkpoint plan). Docs: docs/runtime/checkpoint.md.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <meshguard/runtime/Checkpoint.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {
namespace checkpoint {

// One byte range load reads: a chunk's bytes (load reads a chunk whole).
struct ByteRead {
  std::string file;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::vector<int64_t> chunk_offsets; // the chunk's place in the tensor
};

// One entry on one rank: its block (start and length per dim) and the
// chunks that overlap it.
struct EntryPlan {
  std::string entry;
  std::vector<int64_t> start;
  std::vector<int64_t> length;
  std::vector<ByteRead> reads;
};

// The block of a tensor of `shape` placed by `placements` on a mesh of
// `mesh_shape`, on the rank at `coordinate` (nested torch.chunk, as a
// DTensor holds it). Partial is an error (load refuses it).
void block_at(
    const std::vector<int64_t>& shape,
    const Placements& placements,
    const std::vector<int64_t>& mesh_shape,
    const std::vector<int64_t>& coordinate,
    std::vector<int64_t>& start,
    std::vector<int64_t>& length);

// The reads of every entry in `targets` (entry -> placements on a mesh of
// `mesh_shape`) for the rank at `coordinate`. An entry the checkpoint does
// not hold, or a Shard of a dim the entry lacks, is an error naming it.
std::vector<EntryPlan> plan_rank(
    const CheckpointInfo& info,
    const std::map<std::string, Placements>& targets,
    const std::vector<int64_t>& mesh_shape,
    const std::vector<int64_t>& coordinate);

} // namespace checkpoint
} // namespace meshguard
