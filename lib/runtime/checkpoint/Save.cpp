// Saving a state dict as PyTorch's DCP FileSystemWriter does: every rank
// writes the blocks it holds (each a torch.save archive) to its own file;
// the ranks' records (entry, offsets, sizes, file range) are gathered over
// the mesh; the mesh's first rank publishes .metadata. Files carry a token
// of this save in their names, so a save that dies half-way overwrites
// nothing the previous checkpoint's metadata points to.

#include <meshguard/runtime/Checkpoint.h>

#include <c10/util/accumulate.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "checkpoint/DcpMetadata.h"
#include "checkpoint/Files.h"
#include "checkpoint/LocalBlock.h"
#include "checkpoint/Safetensors.h"
#include "checkpoint/SavePhases.h"
#include "checkpoint/SaveSupport.h"

namespace meshguard {
namespace checkpoint {

namespace {

namespace fs = std::filesystem;

std::string join_ints(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? "," : "") + std::to_string(v[i]);
  }
  return out;
}

std::vector<int64_t> split_ints(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    out.push_back(std::stoll(part));
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) {
    out.push_back(part);
  }
  return out;
}

// Writes `value` in torch.save's format (what pickle_save makes) straight
// into `out`: pickle_save would build the whole archive in memory first.
// Returns where it starts and sets its length.
uint64_t
write_archive(const c10::IValue& value, FileWriter& out, uint64_t& length) {
  std::vector<char> pickle;
  torch::jit::Pickler pickler([&](const char* bytes, size_t n) {
    pickle.insert(pickle.end(), bytes, bytes + n);
  });
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();
  const uint64_t start = out.size();
  // The zip writer must not see an exception (its destructor writes too):
  // the first failure is kept and thrown after it is gone.
  std::string failure;
  {
    caffe2::serialize::PyTorchStreamWriter zip(
        [&](const void* data, size_t n) -> size_t {
          if (failure.empty()) {
            try {
              out.write(static_cast<const char*>(data), n);
            } catch (const std::exception& e) {
              failure = e.what();
            }
          }
          return n;
        });
    torch::jit::writeArchiveAndTensors(
        "data", pickle.data(), pickle.size(), pickler.tensorData(), zip);
    zip.writeEndOfFile();
  }
  TORCH_CHECK(failure.empty(), failure);
  length = out.size() - start;
  return start;
}

// Writes this rank's items and objects to `file`; returns the records.
std::string write_items(
    const std::string& dir,
    const std::string& file,
    const std::vector<Item>& items,
    const std::map<std::string, c10::IValue>& objects) {
  std::ostringstream records;
  if (items.empty() && objects.empty()) {
    return "";
  }
  FileWriter out(join(dir, file));
  uint64_t length = 0;
  for (const Item& item : items) {
    const uint64_t at = write_archive(compact(item.value), out, length);
    records << "T\t" << item.name << "\t" << join_ints(item.offsets) << "\t"
            << join_ints(item.sizes) << "\t" << file << "\t" << at << "\t"
            << length << "\n";
  }
  for (const auto& [name, value] : objects) {
    const uint64_t at = write_archive(value, out, length);
    records << "O\t" << name << "\t" << file << "\t" << at << "\t" << length
            << "\n";
  }
  out.sync_and_close();
  return records.str();
}

// The metadata of every rank's records.
CheckpointInfo collect(
    const std::vector<std::string>& records,
    const CheckpointInfo& skeleton) {
  CheckpointInfo info = skeleton;
  for (const std::string& rank_records : records) {
    for (const std::string& line : split(rank_records, '\n')) {
      const std::vector<std::string> f = split(line, '\t');
      if (f.size() == 7 && f[0] == "T") {
        info.tensors.at(f[1]).chunks.push_back(Chunk{
            split_ints(f[2]),
            split_ints(f[3]),
            f[4],
            std::stoull(f[5]),
            std::stoull(f[6])});
      } else if (f.size() == 5 && f[0] == "O") {
        info.objects[f[1]] =
            ObjectEntry{f[2], std::stoull(f[3]), std::stoull(f[4])};
      }
    }
  }
  for (auto& [name, e] : info.tensors) {
    std::sort(
        e.chunks.begin(), e.chunks.end(), [](const Chunk& a, const Chunk& b) {
          return a.offsets < b.offsets;
        });
    int64_t covered = 0;
    for (const Chunk& c : e.chunks) {
      covered += c10::multiply_integers(c.sizes);
    }
    TORCH_CHECK(
        covered == c10::multiply_integers(e.shape) && !e.chunks.empty(),
        "checkpoint::save: the blocks written of '",
        name,
        "' cover ",
        covered,
        " of its ",
        c10::multiply_integers(e.shape),
        " elements (a bug; please report it)");
  }
  return info;
}

