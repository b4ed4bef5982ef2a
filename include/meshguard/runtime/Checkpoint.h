#pragma once

// Sharded checkpoints in PyTorch's Distributed Checkpoint (DCP) layout: a
// directory with `.metadata` (the pickled index of every entry) and the
// ranks' `__{rank}_{n}.distcp` files (each chunk a torch.save archive), as
// torch.distributed.checkpoint's FileSystemWriter writes them.
//
// meshguard::checkpoint::load fills DTensors of any mesh and placements
// (another world size, 1-D or 2-D, Shard or Replicate, uneven and empty
// shards) and plain tensors from a checkpoint written on any number of
// ranks: each rank reads only the chunks that overlap its own blocks. The
// metadata is read by a restricted pickle reader that executes nothing.
// Docs: docs/runtime/checkpoint.md.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <meshguard/runtime/DeviceMesh.h>

namespace torch {
namespace nn {
class Module;
} // namespace nn
namespace optim {
class Optimizer;
} // namespace optim
} // namespace torch

namespace meshguard {
namespace checkpoint {

// The on-disk layouts: DCP's FileSystemWriter (`.metadata` and
// `__{rank}_{n}.distcp`) and Hugging Face safetensors (DCP's
// HuggingFaceStorageWriter: `.safetensors` files, one per rank with
// DCP_SHARDING_INFO in their headers, or consolidated whole tensors).
enum class Format { kDcp, kSafetensors };

// How a chunk's bytes are stored in its file.
enum class Encoding {
  kTorchSave, // a torch.save archive holding the chunk (DCP's .distcp)
  kRaw, // its elements, row-major, little-endian, of the entry's dtype
};

// One chunk of a tensor entry: where it lies in the global tensor and where
// its bytes are.
struct Chunk {
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;
  std::string file; // relative to the checkpoint directory
  uint64_t offset =
      0; // of its bytes (a torch.save archive, or raw) in the file
  uint64_t length = 0;
  Encoding encoding = Encoding::kTorchSave;
};

struct TensorEntry {
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape; // global
  std::vector<Chunk> chunks;
};

// A non-tensor entry (an int, a string, a dict...), pickled whole.
struct ObjectEntry {
  std::string file;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct CheckpointInfo {
  Format format = Format::kDcp;
  std::map<std::string, TensorEntry> tensors;
  std::map<std::string, ObjectEntry> objects;
};

// Reads and checks the index of the checkpoint in `dir` (`.metadata`, or
// the safetensors files' headers): every chunk within its tensor's shape
// and with its bytes' place. A missing, truncated, corrupt or foreign file is
// a c10::Error naming the file (and the entry).
CheckpointInfo read_info(const std::string& dir);

struct SaveOptions {
  // Reduce Partial DTensors (one all-reduce each) instead of refusing them.
  bool reduce_partial = false;
  // The layout written; PyTorch's matching reader loads it.
  Format format = Format::kDcp;
};

// Saves `tensors` and `objects` (non-tensor entries: a step, a string) into
// `dir`, called on every rank of `mesh` (the DTensors' mesh): each rank
// writes the blocks it holds to its own file, a Replicate block once (by the
// rank at coordinate 0 of the mesh dims it is replicated on), plain tensors
// and objects by the mesh's first rank; that rank then publishes
// `.metadata`, written aside and renamed, so a save that dies half-way
// leaves the previous checkpoint in `dir` as it was (files of earlier
// saves are removed once the new metadata is in place). PyTorch's dcp.load
// reads the result on any world size. A Partial DTensor is an error unless
// options.reduce_partial. A rank that fails to write makes every rank throw,
// with its message, and nothing is published.
void save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const std::map<std::string, c10::IValue>& objects = {},
    const SaveOptions& options = {});

// A save going on in the background (async_save).
class PendingSave {
 public:
  PendingSave();
  PendingSave(PendingSave&&) noexcept;
  PendingSave& operator=(PendingSave&&) noexcept;
  // Waits for the save; an error wait() did not throw is logged.
  ~PendingSave();

  // Blocks until the metadata is published (or the save failed on some
  // rank: then throws, on every rank, the message save() would throw).
  void wait();
  // Whether wait() would return at once.
  bool done() const;

