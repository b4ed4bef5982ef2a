#pragma once

// DCP's Metadata object (torch/distributed/checkpoint/metadata.py), read
// from the value tree of its pickle (RestrictedPickle.h) into
// CheckpointInfo: the tensors' dtypes, shapes and chunks, each chunk with
// the file range its storage_data entry gives.

#include <optional>
#include <string>

#include <meshguard/runtime/Checkpoint.h>

#include "checkpoint/RestrictedPickle.h"

namespace meshguard {
namespace checkpoint {

// `what` names the metadata file in errors.
CheckpointInfo decode_metadata(const PyValue& root, const std::string& what);

// The pickle of DCP's Metadata for `info` (DcpMetadataWriter.cpp), as
// PyTorch's FileSystemWriter would write it: dcp.load reads it.
std::string encode_metadata(const CheckpointInfo& info);

// torch's name of a dtype ("float32") and back (nullopt: not one DCP
// checkpoints of meshguard carry).
std::optional<std::string> dtype_name(at::ScalarType type);
std::optional<at::ScalarType> dtype_of_name(const std::string& name);

} // namespace checkpoint
} // namespace meshguard
