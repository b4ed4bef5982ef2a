// The safetensors reader against damaged and hostile input, in one process:
// a deterministic mutation fuzzer (truncations, flipped header bytes,
// header-length lies, random JSON edits: 20,714 files; 1,001 more as
// whole checkpoint directories) and hand-made headers
// (offsets out of range, overlapping tensors, wrong dtype sizes, deep
// nesting...). Every input must be a c10::Error naming the file, or a header
// whose every tensor lies within the file with the bytes its dtype and shape
// need; whole checkpoint directories likewise through read_info, verify and
// load. Also the JSON reader alone, and directory-level checks (tiling,
// index.json).

#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <meshguard/runtime/Checkpoint.h>

#include "checkpoint/Json.h"
#include "checkpoint/Safetensors.h"

using namespace meshguard::checkpoint;
namespace fs = std::filesystem;

namespace {

const char* kPath = "fuzz.safetensors";

struct Sample {
  std::string name;
  at::Tensor value;
  std::vector<int64_t> offsets;
};

std::vector<Sample> samples() {
  return {
      {"w", at::arange(12, at::kFloat).reshape({3, 4}), {2, 0}},
      {"bf", at::arange(2, at::kFloat).to(at::kBFloat16), {0}},
      {"id", at::scalar_tensor(7, at::kLong), {}},
      {"mask", at::arange(5).remainder(2).to(at::kBool), {0}},
      {"empty", at::empty({0, 3}, at::kByte), {0, 0}},
      {"d", at::arange(4, at::kDouble).reshape({2, 2}), {0, 0}},
  };
}

// A well-formed file of `tensors` with DCP_SHARDING_INFO.
std::string file_of(const std::vector<Sample>& tensors) {
  std::vector<SafetensorsTensor> header;
  std::vector<std::pair<std::string, std::vector<int64_t>>> offsets;
  for (const Sample& s : tensors) {
    header.push_back({s.name, s.value.scalar_type(), s.value.sizes().vec()});
    offsets.emplace_back(s.name, s.offsets);
  }
  std::string out = safetensors_header_bytes(
      header, {{kShardingInfoKey, sharding_info_json(offsets)}});
  for (const Sample& s : tensors) {
    out.append(static_cast<const char*>(s.value.data_ptr()), s.value.nbytes());
  }
  return out;
}

// A file from a header text (its length set right unless `length` given).
std::string raw_file(
    const std::string& json,
    const std::string& data,
    std::optional<uint64_t> length = std::nullopt) {
  uint64_t n = length.value_or(json.size());
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>(n & 0xFF);
    n >>= 8;
  }
  return out + json + data;
}

// Empty when the bytes parse into a sound header or fail with a c10::Error
// naming the file; else what went wrong.
std::string check(const std::string& bytes, bool* accepted = nullptr) {
  SafetensorsHeader h;
  try {
    h = parse_safetensors(bytes, kPath);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (accepted) {
      *accepted = false;
    }
    return what.find(kPath) == std::string::npos
        ? "an error that does not name the file: " + what
        : "";
  } catch (const std::exception& e) {
    return std::string("not a c10::Error: ") + e.what();
  }
  if (accepted) {
    *accepted = true;
  }
  uint64_t at = h.data_start;
  for (const SafetensorsTensor& t : h.tensors) {
    uint64_t numel = 1;
    for (int64_t d : t.shape) {
      if (d < 0) {
        return "a negative dim accepted";
      }
      numel *= static_cast<uint64_t>(d);
    }
    if (t.begin != at || t.end < t.begin || t.end > bytes.size() ||
        t.end - t.begin != numel * c10::elementSize(t.dtype)) {
      return "entry '" + t.name + "' accepted with bytes that do not fit";
    }
    at = t.end;
  }
  return at == bytes.size() ? "" : "unindexed bytes accepted";
}

uint64_t header_size(const std::string& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | static_cast<unsigned char>(file[i]);
  }
  return n;
}

} // namespace

TEST(SafetensorsFuzz, WellFormedFileParses) {
  const std::string file = file_of(samples());
  const SafetensorsHeader h = parse_safetensors(file, kPath);
  EXPECT_EQ(h.tensors.size(), 6u);
  EXPECT_EQ(h.data_start % 8, 0u);
  EXPECT_EQ(check(file), "");
}

