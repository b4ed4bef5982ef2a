#pragma once

// Sharded checkpoints in PyTorch's Distributed Checkpoint (DCP) layout: a
// directory with `.metadata` (the pickled index of every entry) and the
// ranks' `__{rank}_{n}.distcp` files (each chunk a torch.save archive), as
// torch.distributed.checkpoint's FileSystemWriter writes them.
//
// meshguard::checkpoint::load fills DTensors of any mesh and placements
// (another world size, 1-D or 2-D, Shard or Replicate, uneven and empty
// shards) and plain tensors from a checkpoint written on any number of
// ranks: each rank reads only the chunks that overlap its own blocks. The
// metadata is read by a restricted pickle reader that executes nothing.
// Docs: docs/runtime/checkpoint.md.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace meshguard {
namespace checkpoint {

// One chunk of a tensor entry: where it lies in the global tensor and where
// its bytes are.
struct Chunk {
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;
  std::string file; // relative to the checkpoint directory
  uint64_t offset = 0; // of its torch.save archive in the file
  uint64_t length = 0;
};

struct TensorEntry {
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape; // global
  std::vector<Chunk> chunks;
};

// A non-tensor entry (an int, a string, a dict...), pickled whole.
struct ObjectEntry {
  std::string file;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct CheckpointInfo {
  std::map<std::string, TensorEntry> tensors;
  std::map<std::string, ObjectEntry> objects;
};

// Reads and checks `dir`/.metadata: every chunk within its tensor's shape
// and with its bytes' place. A missing, truncated, corrupt or foreign file is
// a c10::Error naming the file (and the entry).
CheckpointInfo read_info(const std::string& dir);

// Loads every entry of `state_dict` (name -> tensor) from the checkpoint in
// `dir`, in place: a DTensor's local block receives the bytes of the chunks
// that overlap it; a plain tensor is filled whole. Names and global shapes
// must match the checkpoint's (an error names the first that does not);
// values are converted to the target's dtype as copy_ does. A Partial
// DTensor cannot be loaded into (load into Replicate, then redistribute).
// Needs no collective: each rank reads what it owns.
void load(
    const std::map<std::string, at::Tensor>& state_dict,
    const std::string& dir);

// A non-tensor entry's value (the optimizer's step, a string).
c10::IValue load_object(const std::string& dir, const std::string& name);

} // namespace checkpoint
} // namespace meshguard
