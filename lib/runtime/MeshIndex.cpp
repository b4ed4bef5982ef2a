#include "MeshIndex.h"

#include <cstddef>

namespace meshguard {
namespace detail {

std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> coord(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coord[d] = index % shape[d];
    index /= shape[d];
  }
  return coord;
}

int64_t ravel(
    const std::vector<int64_t>& coord,
    const std::vector<int64_t>& shape) {
  int64_t index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index = index * shape[d] + coord[d];
  }
  return index;
}

std::vector<int64_t> ranks_along(
    const std::vector<int64_t>& mesh,
    const std::vector<int64_t>& shape,
    const std::vector<int64_t>& coordinate,
    int64_t dim) {
  std::vector<int64_t> out;
  auto coord = coordinate;
  for (int64_t i = 0; i < shape[dim]; ++i) {
    coord[dim] = i;
    out.push_back(mesh[ravel(coord, shape)]);
  }
  return out;
}

} // namespace detail
} // namespace meshguard