TEST(SafetensorsFuzz, MutatedFilesAreErrorsOrSound) {
  const std::string file = file_of(samples());
  const uint64_t header_end = 8 + header_size(file);
  std::mt19937_64 gen(42);
  size_t inputs = 0, accepted = 0;
  auto run = [&](const std::string& bytes, const std::string& what) {
    bool ok = false;
    const std::string problem = check(bytes, &ok);
    EXPECT_EQ(problem, "") << what;
    ++inputs;
    accepted += ok;
    return ok;
  };
  // Every truncation is an error (the last tensor's bytes are missing).
  for (size_t n = 0; n < file.size(); ++n) {
    EXPECT_FALSE(run(file.substr(0, n), "cut at " + std::to_string(n)))
        << "a file cut to " << n << " bytes was accepted";
  }
  // One to four header bytes changed.
  for (int i = 0; i < 10000; ++i) {
    std::string m = file;
    const int edits = 1 + static_cast<int>(gen() % 4);
    for (int e = 0; e < edits; ++e) {
      m[gen() % header_end] = static_cast<char>(gen() & 0xFF);
    }
    run(m, "flipped header bytes, round " + std::to_string(i));
  }
  // The header length lies: every one of these is an error.
  const std::string json = file.substr(8, header_end - 8);
  const std::string data = file.substr(header_end);
  for (uint64_t n :
       {uint64_t{0},
        uint64_t{1},
        json.size() - 1,
        json.size() + 1,
        json.size() + data.size(),
        json.size() + data.size() + 1,
        uint64_t{kMaxSafetensorsHeader} + 1,
        uint64_t{1} << 63,
        UINT64_MAX}) {
    EXPECT_FALSE(
        run(raw_file(json, data, n), "header length " + std::to_string(n)))
        << "header length " << n << " accepted";
  }
  // Random edits of the JSON: characters of its grammar inserted, deleted,
  // replaced, the length kept right.
  const std::string alphabet = "{}[]\",:0123456789-.eE \\ntfu";
  for (int i = 0; i < 10000; ++i) {
    std::string j = json;
    const int edits = 1 + static_cast<int>(gen() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = gen() % j.size();
      const char c = alphabet[gen() % alphabet.size()];
      switch (gen() % 3) {
        case 0:
          j.insert(at, 1, c);
          break;
        case 1:
          j.erase(at, 1);
          break;
        default:
          j[at] = c;
      }
    }
    run(raw_file(j, data), "JSON edit, round " + std::to_string(i));
  }
  // Data bytes are not checked by any reader (safetensors has no checksum):
  // a flipped data byte is a different value, not an error; the fuzzer
  // mutates the header and the length.
  std::cout << "safetensors fuzz: " << inputs << " inputs, " << accepted
            << " parsed into sound headers, the rest clear errors\n";
  EXPECT_EQ(inputs, 20714u);
}

TEST(SafetensorsFuzz, HandMadeHeadersAreClearErrors) {
  const std::string d24(24, '\0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,25]}})",
       "outside the file's data section"},
      {R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
       "needs 24"},
      {R"({"a":{"dtype":"F64","shape":[2,3],"data_offsets":[0,24]}})",
       "needs 48"},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[3],"data_offsets":[8,20]}})",
       "overlap"},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})",
       "a gap of unindexed bytes"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       "no entry indexes"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[16,8]}})",
       "outside the file's data section"},
      {R"({"a":{"dtype":"Q4","shape":[6],"data_offsets":[0,24]}})",
       "dtype 'Q4' is not one meshguard reads"},
      {R"({"a":{"dtype":"F32","shape":[-6],"data_offsets":[0,24]}})",
       "non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[6.0],"data_offsets":[0,24]}})",
       "non-negative integers"},
      {R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,24],"data_offsets":[0,24]}})",
       "more than 2^64"},
      {R"({"a":{"dtype":"U8","shape":[24],"data_offsets":[0,24]},"a":{"dtype":"U8","shape":[24],"data_offsets":[0,24]}})",
       "a duplicate object key"},
      {R"({"a":{"dtype":"U8","shape":[24],"data_offsets":[0,24],"x":1}})",
       "needs exactly dtype"},
      {R"({"a":{"dtype":"U8","shape":[24]}})", "needs exactly dtype"},
      {R"({"__metadata__":{"k":1},"a":{"dtype":"U8","shape":[24],"data_offsets":[0,24]}})",
       "is not a string"},
      {R"([1,2,3])", "not an object"},
      {R"({"a":{"dtype":"U8","shape":[24],"data_offsets":[0,24]}} x)",
       "text after the JSON value"},
      {R"({"a":{"dtype":"U8","shape":[24],"data_offsets":[0,18446744073709551616]}})",
       "non-negative integers"},
      {R"({"a\ud800":{"dtype":"U8","shape":[24],"data_offsets":[0,24]}})",
       "a lone surrogate"},
      {std::string("{\"a\x01\":1}"), "a control character"},
      {"{\"__metadata__\":" + std::string(100000, '[') +
           std::string(100000, ']') + "}",
       "nested too deeply"},
      {"", "malformed JSON"},
  };
  for (const auto& [json, expected] : cases) {
    try {
      parse_safetensors(raw_file(json, d24), kPath);
      ADD_FAILURE() << "accepted: " << json.substr(0, 200);
    } catch (const c10::Error& e) {
      const std::string what = e.what_without_backtrace();
      EXPECT_NE(what.find(expected), std::string::npos)
          << json.substr(0, 200) << "\n  -> " << what;
      EXPECT_NE(what.find(kPath), std::string::npos) << what;
    }
  }
}

