#include "checkpoint/DcpMetadata.h"

#include <c10/util/Exception.h>

#include <array>
#include <utility>

namespace meshguard {
namespace checkpoint {

namespace {

using K = PyValue::Kind;

const std::array<std::pair<const char*, at::ScalarType>, 12> kDtypes = {{
    {"float32", at::kFloat},
    {"float64", at::kDouble},
    {"float16", at::kHalf},
    {"bfloat16", at::kBFloat16},
    {"int64", at::kLong},
    {"int32", at::kInt},
    {"int16", at::kShort},
    {"int8", at::kChar},
    {"uint8", at::kByte},
    {"bool", at::kBool},
    {"complex64", at::kComplexFloat},
    {"complex128", at::kComplexDouble},
}};

constexpr const char* kModule = "torch.distributed.checkpoint.metadata.";

class Decoder {
 public:
  explicit Decoder(const std::string& what) : what_(what) {}

  [[noreturn]] void fail(const std::string& why) const {
    TORCH_CHECK(false, what_, ": ", why);
  }

  void expect_object(
      const PyValue& v,
      const std::string& cls,
      const std::string& where) const {
    if (!v.is(K::kObject) || v.text != cls) {
      fail(where + " is a " + kind_name(v) + ", not a " + cls);
    }
  }

  // A dataclass attribute: BUILD's state is its __dict__, or (dict, slots).
  const PyValue* find_attr(const PyValue& obj, const std::string& name) const {
    auto in_dict = [&](const PyRef& d) -> const PyValue* {
      if (!d || !d->is(K::kDict)) {
        return nullptr;
      }
      for (const auto& [k, v] : d->entries) {
        if (k->is(K::kStr) && k->text == name) {
          return v.get();
        }
      }
      return nullptr;
    };
    if (const PyValue* v = in_dict(obj.state)) {
      return v;
    }
    if (obj.state && obj.state->is(K::kTuple)) {
      for (const PyRef& part : obj.state->items) {
        if (const PyValue* v = in_dict(part)) {
          return v;
        }
      }
    }
    return nullptr;
  }

  const PyValue& attr(
      const PyValue& obj,
      const std::string& name,
      const std::string& where) const {
    const PyValue* v = find_attr(obj, name);
    if (v == nullptr) {
      fail(where + " (" + kind_name(obj) + ") has no '" + name + "'");
    }
    return *v;
  }

  int64_t integer(const PyValue& v, const std::string& where) const {
    if (!v.is(K::kInt)) {
      fail(where + " is a " + kind_name(v) + ", not an int");
    }
    return v.integer;
  }

  std::string text(const PyValue& v, const std::string& where) const {
    if (v.is(K::kStr)) {
      return v.text;
    }
    // A pathlib path: its parts as arguments (strings, not paths again).
    if (v.is(K::kObject) && v.text.rfind("pathlib.", 0) == 0 &&
        !v.items.empty() && v.items[0]->is(K::kStr)) {
      return v.items[0]->text;
    }
    fail(where + " is a " + kind_name(v) + ", not a str");
  }

  // torch.Size((a, b)) or a plain tuple of ints.
  std::vector<int64_t> size(const PyValue& v, const std::string& where) const {
    const PyValue* t = &v;
    if (v.is(K::kObject) && v.text == "torch.Size" && v.items.size() == 1) {
      t = v.items[0].get();
    }
    if (!t->is(K::kTuple) && !t->is(K::kList)) {
      fail(where + " is a " + kind_name(v) + ", not a torch.Size");
    }
    std::vector<int64_t> out;
    for (const PyRef& i : t->items) {
      out.push_back(integer(*i, where));
      if (out.back() < 0) {
        fail(where + " has a negative size");
      }
    }
    return out;
  }

  at::ScalarType dtype(const PyValue& v, const std::string& where) const {
    if (v.is(K::kGlobal) && v.text.rfind("torch.", 0) == 0) {
      if (auto type = dtype_of_name(v.text.substr(6))) {
        return *type;
      }
    }
    fail(where + " is a " + kind_name(v) + ", not a dtype meshguard reads");
  }

  // TensorProperties pickles its fields as a tuple (its __getstate__):
  // dtype first.
  at::ScalarType properties_dtype(
      const PyValue& props,
      const std::string& where) const {
    expect_object(props, std::string(kModule) + "TensorProperties", where);
    if (props.state && props.state->is(K::kTuple) &&
        !props.state->items.empty() && props.state->items[0]->is(K::kGlobal)) {
      return dtype(*props.state->items[0], where + ".dtype");
    }
    return dtype(attr(props, "dtype", where), where + ".dtype");
  }

