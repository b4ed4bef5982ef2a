// meshguard::checkpoint against PyTorch's Distributed Checkpoint: the
// checkpoints PyTorch's dcp.save wrote on 2 ranks (1-D) and 4 ranks (2x2)
// are loaded on this run's ranks into other placements (and plain
// tensors), every value compared with PyTorch's full tensors; damaged
// copies must be clear errors. test/checkpoint/run.py writes the
// checkpoints and sets MESHGUARD_CHECKPOINT_DIR (skipped without it).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include <meshguard/runtime/Checkpoint.h>

#include "CheckpointTestUtil.h"
#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;
namespace fs = std::filesystem;

namespace {

std::string checkpoint_dir() {
  const char* d = std::getenv("MESHGUARD_CHECKPOINT_DIR");
  return d ? d : "";
}

// Placements on a 1-D mesh that differ from how PyTorch saved them.
std::vector<Placements> targets(const at::Tensor& x) {
  std::vector<Placements> out{{R}};
  if (x.dim() >= 1) {
    out.push_back({S0});
  }
  if (x.dim() >= 2) {
    out.push_back({Shard{x.dim() - 1}});
  }
  return out;
}

} // namespace

TEST(Checkpoint, LoadsWhatPyTorchSavedOnAnyMesh) {
  const std::string dir = checkpoint_dir();
  if (dir.empty()) {
    GTEST_SKIP()
        << "MESHGUARD_CHECKPOINT_DIR is not set (test/checkpoint/run.py sets it)";
  }
  auto mesh = world_mesh();
  // PyTorch's two checkpoints, and meshguard's own (SavesWhatPyTorchLoads).
  for (const char* saved : {"one_d", "two_d", "meshguard"}) {
    const std::string ck = dir + "/" + saved;
    for (const auto& [name, x] : read_expected(ck + ".expected.pt")) {
      for (const Placements& p : targets(x)) {
        auto t = distribute_tensor(at::zeros_like(x), mesh, p);
        checkpoint::load({{name, t}}, ck);
        EXPECT_TRUE(torch::equal(full_tensor(t), x))
            << saved << "/" << name << " into " << to_string(p);
      }
      auto plain = at::zeros_like(x);
      checkpoint::load({{name, plain}}, ck);
      EXPECT_TRUE(torch::equal(plain, x))
          << saved << "/" << name << " into a plain tensor";
    }
  }
  if (world_size() == 4) {
    auto mesh2 = init_device_mesh("cpu", {2, 2});
    for (const char* saved : {"one_d", "two_d", "meshguard"}) {
      const std::string ck = dir + "/" + saved;
      for (const auto& [name, x] : read_expected(ck + ".expected.pt")) {
        if (x.dim() < 2) {
          continue;
        }
        for (const Placements& p :
             {Placements{S0, S1}, Placements{S1, R}, Placements{S1, S0}}) {
          auto t = distribute_tensor(at::zeros_like(x), mesh2, p);
          checkpoint::load({{name, t}}, ck);
          EXPECT_TRUE(torch::equal(full_tensor(t), x))
              << saved << "/" << name << " into 2x2 " << to_string(p);
        }
      }
    }
  }
  // A libtorch module takes the parameters of PyTorch's nn.Linear(3, 2),
  // saved as {"model": lin.state_dict()}.
  torch::nn::Linear lin(3, 2);
  checkpoint::load(checkpoint::module_state(*lin, "model."), dir + "/one_d");
  const auto pytorch = read_expected(dir + "/one_d.expected.pt");
  EXPECT_TRUE(torch::equal(lin->weight, pytorch.at("model.weight")));
  EXPECT_TRUE(torch::equal(lin->bias, pytorch.at("model.bias")));
  EXPECT_TRUE(lin->weight.requires_grad());
  EXPECT_EQ(checkpoint::load_object(dir + "/one_d", "step").toInt(), 7);
  EXPECT_EQ(
      checkpoint::load_object(dir + "/one_d", "name").toStringRef(), "adam");
}

