// The safetensors header parser against damaged and hostile input, in one
// process: a deterministic mutation fuzzer (truncations, flipped header
// bytes, header-length lies, random JSON edits: 20,714 files) and
// hand-made headers (offsets out of range, overlapping tensors, wrong dtype
// sizes, deep nesting...). Every input must be a c10::Error naming the
// file, or a header whose every tensor lies within the file with the bytes
// its dtype and shape need. Also the JSON reader alone. Whole directories:
// SafetensorsDirectoryTest.cpp.

#include <random>

#include <gtest/gtest.h>

#include "SafetensorsTestUtil.h"
#include "checkpoint/Json.h"

using namespace meshguard::checkpoint;
using namespace meshguard::testing::safetensors;

namespace {

const char* kPath = "fuzz.safetensors";

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
        R"("\x")",
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
