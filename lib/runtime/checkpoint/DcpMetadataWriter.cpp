// DCP's Metadata as PyTorch pickles it (torch/distributed/checkpoint/
// metadata.py): dataclass instances rebuilt from their __dict__, a
// TensorProperties from its __getstate__ tuple, torch.Size by a call.

#include <functional>

#include <c10/util/Exception.h>

#include "checkpoint/DcpMetadata.h"
#include "checkpoint/PickleWriter.h"

namespace meshguard {
namespace checkpoint {

namespace {

constexpr const char* kModule = "torch.distributed.checkpoint.metadata";

class MetadataWriter {
 public:
  std::string run(const CheckpointInfo& info) {
    instance(kModule, "Metadata");
    begin_state();
    p_.str("state_dict_metadata");
    p_.empty_dict();
    p_.mark();
    for (const auto& [name, e] : info.tensors) {
      p_.str(name);
      tensor(name, e);
    }
    for (const auto& [name, o] : info.objects) {
      p_.str(name);
      instance(kModule, "BytesStorageMetadata");
    }
    p_.setitems();
    p_.str("planner_data"); // each name's path in a nested state dict
    p_.empty_dict();
    p_.mark();
    for (const auto& [name, e] : info.tensors) {
      key_path(name);
    }
    for (const auto& [name, o] : info.objects) {
      key_path(name);
    }
    p_.setitems();
    p_.str("storage_data");
    p_.empty_dict();
    p_.mark();
    for (const auto& [name, e] : info.tensors) {
      for (size_t i = 0; i < e.chunks.size(); ++i) {
        const Chunk& c = e.chunks[i];
        index(name, &c.offsets, static_cast<int64_t>(i));
        storage(c.file, c.offset, c.length);
      }
    }
    for (const auto& [name, o] : info.objects) {
      index(name, nullptr, -1);
      storage(o.file, o.offset, o.length);
    }
    p_.setitems();
    p_.str("storage_meta");
    p_.none();
    p_.str("version");
    p_.str("1.0.0");
    end_state();
    return p_.finish();
  }

 private:
  // cls.__new__(cls): NEWOBJ with no arguments.
  void instance(const char* module, const char* cls) {
    p_.global(module, cls);
    p_.mark();
    p_.tuple();
    p_.newobj();
  }

  void begin_state() {
    p_.empty_dict();
    p_.mark();
  }

  void end_state() {
    p_.setitems();
    p_.build();
  }

  void
  call1(const char* module, const char* fn, const std::function<void()>& arg) {
    p_.global(module, fn);
    p_.mark();
    arg();
    p_.tuple();
    p_.reduce();
  }

  void size(const std::vector<int64_t>& v) {
    call1("torch", "Size", [&] {
      p_.mark();
      for (int64_t x : v) {
        p_.integer(x);
      }
      p_.tuple();
    });
  }

  void key_path(const std::string& name) {
    p_.str(name);
    p_.mark();
    p_.str(name);
    p_.tuple();
  }

  void tensor(const std::string& name, const TensorEntry& e) {
    const auto dtype = dtype_name(e.dtype);
    TORCH_CHECK(
        dtype,
        "checkpoint::save: '",
        name,
        "' has dtype ",
        e.dtype,
        ", which DCP's metadata cannot name");
    instance(kModule, "TensorStorageMetadata");
    begin_state();
    p_.str("properties");
    instance(kModule, "TensorProperties");
    p_.mark(); // (dtype, layout, requires_grad, memory_format, pin_memory)
    p_.global("torch", *dtype);
    call1(
        "torch.serialization", "_get_layout", [&] { p_.str("torch.strided"); });
    p_.boolean(false);
    call1(
        kModule, "_MEM_FORMAT_ENCODING", [&] { p_.integer(0); }); // contiguous
    p_.boolean(false);
    p_.tuple();
    p_.build();
    p_.str("size");
    size(e.shape);
    p_.str("chunks");
    p_.empty_list();
    p_.mark();
    for (const Chunk& c : e.chunks) {
      instance(kModule, "ChunkStorageMetadata");
      begin_state();
      p_.str("offsets");
      size(c.offsets);
      p_.str("sizes");
      size(c.sizes);
      end_state();
    }
    p_.appends();
    end_state();
  }

  void index(
      const std::string& fqn,
      const std::vector<int64_t>* offsets,
      int64_t i) {
    instance(kModule, "MetadataIndex");
    begin_state();
    p_.str("fqn");
    p_.str(fqn);
    p_.str("offset");
    if (offsets != nullptr) {
      size(*offsets);
    } else {
      p_.none();
    }
    p_.str("index");
    if (i >= 0) {
      p_.integer(i);
    } else {
      p_.none();
    }
    end_state();
  }

  void storage(const std::string& file, uint64_t offset, uint64_t length) {
    instance("torch.distributed.checkpoint.filesystem", "_StorageInfo");
    begin_state();
    p_.str("relative_path");
    p_.str(file);
    p_.str("offset");
    p_.integer(static_cast<int64_t>(offset));
    p_.str("length");
    p_.integer(static_cast<int64_t>(length));
    p_.str("transform_descriptors");
    p_.none();
    end_state();
  }

  PickleWriter p_;
};

} // namespace

std::string encode_metadata(const CheckpointInfo& info) {
  return MetadataWriter().run(info);
}

} // namespace checkpoint
} // namespace meshguard
