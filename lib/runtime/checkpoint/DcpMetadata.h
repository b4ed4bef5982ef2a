#pragma once

// DCP's Metadata object (torch/distributed/checkpoint/metadata.py), read
// from the value tree of its pickle (RestrictedPickle.h) into
// CheckpointInfo: the tensors' dtypes, shapes and chunks, each chunk with
// the file range its storage_data entry gives.

#include <meshguard/runtime/Checkpoint.h>

#include "checkpoint/RestrictedPickle.h"

namespace meshguard {
namespace checkpoint {

// `what` names the metadata file in errors.
CheckpointInfo decode_metadata(const PyValue& root, const std::string& what);

} // namespace checkpoint
} // namespace meshguard
