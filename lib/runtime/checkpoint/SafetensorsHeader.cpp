// The safetensors header: parsed strictly (every bound checked before a byte
// is trusted) and written as the safetensors library writes it.

#include "checkpoint/Safetensors.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

#include <c10/util/Exception.h>

#include "checkpoint/Json.h"

namespace meshguard {
namespace checkpoint {

namespace {

using K = JsonValue::Kind;

// The dtypes of safetensors that every libtorch meshguard builds with has.
const std::array<std::pair<const char*, at::ScalarType>, 11> kDtypes = {{
    {"F64", at::kDouble},
    {"F32", at::kFloat},
    {"F16", at::kHalf},
    {"BF16", at::kBFloat16},
    {"I64", at::kLong},
    {"I32", at::kInt},
    {"I16", at::kShort},
    {"I8", at::kChar},
    {"U8", at::kByte},
    {"BOOL", at::kBool},
    {"C64", at::kComplexFloat},
}};

std::string where(const std::string& path, const std::string& entry) {
  return path + ": entry '" + entry + "'";
}

uint64_t non_negative(
    const JsonValue& v,
    const std::string& path,
    const std::string& entry,
    const char* field) {
  TORCH_CHECK(
      v.is(K::kNumber) && v.integer && !v.negative &&
          v.magnitude <= static_cast<uint64_t>(INT64_MAX),
      where(path, entry),
      ": ",
      field,
      " holds something other than non-negative integers");
  return v.magnitude;
}

SafetensorsTensor tensor_of(
    const std::string& name,
    const JsonValue& v,
    uint64_t data_start,
    uint64_t data_size,
    const std::string& path) {
  TORCH_CHECK(v.is(K::kObject), where(path, name), ": not an object");
  const JsonValue* dtype = v.find("dtype");
  const JsonValue* shape = v.find("shape");
  const JsonValue* offsets = v.find("data_offsets");
  TORCH_CHECK(
      dtype && dtype->is(K::kString) && shape && shape->is(K::kArray) &&
          offsets && offsets->is(K::kArray) && offsets->items.size() == 2 &&
          v.members.size() == 3,
      where(path, name),
      ": needs exactly dtype (a string), shape (an array) and data_offsets "
      "(two integers)");
  SafetensorsTensor t;
  t.name = name;
  const auto type = safetensors_dtype(dtype->text);
  TORCH_CHECK(
      type.has_value(),
      where(path, name),
      ": dtype '",
      dtype->text,
      "' is not one meshguard reads (F64, F32, F16, BF16, I64, I32, I16, I8, "
      "U8, BOOL, C64)");
  t.dtype = *type;
  TORCH_CHECK(
      shape->items.size() <= 64,
      where(path, name),
      ": shape has too many dims");
  // The element count, refusing overflow: bytes must match exactly.
  uint64_t numel = 1;
  bool overflow = false;
  for (const JsonValue& d : shape->items) {
    const uint64_t n = non_negative(d, path, name, "shape");
    t.shape.push_back(static_cast<int64_t>(n));
    if (n != 0 && numel > UINT64_MAX / n) {
      overflow = true;
    }
    numel = overflow ? 0 : numel * n;
  }
  const uint64_t begin =
      non_negative(offsets->items[0], path, name, "data_offsets");
  const uint64_t end =
      non_negative(offsets->items[1], path, name, "data_offsets");
  TORCH_CHECK(
      begin <= end && end <= data_size,
      where(path, name),
      ": data_offsets [",
      begin,
      ", ",
      end,
      "] outside the file's data section of ",
      data_size,
      " bytes (a truncated file?)");
  const uint64_t item = c10::elementSize(t.dtype);
  const bool has_zero =
      std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end();
  TORCH_CHECK(
      (has_zero && begin == end) ||
          (!has_zero && !overflow && numel <= UINT64_MAX / item &&
           end - begin == numel * item),
      where(path, name),
      ": data_offsets hold ",
      end - begin,
      " bytes where shape ",
      c10::IntArrayRef(t.shape),
      " of ",
      dtype->text,
      " needs ",
      overflow || numel > UINT64_MAX / item ? std::string("more than 2^64")
                                            : std::to_string(numel * item));
  t.begin = data_start + begin;
  t.end = data_start + end;
  return t;
}

} // namespace

std::string safetensors_rank_file(int64_t rank) {
  // _gen_file_name(1, 1, rank + 1): shard indices count from 1.
  std::array<char, 64> name{};
  std::snprintf(
      name.data(),
      name.size(),
      "shard-%05lld-model-00001-of-00001.safetensors",
      static_cast<long long>(rank) + 1);
  return name.data();
}

std::optional<std::string> safetensors_dtype_name(at::ScalarType type) {
  for (const auto& [name, t] : kDtypes) {
    if (t == type) {
      return std::string(name);
    }
  }
  return std::nullopt;
}

std::optional<at::ScalarType> safetensors_dtype(const std::string& name) {
  for (const auto& [n, t] : kDtypes) {
    if (name == n) {
      return t;
    }
  }
  return std::nullopt;
}

SafetensorsHeader parse_safetensors_header(
    const std::string& json,
    uint64_t data_start,
    uint64_t file_size,
    const std::string& path) {
  TORCH_CHECK(
      data_start <= file_size, path, ": the header ends past the file's end");
  JsonLimits limits;
  limits.max_depth = 8; // the header nests 3 deep
  const JsonValue root =
      parse_json(json, path + " (safetensors header)", limits);
  TORCH_CHECK(
      root.is(K::kObject), path, ": the safetensors header is not an object");
  SafetensorsHeader h;
  h.data_start = data_start;
  const uint64_t data_size = file_size - data_start;
  for (const auto& [name, v] : root.members) {
    if (name == "__metadata__") {
      TORCH_CHECK(v.is(K::kObject), path, ": __metadata__ is not an object");
      for (const auto& [key, value] : v.members) {
        TORCH_CHECK(
            value.is(K::kString),
            path,
            ": __metadata__ entry '",
            key,
            "' is not a string");
        h.metadata[key] = value.text;
      }
      continue;
    }
    h.tensors.push_back(tensor_of(name, v, data_start, data_size, path));
  }
  std::sort(
      h.tensors.begin(),
      h.tensors.end(),
      [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
        return std::make_pair(a.begin, a.end) < std::make_pair(b.begin, b.end);
      });
  // Back to back from the data section's start to the file's end.
  uint64_t at = data_start;
  const SafetensorsTensor* previous = nullptr;
  for (const SafetensorsTensor& t : h.tensors) {
    TORCH_CHECK(
        t.begin == at,
        where(path, t.name),
        t.begin < at ? ": its bytes overlap those of entry '" +
                (previous ? previous->name : std::string()) + "'"
                     : ": a gap of unindexed bytes before it",
        " (data_offsets start at ",
        t.begin - data_start,
        ")");
    at = t.end;
    previous = &t;
  }
  TORCH_CHECK(
      at == file_size,
      path,
      ": ",
      file_size - at,
      " bytes after the last tensor that no entry indexes (a foreign or "
      "damaged file?)");
  return h;
}

namespace {

uint64_t
header_length(const char* bytes, uint64_t file_size, const std::string& path) {
  TORCH_CHECK(
      file_size >= 8,
      path,
      ": ",
      file_size,
      " bytes: too short for a safetensors file (8-byte header length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  }
  TORCH_CHECK(
      n <= kMaxSafetensorsHeader && n <= file_size - 8,
      path,
      ": the header length says ",
      n,
      " bytes; the file has ",
      file_size - 8,
      " after it (limit ",
      kMaxSafetensorsHeader,
      "): truncated or not a safetensors file");
  return n;
}

} // namespace

SafetensorsHeader parse_safetensors(
    const std::string& bytes,
    const std::string& path) {
  const uint64_t n = header_length(bytes.data(), bytes.size(), path);
  return parse_safetensors_header(
      bytes.substr(8, n), 8 + n, bytes.size(), path);
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  TORCH_CHECK(in.good(), path, ": cannot be opened");
  const auto size = static_cast<uint64_t>(in.tellg());
  std::array<char, 8> length{};
  in.seekg(0);
  in.read(length.data(), size >= 8 ? 8 : 0);
  const uint64_t n = header_length(length.data(), size, path);
  std::string json(n, '\0');
  in.read(json.data(), static_cast<std::streamsize>(n));
  TORCH_CHECK(in.good(), path, ": the header cannot be read");
  return parse_safetensors_header(json, 8 + n, size, path);
}

std::string safetensors_header_bytes(
    std::vector<SafetensorsTensor>& tensors,
    const std::map<std::string, std::string>& metadata) {
  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      json += (first ? "" : ",") + json_quote(k) + ":" + json_quote(v);
      first = false;
    }
    json += "}";
  }
  uint64_t at = 0;
  for (SafetensorsTensor& t : tensors) {
    const auto dtype = safetensors_dtype_name(t.dtype);
    TORCH_CHECK(
        dtype.has_value(),
        "safetensors: entry '",
        t.name,
        "' has dtype ",
        t.dtype,
        ", which safetensors files of meshguard do not hold");
    uint64_t bytes = c10::elementSize(t.dtype);
    json += (json.size() > 1 ? "," : "") + json_quote(t.name) +
        R"(:{"dtype":")" + *dtype + R"(","shape":[)";
    for (size_t d = 0; d < t.shape.size(); ++d) {
      json += (d ? "," : "") + std::to_string(t.shape[d]);
      bytes *= static_cast<uint64_t>(t.shape[d]);
    }
    json += "],\"data_offsets\":[" + std::to_string(at) + "," +
        std::to_string(at + bytes) + "]}";
    t.begin = at;
    t.end = at + bytes;
    at += bytes;
  }
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>(n & 0xFF);
    n >>= 8;
  }
  for (SafetensorsTensor& t : tensors) {
    t.begin += out.size() + json.size();
    t.end += out.size() + json.size();
  }
  return out + json;
}

std::string sharding_info_json(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& offsets) {
  std::string json = "{";
  for (const auto& [name, o] : offsets) {
    json += (json.size() > 1 ? ", " : "") + json_quote(name) +
        ": {\"saved_offsets\": [";
    for (size_t d = 0; d < o.size(); ++d) {
      json += (d ? ", " : "") + std::to_string(o[d]);
    }
    json += "]}";
  }
  return json + "}";
}

} // namespace checkpoint
} // namespace meshguard
