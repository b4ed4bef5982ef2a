// Loading a DCP checkpoint into DTensors of any mesh and placements: each
// rank works out its block of every tensor (nested torch.chunk over the
// mesh dims, as the DTensor holds it), reads the chunks that overlap it, and
// copies the overlaps into its local tensor.

#include <meshguard/runtime/Checkpoint.h>

#include <filesystem>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "checkpoint/ChunkRegion.h"
#include "checkpoint/DcpMetadata.h"
#include "checkpoint/Files.h"
#include "checkpoint/LoadEntries.h"
#include "checkpoint/LocalBlock.h"
#include "checkpoint/RestrictedPickle.h"
#include "checkpoint/Safetensors.h"

namespace meshguard {
namespace checkpoint {

namespace {

void load_tensor(
    const std::string& dir,
    const std::string& name,
    const TensorEntry& entry,
    const at::Tensor& target) {
  const DTensorImpl* impl = get_dtensor_impl(target);
  const std::vector<int64_t> shape =
      impl ? impl->spec().shape : target.sizes().vec();
  TORCH_CHECK(
      shape == entry.shape,
      "checkpoint::load: '",
      name,
      "' has shape ",
      c10::IntArrayRef(shape),
      " here and ",
      c10::IntArrayRef(entry.shape),
      " in the checkpoint");
  const Block block =
      impl ? block_of(impl->spec(), name, "load") : whole(shape);
  at::Tensor local = impl ? impl->local() : target;
  if (local.numel() == 0) {
    return;
  }
  at::NoGradGuard no_grad;
  for (const Chunk& chunk : entry.chunks) {
    std::vector<int64_t> lo, hi;
    if (!overlap(block, chunk, lo, hi)) {
      continue;
    }
    at::Tensor dst = local;
    for (size_t d = 0; d < shape.size(); ++d) {
      const auto dim = static_cast<int64_t>(d);
      dst = dst.narrow(dim, lo[d] - block.start[d], hi[d] - lo[d]);
    }
    copy_chunk_region(dir, name, entry, chunk, lo, hi, dst);
  }
}

} // namespace

CheckpointInfo read_info(const std::string& dir) {
  const std::string path = join(dir, ".metadata");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && holds_safetensors(dir)) {
    return read_safetensors_info(dir);
  }
  const std::string bytes = read_file(path);
  return decode_metadata(*read_pickle(bytes, path), path);
}

void load_entries(
    const std::map<std::string, at::Tensor>& state_dict,
    const std::string& dir,
    const CheckpointInfo& info) {
  for (const auto& [name, tensor] : state_dict) {
    auto it = info.tensors.find(name);
    TORCH_CHECK(
        it != info.tensors.end(),
        "checkpoint::load: ",
        dir,
        " has no tensor entry '",
        name,
        "'",
        info.objects.count(name) ? " (it is a non-tensor entry: load_object)"
                                 : "");
    load_tensor(dir, name, it->second, tensor);
  }
}

void load(
    const std::map<std::string, at::Tensor>& state_dict,
    const std::string& dir) {
  load_entries(state_dict, dir, read_info(dir));
}

c10::IValue load_object(const std::string& dir, const std::string& name) {
  const CheckpointInfo info = read_info(dir);
  TORCH_CHECK(
      info.format != Format::kSafetensors,
      "checkpoint::load_object: ",
      dir,
      " is a safetensors checkpoint, which holds tensors only: a non-tensor "
      "entry such as '",
      name,
      "' is not representable there");
  auto it = info.objects.find(name);
  TORCH_CHECK(
      it != info.objects.end(),
      "checkpoint::load_object: ",
      dir,
      " has no non-tensor entry '",
      name,
      "'");
  const std::string path = join(dir, it->second.file);
  return read_item(path, it->second.offset, it->second.length, name);
}

} // namespace checkpoint
} // namespace meshguard
