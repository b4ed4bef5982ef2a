#pragma once

// Hugging Face safetensors files as DCP's HuggingFaceStorageWriter writes
// them (torch/distributed/checkpoint/hf_storage.py): an 8-byte little-endian
// header length, a JSON header (name -> dtype, shape, data_offsets; an
// optional __metadata__ map of strings), then the tensors' raw bytes. The
// per-rank layout (save_distributed=True) puts each tensor's offsets in the
// global tensor in __metadata__["DCP_SHARDING_INFO"]; the consolidated one
// holds whole tensors, indexed by model.safetensors.index.json.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <meshguard/runtime/Checkpoint.h>

namespace meshguard {
namespace checkpoint {

// The file a save_distributed rank writes, and the index of consolidated
// files (_hf_utils.py's names).
std::string safetensors_rank_file(int64_t rank);
constexpr const char* kSafetensorsIndex = "model.safetensors.index.json";
constexpr const char* kShardingInfoKey = "DCP_SHARDING_INFO";
// meshguard's own record in the files it saves (PyTorch ignores it): the
// save's token, how many files it wrote and the global shapes, so that a
// missing or stray rank file is found even where the blocks would tile.
constexpr const char* kSaveRecordKey = "meshguard_save";

// safetensors' dtype names ("F32") and back; nullopt: not one meshguard
// reads or writes.
std::optional<std::string> safetensors_dtype_name(at::ScalarType type);
std::optional<at::ScalarType> safetensors_dtype(const std::string& name);

struct SafetensorsTensor {
  std::string name;
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape;
  uint64_t begin = 0; // absolute byte offsets in the file
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors; // in data order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;
};

// The largest header read (safetensors' own limit: 100 MB).
constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

// Checks and decodes the header `json` of a file of `file_size` bytes whose
// data starts at `data_start`: every tensor's dtype known, shape
// non-negative, bytes (dtype size x elements) within the data section, the
// tensors' ranges back to back and covering it (no overlap, no gap, as
// safetensors requires). Any problem is a c10::Error naming `path` and the
// entry.
SafetensorsHeader parse_safetensors_header(
    const std::string& json,
    uint64_t data_start,
    uint64_t file_size,
    const std::string& path);

// A whole file's bytes (the fuzz tests), and a file on disk (reads only the
// length and the header).
SafetensorsHeader parse_safetensors(
    const std::string& bytes,
    const std::string& path);
SafetensorsHeader read_safetensors_header(const std::string& path);

// Whether `dir` holds .safetensors files (at its top level).
bool holds_safetensors(const std::string& dir);

// The checkpoint in `dir`'s .safetensors files, either layout, as chunks of
// raw bytes: a tensor's global shape is the end of its furthest chunk, as
// PyTorch's HuggingFaceStorageReader infers it; the chunks of every tensor
// must tile that shape exactly (no overlap, no hole), one dtype throughout,
// and agree with model.safetensors.index.json where there is one.
CheckpointInfo read_safetensors_info(const std::string& dir);

// The bytes of a header: length, JSON, padded with spaces to a multiple of
// 8 (as safetensors pads). `tensors` gives names, dtypes and shapes, their
// data in this order; their begin/end are set (absolute).
std::string safetensors_header_bytes(
    std::vector<SafetensorsTensor>& tensors,
    const std::map<std::string, std::string>& metadata);

// DCP_SHARDING_INFO for these names and offsets.
std::string sharding_info_json(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& offsets);

// save() with options.format == kSafetensors (SafetensorsSave.cpp).
void save_safetensors(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options);

// Puts directory `staging` in place of `dir` in one step (renameat2's
// exchange; two renames where the file system has none): readers of `dir`
// see the old checkpoint or the new one, whole. The old one is removed.
void publish_directory(const std::string& staging, const std::string& dir);

// Whether every entry of `dir` is a checkpoint's (.safetensors, .distcp,
// .metadata, the index, sharded/, leftovers *.tmp): what publishing may
// replace. A missing `dir` is empty.
bool holds_only_checkpoint_files(const std::string& dir);

} // namespace checkpoint
} // namespace meshguard
