// The safetensors reader over whole checkpoint directories: mutated rank
// files through read_info, verify and load (1,001 directories: a clear
// error naming the directory, or the original values for every entry whose
// header survived), and the directory-level checks: chunks that tile each
// shape, one dtype per entry, DCP_SHARDING_INFO that fits its file,
// model.safetensors.index.json that agrees with the files.

#include <random>

#include <gtest/gtest.h>

#include <meshguard/runtime/Checkpoint.h>

#include "SafetensorsTestUtil.h"

using namespace meshguard::checkpoint;
using namespace meshguard::testing::safetensors;
namespace fs = std::filesystem;

namespace {

const char* kPath = "directory.safetensors";

bool same(const SafetensorsTensor& a, const SafetensorsTensor& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape &&
      a.begin == b.begin && a.end == b.end;
}

} // namespace

// Whole directories: read_info, verify and load take a mutated rank file or
// fail naming it; an entry whose header survived intact loads the original
// values (a changed dtype or shape of the same size is a reinterpretation
// no reader can detect: safetensors has no checksum).
TEST(SafetensorsDirectory, MutatedDirectoriesAreErrorsOrSound) {
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

TEST(SafetensorsDirectory, Checks) {
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
    // Sharding info of the wrong rank, or naming what the file lacks.
    const std::string data(
        static_cast<const char*>(top.data_ptr()), top.nbytes());
    std::vector<SafetensorsTensor> h{{"w", at::kFloat, {2, 4}}};
    dir.write(
        "a.safetensors",
        safetensors_header_bytes(
            h, {{kShardingInfoKey, R"({"w": {"saved_offsets": [0]}})"}}) +
            data);
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("2 dims and 1 saved_offsets"),
        std::string::npos);
    dir.write(
        "a.safetensors",
        safetensors_header_bytes(
            h,
            {{kShardingInfoKey,
              R"({"w": {"saved_offsets": [0, 0]}, "v": {"saved_offsets": []}})"}}) +
            data);
    EXPECT_NE(
        error_of([&] {
          read_info(dir.path.string());
        }).find("names entry 'v', which the file does not hold"),
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