 private:
  friend PendingSave async_save(
      const std::map<std::string, at::Tensor>&,
      const std::string&,
      const DeviceMesh&,
      const DeviceMesh&,
      const std::map<std::string, c10::IValue>&,
      const SaveOptions&);
  struct State;
  std::shared_ptr<State> state_;
};

// save() in two parts. Before it returns, the blocks this rank writes are
// copied to CPU memory (staged), so the caller may go on changing its
// tensors; a background thread then writes them and publishes the metadata.
// The background's collectives (the ranks' records, the publication) run
// over `coordination`: a mesh of the same ranks, in the same order, that
// nothing else uses while the save runs (a second init_device_mesh("cpu",
// ...) made once for checkpoints; PyTorch's async_save also wants a Gloo
// group of its own), since collectives of two threads on one group would
// pair wrongly. Everything else is as in save().
PendingSave async_save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const DeviceMesh& coordination,
    const std::map<std::string, c10::IValue>& objects = {},
    const SaveOptions& options = {});

// Loads every entry of `state_dict` (name -> tensor) from the checkpoint in
// `dir`, in place: a DTensor's local block receives the bytes of the chunks
// that overlap it; a plain tensor is filled whole. Names and global shapes
// must match the checkpoint's (an error names the first that does not);
// values are converted to the target's dtype as copy_ does. A Partial
// DTensor cannot be loaded into (load into Replicate, then redistribute).
// Needs no collective: each rank reads what it owns.
void load(
    const std::map<std::string, at::Tensor>& state_dict,
    const std::string& dir);

// A non-tensor entry's value (the optimizer's step, a string).
c10::IValue load_object(const std::string& dir, const std::string& name);

// A module's parameters and buffers under PyTorch's names ("fc1.weight"),
// each after `prefix`: the map save() and load() take. A PyTorch job that
// saved {"model": model.state_dict()} wrote "model.fc1.weight": load with
// prefix "model.". The tensors are the module's own, so load() fills the
// module in place (DTensor parameters block by block).
std::map<std::string, at::Tensor> module_state(
    const torch::nn::Module& module,
    const std::string& prefix = "");

// An optimizer's state under the names PyTorch's get_state_dict gives it
// in a checkpoint of {"model": ..., "optim": ...} (prefix "optim."):
// "optim.state.<param>.exp_avg", ".exp_avg_sq" (".max_exp_avg_sq" with
// amsgrad) and ".step" (a 0-d float tensor), and the hyperparameters of
// each group i, "optim.param_groups.<i>.lr", "betas", ..., "params" (its
// parameters' names). <param> is the parameter's name in `module`.
// Adam and AdamW; other optimizers are an error naming them.
struct OptimizerState {
  // The optimizer's own moment tensors (DTensors for DTensor parameters;
  // created as zeros when it has not stepped yet) and fresh step tensors.
  std::map<std::string, at::Tensor> tensors;
  std::map<std::string, c10::IValue> objects;
};

// What save() takes for `optimizer` (merge it with module_state(module,
// "model.") to write PyTorch's layout).
OptimizerState optimizer_state(
    torch::optim::Optimizer& optimizer,
    const torch::nn::Module& module,
    const std::string& prefix = "optim.");

// Restores `optimizer` from the checkpoint in `dir`, written by save() of
// optimizer_state or by PyTorch's dcp.save of get_state_dict's optimizer
// state: the moments into its tensors in place (any mesh and placements),
// the steps, and each group's hyperparameters. A group whose parameter
// names differ from the checkpoint's is an error naming both.
void load_optimizer(
    torch::optim::Optimizer& optimizer,
    const torch::nn::Module& module,
    const std::string& dir,
    const std::string& prefix = "optim.");

// Checks a whole checkpoint: the chunks of every tensor lie within its
// shape, do not overlap and cover it, and every chunk and object reads back
// (its bytes within its file, a torch.save archive of the metadata's
// shape). Returns a one-line summary; throws a c10::Error naming the file
// and entry of the first problem. `progress` is called after each entry.
std::string verify(
    const std::string& dir,
    const std::function<void(const std::string& entry)>& progress = {});

} // namespace checkpoint
} // namespace meshguard