TEST(SafetensorsFuzz, JsonReader) {
  const JsonValue v = parse_json(
      R"( {"a": [1, -2, 3.5, 1e3, true, false, null], "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"} )",
      "t");
  ASSERT_TRUE(v.is(JsonValue::Kind::kObject));
  const JsonValue* a = v.find("a");
  ASSERT_TRUE(a && a->items.size() == 7);
  EXPECT_TRUE(a->items[0].integer && a->items[0].magnitude == 1);
  EXPECT_TRUE(a->items[1].integer && a->items[1].negative);
  EXPECT_FALSE(a->items[2].integer);
  EXPECT_FALSE(a->items[3].integer);
  EXPECT_EQ(v.find("s")->text, "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(parse_json(json_quote("a\"b\\c\n\x01"), "t").text, "a\"b\\c\n\x01");
  for (const char* bad :
       {"",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "1.",
        "-",
        "\"\\x\"",
        "tru",
        "{\"a\" 1}",
        "[1 2]",
        "\"abc",
        "nul"}) {
    EXPECT_THROW(parse_json(bad, "t"), c10::Error) << bad;
  }
  JsonLimits tiny;
  tiny.max_values = 3;
  EXPECT_THROW(parse_json("[1,2,3]", "t", tiny), c10::Error);
}

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
        ("meshguard-st-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary | std::ios::trunc) << bytes;
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

} // namespace

bool same(const SafetensorsTensor& a, const SafetensorsTensor& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape &&
      a.begin == b.begin && a.end == b.end;
}

// Whole directories: read_info, verify and load take a mutated rank file or
// fail naming it; an entry whose header survived intact loads the original
// values (a changed dtype or shape of the same size is a reinterpretation
// no reader can detect: safetensors has no checksum).
TEST(SafetensorsFuzz, MutatedDirectoriesAreErrorsOrSound) {
  // Rank 1's block of w (rows 0..1) beside rank 0's file's rows 2..4.
  const std::string rank0 = file_of(samples());
  const at::Tensor top = at::arange(8, at::kFloat).reshape({2, 4}).neg();
  const std::string rank1 = file_of({{"w", top, {0, 0}}});
  const SafetensorsHeader original = parse_safetensors(rank0, kPath);
  std::map<std::string, at::Tensor> values;
  for (const Sample& s : samples()) {
    values[s.name] = s.value;
  }
  values["w"] = at::cat({top, values["w"]});
  const uint64_t header_end = 8 + header_size(rank0);
  std::mt19937_64 gen(7);
  size_t inputs = 0, errors = 0;
  TempDir dir;
  dir.write(safetensors_rank_file(1), rank1);
  for (int i = 0; i <= 1000; ++i) {
    std::string m = rank0; // round 0: intact
    if (i > 0 && i % 3 == 0) {
      m.resize(gen() % m.size());
    } else if (i > 0) {
      m[gen() % header_end] = static_cast<char>(gen() & 0xFF);
    }
    dir.write(safetensors_rank_file(0), m);
    ++inputs;
    std::map<std::string, at::Tensor> loaded;
    const std::string e = error_of([&] {
      verify(dir.path.string());
      const CheckpointInfo info = read_info(dir.path.string());
      for (const auto& [name, entry] : info.tensors) {
        at::Tensor t =
            at::empty(entry.shape, at::TensorOptions().dtype(entry.dtype));
        load({{name, t}}, dir.path.string());
        loaded[name] = t;
      }
    });
    if (e != "(no error)") {
      ++errors;
      EXPECT_NE(e.find(dir.path.string()), std::string::npos) << e;
      EXPECT_NE(i, 0) << e;
      continue;
    }
    const SafetensorsHeader h = parse_safetensors(m, kPath);
    for (const SafetensorsTensor& t : h.tensors) {
      for (const SafetensorsTensor& o : original.tensors) {
        if (same(t, o) && t.name != "w") {
          EXPECT_TRUE(at::equal(loaded.at(t.name), values.at(t.name)))
              << "round " << i << ": entry '" << t.name << "'";
        }
      }
    }
    if (i == 0) {
      EXPECT_TRUE(at::equal(loaded.at("w"), values.at("w")));
    }
  }
  EXPECT_GT(errors, inputs / 2);
}