// A damaged or foreign checkpoint is an error naming the file and entry,
// never a wrong tensor, never a crash. Each rank works on its own copy.
TEST(Checkpoint, DamagedCheckpointsAreClearErrors) {
  const std::string dir = checkpoint_dir();
  if (dir.empty()) {
    GTEST_SKIP()
        << "MESHGUARD_CHECKPOINT_DIR is not set (test/checkpoint/run.py sets it)";
  }
  const fs::path copy = fs::path(dir) / ("damaged-" + std::to_string(rank()));
  fs::remove_all(copy);
  fs::copy(fs::path(dir) / "one_d", copy, fs::copy_options::recursive);
  auto w = at::zeros({5, 3});
  checkpoint::load({{"w", w}}, copy.string());
  ASSERT_NE(w.abs().sum().item<float>(), 0.0f);

  EXPECT_NE(
      error_of([&] {
        checkpoint::load({{"nope", at::zeros({1})}}, copy.string());
      }).find("has no tensor entry 'nope'"),
      std::string::npos);
  EXPECT_NE(
      error_of([&] {
        checkpoint::load({{"w", at::zeros({4, 3})}}, copy.string());
      }).find("'w' has shape [4, 3] here and [5, 3] in the checkpoint"),
      std::string::npos);
  auto partial = from_local(
      at::zeros({5, 3}), world_mesh(), {P}, false, std::vector<int64_t>{5, 3});
  EXPECT_NE(
      error_of([&] {
        checkpoint::load({{"w", partial}}, copy.string());
      }).find("is Partial"),
      std::string::npos);

  // Every data file cut in half: the entry that needs the missing bytes
  // is named, with the file.
  for (const auto& f : fs::directory_iterator(copy)) {
    if (f.path().extension() == ".distcp") {
      fs::resize_file(f.path(), fs::file_size(f.path()) / 2);
    }
  }
  const std::string truncated = error_of([&] {
    for (const char* name : {"w", "cols", "b", "tiny", "bf", "ids", "scalar"}) {
      auto t =
          at::zeros_like(read_expected(dir + "/one_d.expected.pt").at(name));
      checkpoint::load({{name, t}}, copy.string());
    }
  });
  EXPECT_NE(truncated.find(".distcp: truncated: entry '"), std::string::npos)
      << truncated;

  // Mutated metadata (random bytes changed, cut, repeated): read or a clear
  // error, never a crash or a hang.
  std::ifstream original(copy / ".metadata", std::ios::binary);
  const std::string metadata(
      (std::istreambuf_iterator<char>(original)),
      std::istreambuf_iterator<char>());
  original.close();
  auto gen = at::make_generator<at::CPUGeneratorImpl>(160 + rank());
  size_t errors = 0;
  for (int i = 0; i < 300; ++i) {
    std::string m = metadata;
    const int64_t edits = at::randint(1, 4, {1}, gen).item<int64_t>();
    for (int64_t e = 0; e < edits; ++e) {
      const auto at = static_cast<size_t>(
          at::randint(0, static_cast<int64_t>(m.size()), {1}, gen)
              .item<int64_t>());
      m[at] = static_cast<char>(at::randint(0, 256, {1}, gen).item<int64_t>());
    }
    if (i % 3 == 0) {
      m.resize(static_cast<size_t>(
          at::randint(0, static_cast<int64_t>(m.size()), {1}, gen)
              .item<int64_t>()));
    }
    std::ofstream(copy / ".metadata", std::ios::binary | std::ios::trunc) << m;
    errors +=
        error_of([&] { checkpoint::read_info(copy.string()); }) != "(no error)";
  }
  EXPECT_GT(errors, 0u);

  // A metadata pickle that would run a program: refused by name, nothing run.
  const std::string evil(
      "\x80\x02"
      "cposix\nsystem\n"
      "X\x04\x00\x00\x00"
      "true"
      "\x85R.",
      28);
  std::ofstream(copy / ".metadata", std::ios::binary | std::ios::trunc) << evil;
  const std::string refused =
      error_of([&] { checkpoint::read_info(copy.string()); });
  EXPECT_NE(
      refused.find(
          "names 'posix.system', which a checkpoint's metadata may not"),
      std::string::npos)
      << refused;
  // Cut short.
  std::ofstream(copy / ".metadata", std::ios::binary | std::ios::trunc)
      << std::string("\x80\x04\x95", 3);
  EXPECT_NE(
      error_of([&] {
        checkpoint::read_info(copy.string());
      }).find("truncated pickle"),
      std::string::npos);
  EXPECT_NE(
      error_of([&] {
        checkpoint::read_info((copy / "missing").string());
      }).find("cannot be opened"),
      std::string::npos);
  fs::remove_all(copy);
}

