#pragma once

// What every checkpoint writer shares, whatever its file format: the blocks
// this rank writes (a Replicate block once, empty blocks not, Partial
// reduced or refused), the tensor bytes torch.save would write for a block,
// and strings gathered over the mesh (the ranks' records and errors).

#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <meshguard/runtime/Checkpoint.h>

namespace meshguard {
namespace checkpoint {

// A block this rank writes.
struct Item {
  std::string name;
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;
  at::Tensor value;
};

// Whether this rank is at coordinate 0 of every mesh dim: the rank that
// writes plain tensors and objects and publishes the index.
bool is_first_rank(const DeviceMesh& mesh);

// The blocks of `tensors` this rank writes. Runs the same collectives on
// every rank (reductions of Partial DTensors when asked), in name order.
std::vector<Item> items_to_write(
    const std::map<std::string, at::Tensor>& tensors,
    const DeviceMesh& mesh,
    const SaveOptions& options);

// The tensor torch.save would write for `t`: its bytes alone (a view's
// whole storage would be written otherwise), on the CPU, contiguous.
// Copies only when `t` is not already that.
at::Tensor compact(const at::Tensor& t);

// Every rank's string, in the mesh's rank order.
std::vector<std::string> gather_strings(
    const std::string& mine,
    const DeviceMesh& mesh);

} // namespace checkpoint
} // namespace meshguard