TEST(SafetensorsFuzz, DirectoryChecks) {
  const at::Tensor top = at::arange(8, at::kFloat).reshape({2, 4});
  const at::Tensor bottom = at::arange(4, at::kFloat).reshape({1, 4});
  {
    TempDir dir;
    dir.write("a.safetensors", file_of({{"w", top, {0, 0}}}));
    dir.write("b.safetensors", file_of({{"w", bottom, {2, 0}}}));
    const CheckpointInfo info = read_info(dir.path.string());
    EXPECT_EQ(info.format, Format::kSafetensors);
    EXPECT_EQ(info.tensors.at("w").shape, (std::vector<int64_t>{3, 4}));
    at::Tensor w = at::zeros({3, 4});
    load({{"w", w}}, dir.path.string());
    EXPECT_TRUE(at::equal(w, at::cat({top, bottom})));
    EXPECT_NE(
        error_of([&] {
          load_object(dir.path.string(), "step");
        }).find("not representable"),
        std::string::npos);
    // A stray file of another save: overlapping chunks.
    dir.write("c.safetensors", file_of({{"w", bottom, {1, 0}}}));
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("has overlapping chunks"),
        std::string::npos);
    fs::remove(dir.path / "c.safetensors");
    // A missing rank file: a hole.
    fs::remove(dir.path / "a.safetensors");
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("cover 4 of its 12 elements"),
        std::string::npos);
    // One dtype throughout.
    dir.write("a.safetensors", file_of({{"w", top.to(at::kDouble), {0, 0}}}));
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("and Double of 2 dims in a.safetensors"),
        std::string::npos);
    // Sharding info naming what the file lacks, or of the wrong rank.
    dir.write(
        "a.safetensors", file_of({{"w", top, {0, 0}}}).substr(0, 0) + [&] {
          std::vector<SafetensorsTensor> h{{"w", at::kFloat, {2, 4}}};
          return safetensors_header_bytes(
                     h,
                     {{kShardingInfoKey, R"({"w": {"saved_offsets": [0]}})"}}) +
              std::string(
                     static_cast<const char*>(top.data_ptr()), top.nbytes());
        }());
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("2 dims and 1 saved_offsets"),
        std::string::npos);
  }
  {
    // Consolidated, with an index that must agree.
    TempDir dir;
    dir.write(
        "model-00001-of-00002.safetensors", file_of({{"w", top, {0, 0}}}));
    dir.write(
        "model-00002-of-00002.safetensors",
        file_of({{"b", bottom.flatten(), {0}}}));
    dir.write(
        kSafetensorsIndex,
        R"({"metadata": {}, "weight_map": {"w": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
    EXPECT_EQ(read_info(dir.path.string()).tensors.size(), 2u);
    EXPECT_NE(
        verify(dir.path.string()).find("all readable"), std::string::npos);
    dir.write(
        kSafetensorsIndex,
        R"({"weight_map": {"w": "model-00002-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("weight_map puts entry 'w' in model-00002"),
        std::string::npos);
    dir.write(
        kSafetensorsIndex,
        R"({"weight_map": {"w": "model-00001-of-00002.safetensors"}})");
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("weight_map lacks entry 'b'"),
        std::string::npos);
    dir.write(kSafetensorsIndex, R"({"weight_map": )");
    EXPECT_NE(
        error_of([&] { read_info(dir.path.string()); }).find("malformed JSON"),
        std::string::npos);
  }
}