  TensorEntry tensor(const PyValue& meta, const std::string& name) const {
    const std::string where = "entry '" + name + "'";
    TensorEntry e;
    e.dtype = properties_dtype(
        attr(meta, "properties", where), where + ".properties");
    e.shape = size(attr(meta, "size", where), where + ".size");
    const PyValue& chunks = attr(meta, "chunks", where);
    if (!chunks.is(K::kList)) {
      fail(where + ".chunks is a " + kind_name(chunks) + ", not a list");
    }
    for (const PyRef& c : chunks.items) {
      expect_object(
          *c, std::string(kModule) + "ChunkStorageMetadata", where + " chunk");
      Chunk chunk;
      chunk.offsets =
          size(attr(*c, "offsets", where + " chunk"), where + " chunk offsets");
      chunk.sizes =
          size(attr(*c, "sizes", where + " chunk"), where + " chunk sizes");
      if (chunk.offsets.size() != e.shape.size() ||
          chunk.sizes.size() != e.shape.size()) {
        fail(where + " has a chunk of another rank than its shape");
      }
      for (size_t d = 0; d < e.shape.size(); ++d) {
        if (chunk.offsets[d] + chunk.sizes[d] > e.shape[d]) {
          fail(
              where + " has a chunk beyond its shape on dim " +
              std::to_string(d));
        }
      }
      e.chunks.push_back(std::move(chunk));
    }
    return e;
  }

  struct Place {
    std::string file;
    uint64_t offset = 0;
    uint64_t length = 0;
  };

  Place place(const PyValue& info, const std::string& where) const {
    expect_object(
        info, "torch.distributed.checkpoint.filesystem._StorageInfo", where);
    if (const PyValue* t = find_attr(info, "transform_descriptors")) {
      if (t->is(K::kList) && !t->items.empty()) {
        fail(
            where + " is stored through transforms (" +
            text(*t->items[0], where) +
            ", ...), which meshguard does not read");
      }
    }
    Place p;
    p.file = text(attr(info, "relative_path", where), where + ".relative_path");
    const int64_t offset =
        integer(attr(info, "offset", where), where + ".offset");
    const int64_t length =
        integer(attr(info, "length", where), where + ".length");
    if (offset < 0 || length < 0 || p.file.empty() ||
        p.file.find("..") != std::string::npos || p.file.front() == '/') {
      fail(where + " names a place outside the checkpoint (" + p.file + ")");
    }
    p.offset = static_cast<uint64_t>(offset);
    p.length = static_cast<uint64_t>(length);
    return p;
  }

  CheckpointInfo run(const PyValue& root) const {
    expect_object(root, std::string(kModule) + "Metadata", "the pickle");
    CheckpointInfo info;
    const PyValue& entries = attr(root, "state_dict_metadata", "Metadata");
    if (!entries.is(K::kDict)) {
      fail("Metadata.state_dict_metadata is a " + kind_name(entries));
    }
    for (const auto& [k, v] : entries.entries) {
      const std::string name = text(*k, "an entry name");
      if (v->is(K::kObject) &&
          v->text == std::string(kModule) + "TensorStorageMetadata") {
        info.tensors.emplace(name, tensor(*v, name));
      } else if (
          v->is(K::kObject) &&
          v->text == std::string(kModule) + "BytesStorageMetadata") {
        info.objects.emplace(name, ObjectEntry{});
      } else {
        fail("entry '" + name + "' is a " + kind_name(*v));
      }
    }
    const PyValue& storage = attr(root, "storage_data", "Metadata");
    if (!storage.is(K::kDict)) {
      fail(
          "Metadata.storage_data is a " + kind_name(storage) +
          " (not written by FileSystemWriter?)");
    }
    for (const auto& [k, v] : storage.entries) {
      expect_object(
          *k, std::string(kModule) + "MetadataIndex", "a storage_data key");
      const std::string fqn =
          text(attr(*k, "fqn", "MetadataIndex"), "MetadataIndex.fqn");
      const std::string where = "the storage of entry '" + fqn + "'";
      const Place p = place(*v, where);
      auto obj = info.objects.find(fqn);
      if (obj != info.objects.end()) {
        obj->second = ObjectEntry{p.file, p.offset, p.length};
        continue;
      }
      auto t = info.tensors.find(fqn);
      if (t == info.tensors.end()) {
        fail(where + ": no such entry in state_dict_metadata");
      }
      const PyValue& offset = attr(*k, "offset", "MetadataIndex");
      const std::vector<int64_t> at = size(offset, where + " offset");
      bool found = false;
      for (Chunk& c : t->second.chunks) {
        if (c.offsets == at && c.file.empty()) {
          c.file = p.file;
          c.offset = p.offset;
          c.length = p.length;
          found = true;
          break;
        }
      }
      if (!found) {
        fail(where + ": no chunk of it starts at that offset");
      }
    }
    for (const auto& [name, e] : info.tensors) {
      for (const Chunk& c : e.chunks) {
        if (c.file.empty()) {
          fail("entry '" + name + "' has a chunk without storage");
        }
      }
    }
    for (const auto& [name, o] : info.objects) {
      if (o.file.empty()) {
        fail("entry '" + name + "' has no storage");
      }
    }
    return info;
  }

 private:
  const std::string& what_;
};

} // namespace

std::optional<std::string> dtype_name(at::ScalarType type) {
  for (const auto& [name, t] : kDtypes) {
    if (t == type) {
      return std::string(name);
    }
  }
  return std::nullopt;
}

std::optional<at::ScalarType> dtype_of_name(const std::string& name) {
  for (const auto& [n, t] : kDtypes) {
    if (name == n) {
      return t;
    }
  }
  return std::nullopt;
}

CheckpointInfo decode_metadata(const PyValue& root, const std::string& what) {
  return Decoder(what).run(root);
}

} // namespace checkpoint
} // namespace meshguard
