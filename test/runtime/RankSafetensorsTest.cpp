// meshguard::checkpoint against PyTorch's Hugging Face safetensors layouts:
// the checkpoints PyTorch 2.x's HuggingFaceStorageWriter wrote on 2 ranks
// (one file per rank with DCP_SHARDING_INFO, and consolidated) load on this
// run's ranks into other placements, 1-D and 2x2, every value compared with
// PyTorch's full tensors; meshguard saves the per-rank layout for PyTorch's
// HuggingFaceStorageReader. test/checkpoint/safetensors_run.py writes the
// checkpoints and sets MESHGUARD_SAFETENSORS_DIR (skipped without it).

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

std::string safetensors_dir() {
  const char* d = std::getenv("MESHGUARD_SAFETENSORS_DIR");
  return d ? d : "";
}

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

// Every rank here before any goes on (full_tensor gathers).
void barrier(const DeviceMesh& mesh) {
  full_tensor(distribute_tensor(at::zeros({world_size()}), mesh, {S0}));
}

// What SavesWhatPyTorchLoads writes, the same on every rank.
std::map<std::string, at::Tensor> save_values() {
  std::map<std::string, at::Tensor> v;
  v["w"] = rnd({7, 5}, 160);
  v["cols"] = rnd({4, 9}, 161);
  v["r"] = rnd({3, 3}, 162);
  v["half"] = rnd({5, 2}, 163).to(at::kBFloat16);
  v["tiny"] = rnd({1, 4}, 164);
  v["d"] = rnd({4, 3}, 165).to(at::kDouble);
  v["plain"] = at::arange(3, at::kLong);
  v["mask"] = at::arange(6).remainder(3).eq(0).reshape({2, 3});
  v["scalar"] = at::scalar_tensor(2.5);
  return v;
}

} // namespace

