#pragma once

// Where a DCP chunk's torch.save archive keeps the tensor's bytes in its
// file, found from the archive's zip directory and data.pkl alone (a few
// small reads), so that load can read just the bytes it needs straight into
// its block instead of unpickling the whole archive first.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

namespace meshguard {
namespace checkpoint {

struct StoredTensor {
  at::ScalarType dtype = at::kFloat;
  uint64_t data_offset = 0; // in the file, of the tensor's first element
  std::vector<int64_t> sizes; // row-major, contiguous
};

// The archive at [offset, offset + length) of `path` as a stored tensor,
// or nullopt when it is not a contiguous CPU tensor whose bytes lie within
// the archive uncompressed (read_chunk's general path then reads it, and
// reports what is wrong).
std::optional<StoredTensor>
locate_tensor(const std::string& path, uint64_t offset, uint64_t length);

} // namespace checkpoint
} // namespace meshguard
