// The names the restricted pickle reader accepts, by what it reads. A name
// is only ever a label in the value tree; nothing is looked up or run.

#include "checkpoint/RestrictedPickle.h"

#include <array>

namespace meshguard {
namespace checkpoint {

namespace {

const std::array kMetadataNames = {
    "torch.distributed.checkpoint.metadata.Metadata",
    "torch.distributed.checkpoint.metadata.TensorStorageMetadata",
    "torch.distributed.checkpoint.metadata.BytesStorageMetadata",
    "torch.distributed.checkpoint.metadata.ChunkStorageMetadata",
    "torch.distributed.checkpoint.metadata.TensorProperties",
    "torch.distributed.checkpoint.metadata.MetadataIndex",
    "torch.distributed.checkpoint.metadata.StorageMeta",
    "torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING",
    "torch.distributed.checkpoint.filesystem._StorageInfo",
    "torch.Size",
    "torch.serialization._get_layout",
    "collections.OrderedDict",
    "pathlib.PosixPath",
    "pathlib.WindowsPath",
    "pathlib.PurePosixPath",
};

const std::array kDtypes = {
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
    "complex128",
};

const std::array kTensorArchiveNames = {
    "torch._utils._rebuild_tensor_v2",
    "collections.OrderedDict",
    "torch.FloatStorage",
    "torch.DoubleStorage",
    "torch.HalfStorage",
    "torch.BFloat16Storage",
    "torch.LongStorage",
    "torch.IntStorage",
    "torch.ShortStorage",
    "torch.CharStorage",
    "torch.ByteStorage",
    "torch.BoolStorage",
    "torch.ComplexFloatStorage",
    "torch.ComplexDoubleStorage",
};

template <size_t N>
bool listed(const std::string& name, const std::array<const char*, N>& names) {
  for (const char* n : names) {
    if (name == n) {
      return true;
    }
  }
  return false;
}

} // namespace

bool allowed_global(const std::string& name, PickleKind kind) {
  if (kind == PickleKind::kTensorArchive) {
    return listed(name, kTensorArchiveNames);
  }
  if (listed(name, kMetadataNames)) {
    return true;
  }
  for (const char* d : kDtypes) {
    if (name == std::string("torch.") + d) {
      return true;
    }
  }
  return false;
}

} // namespace checkpoint
} // namespace meshguard
