// Saving in DCP's per-rank safetensors layout (HuggingFaceStorageWriter with
// save_distributed=True): each rank writes the blocks it holds to its own
// file, their offsets in DCP_SHARDING_INFO. There is no index file to
// publish last, so the whole checkpoint is written into a staging directory
// beside `dir` and swapped into place in one step once every rank is done.

#include <cstdio>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <unistd.h>

#include <c10/util/Exception.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "checkpoint/Files.h"
#include "checkpoint/Json.h"
#include "checkpoint/Safetensors.h"
#include "checkpoint/SaveSupport.h"

namespace meshguard {
namespace checkpoint {

namespace {

namespace fs = std::filesystem;

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// `dir` without a trailing slash ("ck/" names ck, not a place inside it).
fs::path plain(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

// The renames durable: the directory that holds them synced.
void sync_parent(const fs::path& p) {
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// kSaveRecordKey's value for a file of this save holding `items`:
// {"token": "...", "files": 3, "shapes": {"w": [7, 5]}}.
std::string save_record(
    const std::string& token,
    size_t files,
    const std::vector<Item>& items,
    const std::map<std::string, at::Tensor>& tensors) {
  std::string shapes;
  for (const Item& item : items) {
    const at::Tensor& t = tensors.at(item.name);
    const DTensorImpl* impl = get_dtensor_impl(t);
    const std::vector<int64_t> shape =
        impl ? impl->spec().shape : t.sizes().vec();
    shapes += (shapes.empty() ? "" : ", ") + json_quote(item.name) + ": [";
    for (size_t d = 0; d < shape.size(); ++d) {
      shapes += (d ? ", " : "") + std::to_string(shape[d]);
    }
    shapes += "]";
  }
  return "{\"token\": " + json_quote(token) +
      ", \"files\": " + std::to_string(files) + ", \"shapes\": {" + shapes +
      "}}";
}

void write_rank_file(
    const std::string& path,
    const std::vector<Item>& items,
    const std::string& record) {
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::vector<int64_t>>> offsets;
  for (const Item& item : items) {
    SafetensorsTensor t;
    t.name = item.name;
    t.dtype = item.value.scalar_type();
    t.shape = item.sizes;
    tensors.push_back(t);
    offsets.emplace_back(item.name, item.offsets);
  }
  // The metadata keys HuggingFaceStorageWriter writes.
  const std::string header = safetensors_header_bytes(
      tensors,
      {{kShardingInfoKey, sharding_info_json(offsets)},
       {"DCP_VERSION", "1.0"},
       {"format", "pt"},
       {kSaveRecordKey, record}});
  FileWriter out(path);
  out.write(header.data(), header.size());
  for (const Item& item : items) {
    const at::Tensor c = compact(item.value);
    out.write(static_cast<const char*>(c.data_ptr()), c.nbytes());
  }
  out.sync_and_close();
}

} // namespace

bool holds_only_checkpoint_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path& p = e.path();
    const std::string name = p.filename().string();
    const bool ours = p.extension() == ".safetensors" ||
        p.extension() == ".distcp" || p.extension() == ".tmp" ||
        name == ".metadata" || name == kSafetensorsIndex ||
        (name == "sharded" && e.is_directory());
    if (!ours) {
      return false;
    }
  }
  return true;
}

void publish_directory(const std::string& staging, const std::string& dir) {
  std::error_code ec;
  const fs::path target = plain(dir);
  if (!fs::exists(target, ec)) {
    fs::rename(staging, target, ec);
    TORCH_CHECK(!ec, dir, ": cannot be put in place: ", ec.message());
    sync_parent(target);
    return;
  }
  TORCH_CHECK(
      fs::is_directory(target, ec), dir, ": exists and is not a directory");
  if (::renameat2(
          AT_FDCWD,
          staging.c_str(),
          AT_FDCWD,
          target.c_str(),
          RENAME_EXCHANGE) == 0) {
    sync_parent(target);
    fs::remove_all(staging, ec); // now the old checkpoint
    return;
  }
  // No exchange here (an old kernel, some network file systems): the old
  // one is moved aside first, so a crash in between leaves it whole there.
  const std::string old = staging + ".old";
  fs::rename(target, old, ec);
  TORCH_CHECK(!ec, dir, ": cannot be moved aside: ", ec.message());
  fs::rename(staging, target, ec);
  TORCH_CHECK(
      !ec,
      dir,
      ": cannot be put in place (the previous checkpoint is in ",
      old,
      "): ",
      ec.message());
  sync_parent(target);
  fs::remove_all(old, ec);
}

void save_safetensors(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options) {
  TORCH_CHECK(
      objects.empty(),
      "checkpoint::save to ",
      dir,
      ": safetensors holds tensors only; non-tensor entry '",
      objects.empty() ? std::string() : objects.begin()->first,
      "' is not representable (save it with Format::kDcp, or apart)");
  for (const auto& [name, t] : tensors) {
    TORCH_CHECK(
        safetensors_dtype_name(t.scalar_type()).has_value(),
        "checkpoint::save to ",
        dir,
        ": entry '",
        name,
        "' has dtype ",
        t.scalar_type(),
        ", which safetensors files of meshguard do not hold");
  }
  const bool first = is_first_rank(mesh);
  const std::vector<Item> items = items_to_write(tensors, mesh, options);
  const std::string token = gather_strings(
      std::to_string(std::random_device{}() & 0xffffff), mesh)[0];
  const std::string staging = plain(dir).string() + ".saving-" + token;
  if (first) {
    // Whatever a crashed save of the same token left there goes first.
    std::error_code ec;
    fs::remove_all(staging, ec);
  }
  // (Also the barrier after that removal.)
  size_t files = 0;
  for (const std::string& writes :
       gather_strings(items.empty() ? "0" : "1", mesh)) {
    files += writes == "1";
  }
  std::string mine;
  try {
    TORCH_CHECK(
        holds_only_checkpoint_files(dir),
        dir,
        " holds files that are not a checkpoint's; a safetensors save "
        "replaces the directory whole, so it must hold a checkpoint or "
        "nothing");
    std::error_code ec;
    fs::create_directories(staging, ec);
    TORCH_CHECK(!ec, staging, ": cannot be created: ", ec.message());
    if (!items.empty()) {
      write_rank_file(
          join(staging, safetensors_rank_file(mesh.get_rank())),
          items,
          save_record(token, files, items, tensors));
    }
  } catch (const std::exception& e) {
    mine =
        "rank " + std::to_string(mesh.get_rank()) + ": " + first_line(e.what());
  }
  std::string failed;
  for (const std::string& r : gather_strings(mine, mesh)) {
    failed += r.empty() ? "" : "\n  " + r;
  }
  if (!failed.empty()) {
    if (first) {
      std::error_code ec;
      fs::remove_all(staging, ec);
    }
    TORCH_CHECK(
        false,
        "checkpoint::save to ",
        dir,
        ": nothing was published; ranks failed to write:",
        failed);
  }
  std::string publish_error;
  if (first) {
    try {
      publish_directory(staging, dir);
    } catch (const std::exception& e) {
      publish_error = first_line(e.what());
    }
  }
  // No rank returns before the checkpoint is in place (or has failed).
  const std::string published = gather_strings(publish_error, mesh)[0];
  TORCH_CHECK(
      published.empty(),
      "checkpoint::save to ",
      dir,
      ": the checkpoint was not published: ",
      published);
}

} // namespace checkpoint
} // namespace meshguard