namespace {

// What SavesWhatPyTorchLoads writes, the same on every rank.
std::map<std::string, at::Tensor> save_values() {
  std::map<std::string, at::Tensor> v;
  v["w"] = rnd({7, 5}, 150);
  v["cols"] = rnd({4, 9}, 151);
  v["r"] = rnd({3, 3}, 152);
  v["half"] = rnd({5, 2}, 153).to(at::kBFloat16);
  v["tiny"] = rnd({1, 4}, 154);
  v["plain"] = at::arange(3, at::kLong);
  v["scalar"] = at::scalar_tensor(2.5);
  // Multiples of the world size: a Partial's shares add up exactly.
  v["part"] =
      at::randint(-4, 4, {4, 2}, at::make_generator<at::CPUGeneratorImpl>(155))
          .to(at::kFloat) *
      world_size();
  return v;
}

} // namespace

// meshguard saves (uneven and empty blocks, Replicate written once, a
// Partial reduced when asked, plain tensors and objects); test/checkpoint's
// pytorch_load.py loads it with dcp.load on other world sizes, and
// LoadsWhatPyTorchSavedOnAnyMesh loads it back here. Saving again replaces
// the files; a save that fails publishes nothing and keeps the last one.
TEST(Checkpoint, SavesWhatPyTorchLoads) {
  const std::string dir = checkpoint_dir();
  if (dir.empty()) {
    GTEST_SKIP()
        << "MESHGUARD_CHECKPOINT_DIR is not set (test/checkpoint/run.py sets it)";
  }
  if (std::getenv("MESHGUARD_CHECKPOINT_SAVE") == nullptr) {
    GTEST_SKIP()
        << "loading run (run.py sets MESHGUARD_CHECKPOINT_SAVE for the saving run)";
  }
  auto mesh = world_mesh();
  const auto v = save_values();
  std::map<std::string, at::Tensor> sd{
      {"w", distribute_tensor(v.at("w"), mesh, {S0})},
      {"cols", distribute_tensor(v.at("cols"), mesh, {S1})},
      {"r", distribute_tensor(v.at("r"), mesh, {R})},
      {"half", distribute_tensor(v.at("half"), mesh, {S0})},
      {"tiny", distribute_tensor(v.at("tiny"), mesh, {S0})},
      {"plain", v.at("plain")},
      {"scalar", v.at("scalar")},
      {"part",
       from_local(
           v.at("part") / world_size(),
           mesh,
           {P},
           false,
           std::vector<int64_t>{4, 2})},
  };
  const std::string out = dir + "/meshguard";
  EXPECT_NE(
      error_of([&] {
        checkpoint::save(sd, out, mesh);
      }).find("'part' is Partial on mesh dim 0"),
      std::string::npos);
  checkpoint::SaveOptions reduce;
  reduce.reduce_partial = true;
  auto before = v.at("w") * 0 - 1;
  checkpoint::save(
      {{"w", distribute_tensor(before, mesh, {S0})}},
      out,
      mesh,
      {{"step", 1}},
      reduce);
  checkpoint::save(
      sd,
      out,
      mesh,
      {{"step", 11}, {"name", std::string("meshguard")}},
      reduce);
  // One data file per rank that holds a block, none left from the first save.
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(out)) {
    files += f.path().extension() == ".distcp";
  }
  EXPECT_LE(files, static_cast<size_t>(world_size()));

  // A failing save (an object that cannot be pickled, written by the first
  // rank): every rank throws, the last checkpoint stays loadable.
  auto future = c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
  const std::string failed = error_of([&] {
    checkpoint::save(
        {{"w", distribute_tensor(before, mesh, {S0})}},
        out,
        mesh,
        {{"f", future}});
  });
  EXPECT_NE(failed.find("nothing was published"), std::string::npos) << failed;
  auto w = distribute_tensor(at::zeros({7, 5}), mesh, {R});
  checkpoint::load({{"w", w}}, out);
  EXPECT_TRUE(torch::equal(full_tensor(w), v.at("w")));
  EXPECT_EQ(checkpoint::load_object(out, "step").toInt(), 11);
  if (rank() == 0) {
    c10::impl::GenericDict expected(
        c10::StringType::get(), c10::TensorType::get());
    for (const auto& [name, x] : v) {
      expected.insert(name, x);
    }
    const std::vector<char> bytes = torch::jit::pickle_save(expected);
    std::ofstream(out + ".expected.pt", std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
}
