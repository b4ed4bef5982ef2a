#include "checkpoint/SaveSupport.h"

#include <algorithm>
#include <cstring>

#include <c10/util/accumulate.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "checkpoint/LocalBlock.h"

namespace meshguard {
namespace checkpoint {

bool is_first_rank(const DeviceMesh& mesh) {
  const auto& coordinate = mesh.coordinate();
  return std::all_of(
      coordinate.begin(), coordinate.end(), [](int64_t c) { return c == 0; });
}

std::vector<std::string> gather_strings(
    const std::string& mine,
    const DeviceMesh& mesh) {
  const auto on_mesh = at::TensorOptions().device(mesh.device());
  const auto lengths = detail::all_gather_mesh(
      at::full(
          {1}, static_cast<int64_t>(mine.size()), on_mesh.dtype(at::kLong)),
      mesh);
  int64_t longest = 1;
  for (const at::Tensor& l : lengths) {
    longest = std::max(longest, l.cpu().item<int64_t>());
  }
  at::Tensor buffer = at::zeros({longest}, at::kByte);
  std::memcpy(buffer.data_ptr(), mine.data(), mine.size());
  const auto all = detail::all_gather_mesh(buffer.to(mesh.device()), mesh);
  std::vector<std::string> out;
  for (size_t r = 0; r < all.size(); ++r) {
    const at::Tensor bytes = all[r].cpu();
    out.emplace_back(
        static_cast<const char*>(bytes.data_ptr()),
        lengths[r].cpu().item<int64_t>());
  }
  return out;
}

std::vector<Item> items_to_write(
    const std::map<std::string, at::Tensor>& tensors,
    const DeviceMesh& mesh,
    const SaveOptions& options) {
  const auto& coordinate = mesh.coordinate();
  const bool first = is_first_rank(mesh);
  std::vector<Item> items;
  for (const auto& [name, t] : tensors) {
    TORCH_CHECK(
        name.find_first_of("\t\n") == std::string::npos,
        "checkpoint::save: an entry name holds a tab or newline");
    const DTensorImpl* impl = get_dtensor_impl(t);
    if (impl == nullptr) {
      if (first) {
        items.push_back(
            {name, std::vector<int64_t>(t.dim(), 0), t.sizes().vec(), t});
      }
      continue;
    }
    TORCH_CHECK(
        impl->spec().mesh == mesh,
        "checkpoint::save: '",
        name,
        "' lives on ",
        impl->spec().mesh.to_string(),
        ", not on the mesh that saves (",
        mesh.to_string(),
        ")");
    DTensorSpec spec = impl->spec();
    at::Tensor local = impl->local();
    Placements reduced = spec.placements;
    for (Placement& p : reduced) {
      if (is_partial(p) && options.reduce_partial) {
        p = Replicate{};
      }
    }
    if (!(reduced == spec.placements)) {
      local = detail::redistribute_local(local, spec, reduced);
      spec.placements = reduced;
    }
    if (c10::multiply_integers(spec.shape) == 0) {
      if (first) {
        items.push_back(
            {name,
             std::vector<int64_t>(spec.shape.size(), 0),
             spec.shape,
             at::empty(spec.shape, local.options())});
      }
      continue;
    }
    const Block block = block_of(spec, name, "save");
    bool writes = c10::multiply_integers(block.length) > 0;
    for (size_t i = 0; i < spec.placements.size(); ++i) {
      writes = writes && (is_shard(spec.placements[i]) || coordinate[i] == 0);
    }
    if (writes) {
      items.push_back({name, block.start, block.length, local});
    }
  }
  return items;
}

at::Tensor compact(const at::Tensor& t) {
  at::Tensor c = t.detach().cpu().contiguous();
  if (c.storage_offset() != 0 || c.storage().nbytes() != c.nbytes()) {
    c = c.clone();
  }
  return c;
}

} // namespace checkpoint
} // namespace meshguard
