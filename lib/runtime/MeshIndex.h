#pragma once

// Index math of a mesh: row-major positions <-> coordinates.

#include <cstdint>
#include <vector>

namespace meshguard {
namespace detail {

// The coordinate of row-major position `index` in an array of `shape`.
std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& shape);

// The row-major position of `coord` in an array of `shape`.
int64_t ravel(
    const std::vector<int64_t>& coord,
    const std::vector<int64_t>& shape);

// The entries of `mesh` (row-major, `shape`) that differ from `coordinate`
// only along `dim`, in order: a mesh dimension's group.
std::vector<int64_t> ranks_along(
    const std::vector<int64_t>& mesh,
    const std::vector<int64_t>& shape,
    const std::vector<int64_t>& coordinate,
    int64_t dim);

} // namespace detail
} // namespace meshguard
