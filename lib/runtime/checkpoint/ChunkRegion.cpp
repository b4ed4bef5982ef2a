#include "checkpoint/ChunkRegion.h"

#include <c10/util/accumulate.h>

#include "checkpoint/Files.h"
#include "checkpoint/TensorArchive.h"

namespace meshguard {
namespace checkpoint {

namespace {

// A chunk's elements, row-major at `data_offset` of `path`.
struct RowMajor {
  std::string path;
  at::ScalarType dtype;
  uint64_t data_offset;
};

std::optional<RowMajor>
locate(const std::string& dir, const TensorEntry& info, const Chunk& chunk) {
  const std::string path = join(dir, chunk.file);
  if (chunk.encoding == Encoding::kRaw) {
    const uint64_t bytes =
        c10::multiply_integers(chunk.sizes) * c10::elementSize(info.dtype);
    if (bytes != chunk.length) {
      return std::nullopt; // read_chunk says what is wrong
    }
    return RowMajor{path, info.dtype, chunk.offset};
  }
  auto stored = locate_tensor(path, chunk.offset, chunk.length);
  if (!stored || stored->sizes != chunk.sizes) {
    return std::nullopt;
  }
  return RowMajor{path, stored->dtype, stored->data_offset};
}

} // namespace

void copy_chunk_region(
    const std::string& dir,
    const std::string& entry,
    const TensorEntry& info,
    const Chunk& chunk,
    const std::vector<int64_t>& lo,
    const std::vector<int64_t>& hi,
    const at::Tensor& dst) {
  const size_t n = chunk.sizes.size();
  const auto where = locate(dir, info, chunk);
  if (!where) {
    at::Tensor src = read_chunk(dir, entry, info.dtype, chunk);
    for (size_t d = 0; d < n; ++d) {
      const auto dim = static_cast<int64_t>(d);
      src = src.narrow(dim, lo[d] - chunk.offsets[d], hi[d] - lo[d]);
    }
    dst.copy_(src);
    return;
  }
  // The rows (dim 0) of the chunk that overlap: one contiguous byte range.
  const int64_t first = n ? lo[0] - chunk.offsets[0] : 0;
  const int64_t rows = n ? hi[0] - lo[0] : 1;
  std::vector<int64_t> shape = chunk.sizes;
  if (n) {
    shape[0] = rows;
  }
  const uint64_t row_bytes =
      (n ? c10::multiply_integers(shape.begin() + 1, shape.end()) : 1) *
      c10::elementSize(where->dtype);
  bool whole_rows = true;
  for (size_t d = 1; d < n; ++d) {
    whole_rows = whole_rows && lo[d] == chunk.offsets[d] &&
        hi[d] == chunk.offsets[d] + chunk.sizes[d];
  }
  const uint64_t at =
      where->data_offset + static_cast<uint64_t>(first) * row_bytes;
  const uint64_t length = static_cast<uint64_t>(rows) * row_bytes;
  if (whole_rows && dst.is_contiguous() && dst.device().is_cpu() &&
      dst.scalar_type() == where->dtype) {
    read_range_into(where->path, at, length, entry, dst.data_ptr());
    return;
  }
  at::Tensor src = at::empty(shape, at::TensorOptions().dtype(where->dtype));
  read_range_into(where->path, at, length, entry, src.data_ptr());
  for (size_t d = 1; d < n; ++d) {
    const auto dim = static_cast<int64_t>(d);
    src = src.narrow(dim, lo[d] - chunk.offsets[d], hi[d] - lo[d]);
  }
  dst.copy_(src);
}

} // namespace checkpoint
} // namespace meshguard
