// Stub of include/meshguard/runtime/Checkpoint.h for the check tests: what
// the fix-its of dtensor-unsharded-checkpoint call. The real save takes
// objects and options after the mesh, with defaults (check-stubs.py
// accepts trailing defaulted parameters). meshguard.h includes it, as the
// real one does.
#pragma once
#include <map>
#include <string>
#include <torch/torch.h>

namespace meshguard {
class DeviceMesh;
namespace checkpoint {
void save(const std::map<std::string, at::Tensor> &tensors,
          const std::string &dir, const DeviceMesh &mesh);
void load(const std::map<std::string, at::Tensor> &state_dict,
          const std::string &dir);
std::map<std::string, at::Tensor>
module_state(const torch::nn::Module &module, const std::string &prefix = "");
} // namespace checkpoint
} // namespace meshguard