TEST(Safetensors, LoadsWhatPyTorchSavedOnAnyMesh) {
  const std::string dir = safetensors_dir();
  if (dir.empty()) {
    GTEST_SKIP() << "MESHGUARD_SAFETENSORS_DIR is not set "
                    "(test/checkpoint/safetensors_run.py sets it)";
  }
  auto mesh = world_mesh();
  size_t checked = 0;
  for (const char* saved : {"distributed", "consolidated", "meshguard"}) {
    const std::string ck = dir + "/" + saved;
    EXPECT_EQ(
        checkpoint::read_info(ck).format, checkpoint::Format::kSafetensors)
        << saved;
    for (const auto& [name, x] : read_expected(ck + ".expected.pt")) {
      std::vector<Placements> targets{{R}};
      if (x.dim() >= 1) {
        targets.push_back({S0});
      }
      if (x.dim() >= 2) {
        targets.push_back({Shard{x.dim() - 1}});
      }
      for (const Placements& p : targets) {
        auto t = distribute_tensor(at::zeros_like(x), mesh, p);
        checkpoint::load({{name, t}}, ck);
        EXPECT_TRUE(torch::equal(full_tensor(t), x))
            << saved << "/" << name << " into " << to_string(p);
        ++checked;
      }
      auto plain = at::zeros_like(x);
      checkpoint::load({{name, plain}}, ck);
      EXPECT_TRUE(torch::equal(plain, x))
          << saved << "/" << name << " into a plain tensor";
    }
    if (world_size() == 4) {
      auto mesh2 = init_device_mesh("cpu", {2, 2});
      for (const auto& [name, x] : read_expected(ck + ".expected.pt")) {
        if (x.dim() < 2) {
          continue;
        }
        for (const Placements& p :
             {Placements{S0, S1}, Placements{S1, R}, Placements{R, S0}}) {
          auto t = distribute_tensor(at::zeros_like(x), mesh2, p);
          checkpoint::load({{name, t}}, ck);
          EXPECT_TRUE(torch::equal(full_tensor(t), x))
              << saved << "/" << name << " into 2x2 " << to_string(p);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 40u);
  EXPECT_NE(
      error_text([&] {
        checkpoint::load_object(dir + "/distributed", "step");
      }).find("not representable"),
      std::string::npos);
}

// meshguard saves the per-rank layout (uneven and empty blocks, Replicate
// written once, plain tensors); safetensors_run.py has PyTorch's
// HuggingFaceStorageReader load it on 2 and 4 ranks. A save replaces the
// last one whole; one that fails on the ranks publishes nothing.
TEST(Safetensors, SavesWhatPyTorchLoads) {
  const std::string dir = safetensors_dir();
  if (dir.empty() || std::getenv("MESHGUARD_SAFETENSORS_SAVE") == nullptr) {
    GTEST_SKIP() << "the saving run of test/checkpoint/safetensors_run.py sets "
                    "MESHGUARD_SAFETENSORS_DIR/_SAVE";
  }
  auto mesh = world_mesh();
  const auto v = save_values();
  std::map<std::string, at::Tensor> sd{
      {"w", distribute_tensor(v.at("w"), mesh, {S0})},
      {"cols", distribute_tensor(v.at("cols"), mesh, {S1})},
      {"r", distribute_tensor(v.at("r"), mesh, {R})},
      {"half", distribute_tensor(v.at("half"), mesh, {S0})},
      {"tiny", distribute_tensor(v.at("tiny"), mesh, {S0})},
      {"d", distribute_tensor(v.at("d"), mesh, {S1})},
      {"plain", v.at("plain")},
      {"mask", v.at("mask")},
      {"scalar", v.at("scalar")},
  };
  const std::string out = dir + "/meshguard";
  checkpoint::SaveOptions st;
  st.format = checkpoint::Format::kSafetensors;
  // A first save of other values, replaced whole by the second.
  checkpoint::save(
      {{"old", distribute_tensor(at::ones({6}), mesh, {S0})}},
      out,
      mesh,
      {},
      st);
  checkpoint::save(sd, out, mesh, {}, st);
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(out)) {
    EXPECT_EQ(f.path().extension(), ".safetensors") << f.path();
    ++files;
  }
  EXPECT_EQ(files, static_cast<size_t>(world_size()));
  EXPECT_EQ(checkpoint::read_info(out).tensors.count("old"), 0u);

  // Refused before anything is written: objects, and a dtype safetensors
  // files of meshguard do not hold.
  EXPECT_NE(
      error_text([&] {
        checkpoint::save(sd, out, mesh, {{"step", 1}}, st);
      }).find("not representable"),
      std::string::npos);
  // A directory with other files in it is not replaced: every rank throws,
  // the checkpoint stays as it was.
  barrier(mesh);
  const std::string busy = dir + "/busy";
  if (rank() == 0) {
    fs::create_directories(busy);
    std::ofstream(busy + "/notes.txt") << "mine";
  }
  barrier(mesh);
  const std::string refused =
      error_text([&] { checkpoint::save(sd, busy, mesh, {}, st); });
  EXPECT_NE(refused.find("nothing was published"), std::string::npos)
      << refused;
  EXPECT_NE(refused.find("not a checkpoint's"), std::string::npos) << refused;
  EXPECT_TRUE(fs::exists(busy + "/notes.txt"));
  for (const auto& f : fs::directory_iterator(dir)) {
    EXPECT_EQ(f.path().filename().string().find(".saving-"), std::string::npos)
        << f.path();
  }

  // meshguard's record in its files finds a missing last rank file (whose
  // loss would leave blocks that tile a smaller shape) and a stray file.
  const fs::path copy = fs::path(dir) / ("mine-" + std::to_string(rank()));
  fs::remove_all(copy);
  fs::copy(out, copy);
  const std::string last = "shard-0000" + std::to_string(world_size()) +
      "-model-00001-of-00001.safetensors";
  fs::rename(
      copy / last, fs::path(dir) / (last + "-" + std::to_string(rank())));
  const std::string lost =
      error_text([&] { checkpoint::read_info(copy.string()); });
  EXPECT_NE(
      lost.find(
          "which wrote " + std::to_string(world_size()) +
          " (a rank's file missing?)"),
      std::string::npos)
      << lost;
  fs::copy_file(
      fs::path(dir) / "distributed" /
          "shard-00001-model-00001-of-00001.safetensors",
      copy / last);
  const std::string stray =
      error_text([&] { checkpoint::read_info(copy.string()); });
  EXPECT_NE(stray.find("no meshguard_save record"), std::string::npos) << stray;
  fs::remove_all(copy);
  fs::remove(fs::path(dir) / (last + "-" + std::to_string(rank())));

  auto w = distribute_tensor(at::zeros({7, 5}), mesh, {R});
  checkpoint::load({{"w", w}}, out);
  EXPECT_TRUE(torch::equal(full_tensor(w), v.at("w")));
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

// Damaged copies of PyTorch's per-rank checkpoint: clear errors naming the
// file and entry. Each rank works on its own copy.
TEST(Safetensors, DamagedCheckpointsAreClearErrors) {
  const std::string dir = safetensors_dir();
  if (dir.empty()) {
    GTEST_SKIP() << "MESHGUARD_SAFETENSORS_DIR is not set "
                    "(test/checkpoint/safetensors_run.py sets it)";
  }
  const fs::path copy = fs::path(dir) / ("damaged-" + std::to_string(rank()));
  fs::remove_all(copy);
  fs::copy(fs::path(dir) / "distributed", copy);
  const fs::path first = copy / "shard-00001-model-00001-of-00001.safetensors";
  const fs::path second = copy / "shard-00002-model-00001-of-00001.safetensors";
  auto w = at::zeros({5, 3});
  checkpoint::load({{"w", w}}, copy.string());
  ASSERT_NE(w.abs().sum().item<float>(), 0.0f);
  // A rank's file missing: the tensors it held are short.
  fs::rename(first, copy / "aside");
  const std::string missing =
      error_text([&] { checkpoint::load({{"w", w}}, copy.string()); });
  EXPECT_NE(
      missing.find(" elements (a rank's file missing?)"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find(copy.string()), std::string::npos) << missing;
  fs::rename(copy / "aside", first);
  // A file of another save beside them: overlapping chunks.
  fs::copy_file(first, copy / "stray.safetensors");
  EXPECT_NE(
      error_text([&] {
        checkpoint::read_info(copy.string());
      }).find("has overlapping chunks"),
      std::string::npos);
  fs::remove(copy / "stray.safetensors");
  // Cut short: the file named, and the entry whose bytes are gone.
  fs::resize_file(second, fs::file_size(second) - 3);
  const std::string cut =
      error_text([&] { checkpoint::read_info(copy.string()); });
  EXPECT_NE(cut.find(second.string() + ": entry '"), std::string::npos) << cut;
  EXPECT_NE(cut.find("outside the file's data section"), std::string::npos)
      << cut;
  fs::remove_all(copy);
}
