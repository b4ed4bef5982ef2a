// A directory of safetensors files as a checkpoint: each file's tensors are
// chunks (whole tensors, or blocks placed by DCP_SHARDING_INFO), the global
// shape is the end of the furthest chunk, and the chunks must tile it.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include <c10/util/Exception.h>
#include <c10/util/accumulate.h>

#include "checkpoint/Files.h"
#include "checkpoint/Json.h"
#include "checkpoint/Safetensors.h"

namespace meshguard {
namespace checkpoint {

namespace {

namespace fs = std::filesystem;
using K = JsonValue::Kind;

bool is_safetensors(const fs::directory_entry& e) {
  return e.is_regular_file() && e.path().extension() == ".safetensors";
}

std::vector<std::string> safetensors_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (is_safetensors(e)) {
      out.push_back(e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The offsets DCP_SHARDING_INFO gives each tensor of the file (none: whole
// tensors).
std::map<std::string, std::vector<int64_t>> sharding_info(
    const SafetensorsHeader& h,
    const std::string& path) {
  std::map<std::string, std::vector<int64_t>> out;
  auto it = h.metadata.find(kShardingInfoKey);
  if (it == h.metadata.end()) {
    return out;
  }
  JsonLimits limits;
  limits.max_depth = 8;
  const JsonValue info = parse_json(
      it->second, path + " (__metadata__.DCP_SHARDING_INFO)", limits);
  TORCH_CHECK(
      info.is(K::kObject), path, ": DCP_SHARDING_INFO is not an object");
  std::set<std::string> names;
  for (const SafetensorsTensor& t : h.tensors) {
    names.insert(t.name);
  }
  for (const auto& [name, v] : info.members) {
    const JsonValue* offsets =
        v.is(K::kObject) ? v.find("saved_offsets") : nullptr;
    TORCH_CHECK(
        offsets && offsets->is(K::kArray),
        path,
        ": DCP_SHARDING_INFO of entry '",
        name,
        "' has no saved_offsets array");
    TORCH_CHECK(
        names.count(name),
        path,
        ": DCP_SHARDING_INFO names entry '",
        name,
        "', which the file does not hold");
    std::vector<int64_t>& o = out[name];
    for (const JsonValue& d : offsets->items) {
      TORCH_CHECK(
          d.is(K::kNumber) && d.integer && !d.negative &&
              d.magnitude <= static_cast<uint64_t>(INT64_MAX),
          path,
          ": DCP_SHARDING_INFO of entry '",
          name,
          "' has an offset that is not a non-negative integer");
      o.push_back(static_cast<int64_t>(d.magnitude));
    }
  }
  return out;
}

bool overlap(const Chunk& a, const Chunk& b) {
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    if (a.offsets[d] + a.sizes[d] <= b.offsets[d] ||
        b.offsets[d] + b.sizes[d] <= a.offsets[d]) {
      return false;
    }
  }
  return true;
}

// The elements of `shape`, or -1 past int64_t.
int64_t checked_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (d != 0 && n > INT64_MAX / d) {
      return -1;
    }
    n *= d;
  }
  return n;
}

// The chunks of every entry tile its shape: none overlaps another (empty
// ones aside) and their elements add up to the shape's.
void check_tiling(
    const std::string& dir,
    const std::string& name,
    const TensorEntry& e) {
  const int64_t numel = checked_numel(e.shape);
  TORCH_CHECK(
      numel >= 0,
      dir,
      ": entry '",
      name,
      "' has saved_offsets that make its shape past any size");
  int64_t covered = 0;
  std::vector<const Chunk*> nonempty;
  for (const Chunk& c : e.chunks) {
    const int64_t n = c10::multiply_integers(c.sizes);
    if (n == 0) {
      continue;
    }
    for (const Chunk* other : nonempty) {
      TORCH_CHECK(
          !overlap(c, *other),
          dir,
          ": entry '",
          name,
          "' has overlapping chunks in ",
          c.file,
          " and ",
          other->file,
          " (files of two saves?)");
    }
    nonempty.push_back(&c);
    covered += n;
  }
  TORCH_CHECK(
      covered == numel,
      dir,
      ": the chunks of entry '",
      name,
      "' cover ",
      covered,
      " of its ",
      numel,
      " elements (a rank's file missing?)");
}

// model.safetensors.index.json: its weight_map must name, for each tensor,
// the one file that holds it.
void check_index(
    const std::string& dir,
    const std::map<std::string, std::set<std::string>>& files_of) {
  const std::string path = join(dir, kSafetensorsIndex);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return;
  }
  const JsonValue index = parse_json(read_file(path), path);
  const JsonValue* map =
      index.is(K::kObject) ? index.find("weight_map") : nullptr;
  TORCH_CHECK(map && map->is(K::kObject), path, ": has no weight_map object");
  for (const auto& [name, file] : map->members) {
    TORCH_CHECK(
        file.is(K::kString),
        path,
        ": weight_map entry '",
        name,
        "' is not a file name");
    auto it = files_of.find(name);
    TORCH_CHECK(
        it != files_of.end() && it->second.count(file.text),
        path,
        ": weight_map puts entry '",
        name,
        "' in ",
        file.text,
        ", which does not hold it");
  }
  for (const auto& [name, files] : files_of) {
    TORCH_CHECK(
        map->find(name) != nullptr,
        path,
        ": weight_map lacks entry '",
        name,
        "' (in ",
        *files.begin(),
        ")");
  }
}

// kSaveRecordKey of one file.
struct SaveRecord {
  std::string file;
  std::string token;
  uint64_t files = 0;
  std::map<std::string, std::vector<int64_t>> shapes;
};

std::optional<SaveRecord> save_record(
    const SafetensorsHeader& h,
    const std::string& file,
    const std::string& path) {
  auto it = h.metadata.find(kSaveRecordKey);
  if (it == h.metadata.end()) {
    return std::nullopt;
  }
  JsonLimits limits;
  limits.max_depth = 8;
  const JsonValue v =
      parse_json(it->second, path + " (__metadata__.meshguard_save)", limits);
  const JsonValue* token = v.is(K::kObject) ? v.find("token") : nullptr;
  const JsonValue* files = v.is(K::kObject) ? v.find("files") : nullptr;
  const JsonValue* shapes = v.is(K::kObject) ? v.find("shapes") : nullptr;
  TORCH_CHECK(
      token && token->is(K::kString) && files && files->integer &&
          !files->negative && shapes && shapes->is(K::kObject),
      path,
      ": __metadata__.meshguard_save needs token, files and shapes");
  SaveRecord r{file, token->text, files->magnitude, {}};
  for (const auto& [name, shape] : shapes->members) {
    TORCH_CHECK(
        shape.is(K::kArray),
        path,
        ": meshguard_save's shape of entry '",
        name,
        "' is not an array");
    for (const JsonValue& d : shape.items) {
      TORCH_CHECK(
          d.integer && !d.negative &&
              d.magnitude <= static_cast<uint64_t>(INT64_MAX),
          path,
          ": meshguard_save's shape of entry '",
          name,
          "' is not of non-negative integers");
      r.shapes[name].push_back(static_cast<int64_t>(d.magnitude));
    }
  }
  return r;
}

// The files of a meshguard save are all there and of that save alone, and
// each entry has the global shape it was saved with.
void check_save_records(
    const std::string& dir,
    const std::vector<std::string>& files,
    const std::vector<SaveRecord>& records,
    const CheckpointInfo& info) {
  if (records.empty()) {
    return; // not meshguard's: PyTorch's checks are all there is
  }
  const SaveRecord& first = records.front();
  for (const std::string& file : files) {
    auto r =
        std::find_if(records.begin(), records.end(), [&](const SaveRecord& x) {
          return x.file == file;
        });
    TORCH_CHECK(
        r != records.end() && r->token == first.token,
        join(dir, file),
        ": not a file of the save that wrote ",
        first.file,
        " (",
        r == records.end() ? std::string("no meshguard_save record")
                           : "save " + r->token + ", not " + first.token,
        "): files of two saves?");
    TORCH_CHECK(
        r->files == files.size(),
        dir,
        ": holds ",
        files.size(),
        " .safetensors files of save ",
        first.token,
        ", which wrote ",
        r->files,
        " (a rank's file missing?)");
  }
  // Then the shapes: a file of another save is named as such first.
  for (const SaveRecord& r : records) {
    for (const auto& [name, shape] : r.shapes) {
      auto e = info.tensors.find(name);
      TORCH_CHECK(
          e != info.tensors.end() && e->second.shape == shape,
          join(dir, r.file),
          ": entry '",
          name,
          "' was saved with shape ",
          c10::IntArrayRef(shape),
          "; its blocks here make ",
          e == info.tensors.end() ? c10::IntArrayRef()
                                  : c10::IntArrayRef(e->second.shape),
          " (a rank's file missing?)");
    }
  }
}

} // namespace

bool holds_safetensors(const std::string& dir) {
  return !safetensors_files(dir).empty();
}

CheckpointInfo read_safetensors_info(const std::string& dir) {
  CheckpointInfo info;
  info.format = Format::kSafetensors;
  std::map<std::string, std::set<std::string>> files_of;
  std::vector<SaveRecord> records;
  const std::vector<std::string> files = safetensors_files(dir);
  for (const std::string& file : files) {
    const std::string path = join(dir, file);
    const SafetensorsHeader h = read_safetensors_header(path);
    if (auto r = save_record(h, file, path)) {
      records.push_back(std::move(*r));
    }
    const auto offsets = sharding_info(h, path);
    for (const SafetensorsTensor& t : h.tensors) {
      Chunk c;
      c.sizes = t.shape;
      auto o = offsets.find(t.name);
      c.offsets = o != offsets.end() ? o->second
                                     : std::vector<int64_t>(t.shape.size(), 0);
      TORCH_CHECK(
          c.offsets.size() == c.sizes.size(),
          path,
          ": entry '",
          t.name,
          "' has ",
          c.sizes.size(),
          " dims and ",
          c.offsets.size(),
          " saved_offsets");
      c.file = file;
      c.offset = t.begin;
      c.length = t.end - t.begin;
      c.encoding = Encoding::kRaw;
      auto [it, fresh] = info.tensors.try_emplace(t.name);
      TensorEntry& e = it->second;
      if (fresh) {
        e.dtype = t.dtype;
        e.shape.assign(c.sizes.size(), 0);
      }
      TORCH_CHECK(
          e.dtype == t.dtype && e.shape.size() == c.sizes.size(),
          path,
          ": entry '",
          t.name,
          "' is ",
          t.dtype,
          " of ",
          c.sizes.size(),
          " dims here and ",
          e.dtype,
          " of ",
          e.shape.size(),
          " dims in ",
          e.chunks.front().file);
      for (size_t d = 0; d < c.sizes.size(); ++d) {
        TORCH_CHECK(
            c.offsets[d] <= INT64_MAX - c.sizes[d],
            path,
            ": entry '",
            t.name,
            "' has saved_offsets past any shape");
        e.shape[d] = std::max(e.shape[d], c.offsets[d] + c.sizes[d]);
      }
      e.chunks.push_back(std::move(c));
      files_of[t.name].insert(file);
    }
  }
  TORCH_CHECK(
      !files_of.empty() || holds_safetensors(dir),
      dir,
      ": holds no .safetensors files");
  check_save_records(dir, files, records, info);
  for (auto& [name, e] : info.tensors) {
    std::sort(
        e.chunks.begin(), e.chunks.end(), [](const Chunk& a, const Chunk& b) {
          return a.offsets < b.offsets;
        });
    check_tiling(dir, name, e);
  }
  check_index(dir, files_of);
  return info;
}

} // namespace checkpoint
} // namespace meshguard
