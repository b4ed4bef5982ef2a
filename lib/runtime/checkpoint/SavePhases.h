#pragma once

// save() in two phases, so that async_save can run the second on a thread
// of its own: staging (the collectives over the data mesh: Partial
// reductions; the blocks to write, copied when asked) and writing (the
// files, the ranks' records gathered, the metadata published), whose
// collectives run over a coordination mesh of the same ranks.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <meshguard/runtime/Checkpoint.h>

#include "checkpoint/SaveSupport.h"

namespace meshguard {
namespace checkpoint {

struct StagedSave {
  std::string dir;
  std::vector<Item> items;
  std::map<std::string, c10::IValue> objects; // the ones this rank writes
  CheckpointInfo skeleton; // every tensor entry's dtype and shape
  int64_t publisher_rank = 0; // global rank that publishes the metadata
};

// `stage`, when given, copies each block to CPU memory of its own (so the
// caller may change its tensors while the save is written) and returns the
// copy.
StagedSave stage_save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options,
    const std::function<at::Tensor(const at::Tensor&)>& stage = {});

// Throws on every rank when any rank failed.
void write_and_publish(
    const StagedSave& staged,
    const DeviceMesh& coordination);

} // namespace checkpoint
} // namespace meshguard
