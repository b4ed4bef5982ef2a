#pragma once

// load() once the checkpoint's index is read, for callers that have read it
// already (load_optimizer reads its objects from the same index).

#include <map>
#include <string>

#include <meshguard/runtime/Checkpoint.h>

namespace meshguard {
namespace checkpoint {

void load_entries(
    const std::map<std::string, at::Tensor>& state_dict,
    const std::string& dir,
    const CheckpointInfo& info);

} // namespace checkpoint
} // namespace meshguard