// Data files no entry of `info` names: an earlier save's.
void remove_stale_files(const std::string& dir, const CheckpointInfo& info) {
  std::set<std::string> used;
  for (const auto& [name, e] : info.tensors) {
    for (const Chunk& c : e.chunks) {
      used.insert(c.file);
    }
  }
  for (const auto& [name, o] : info.objects) {
    used.insert(o.file);
  }
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    const std::string file = f.path().filename().string();
    if (file.rfind("__", 0) == 0 && f.path().extension() == ".distcp" &&
        used.count(file) == 0) {
      fs::remove(f.path(), ec);
    }
  }
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

} // namespace

StagedSave stage_save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options,
    const std::function<at::Tensor(const at::Tensor&)>& stage) {
  StagedSave s;
  s.dir = dir;
  s.publisher_rank = mesh.mesh().front();
  s.items = items_to_write(tensors, mesh, options);
  if (stage) {
    for (Item& item : s.items) {
      item.value = stage(item.value.detach());
    }
  }
  if (is_first_rank(mesh)) {
    s.objects = objects;
  }
  for (const auto& [name, t] : tensors) {
    const DTensorImpl* impl = get_dtensor_impl(t);
    TensorEntry& e = s.skeleton.tensors[name];
    e.dtype = t.scalar_type();
    e.shape = impl ? impl->spec().shape : t.sizes().vec();
  }
  return s;
}

void write_and_publish(const StagedSave& s, const DeviceMesh& coordination) {
  const std::vector<int64_t>& order = coordination.mesh();
  const auto at = std::find(order.begin(), order.end(), s.publisher_rank);
  TORCH_CHECK(
      at != order.end(),
      "checkpoint: the coordination mesh lacks rank ",
      s.publisher_rank);
  const size_t publisher = static_cast<size_t>(at - order.begin());
  const bool publishes = coordination.get_rank() == s.publisher_rank;
  // This save's token: a random number, so that its files never overwrite
  // a file the previous metadata names.
  const std::string token = gather_strings(
      std::to_string(std::random_device{}() & 0xffffff), coordination)[0];
  const std::string file =
      "__" + std::to_string(coordination.get_rank()) + "_" + token + ".distcp";
  std::string mine;
  try {
    std::error_code ec;
    fs::create_directories(s.dir, ec);
    mine = write_items(s.dir, file, s.items, s.objects);
  } catch (const std::exception& e) {
    mine = "E\t" + first_line(e.what()) + "\n";
  }
  const std::vector<std::string> records = gather_strings(mine, coordination);
  std::string failed;
  for (size_t r = 0; r < records.size(); ++r) {
    if (records[r].rfind("E\t", 0) == 0) {
      failed += "\n  rank " + std::to_string(order[r]) + ": " +
          records[r].substr(2, records[r].size() - 3);
    }
  }
  TORCH_CHECK(
      failed.empty(),
      "checkpoint::save to ",
      s.dir,
      ": nothing was published; ranks failed to write:",
      failed);
  std::string publish_error;
  if (publishes) {
    try {
      const CheckpointInfo info = collect(records, s.skeleton);
      publish_file(s.dir, ".metadata", encode_metadata(info));
      remove_stale_files(s.dir, info);
    } catch (const std::exception& e) {
      publish_error = first_line(e.what());
    }
  }
  // No rank returns before the metadata is in place (or has failed).
  const std::string published =
      gather_strings(publish_error, coordination)[publisher];
  TORCH_CHECK(
      published.empty(),
      "checkpoint::save to ",
      s.dir,
      ": the metadata was not published: ",
      published);
}

void save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options) {
  if (options.format == Format::kSafetensors) {
    save_safetensors(tensors, dir, mesh, objects, options);
    return;
  }
  write_and_publish(stage_save(tensors, dir, mesh, objects, options), mesh);
}

} // namespace checkpoint
} // namespace meshguard
