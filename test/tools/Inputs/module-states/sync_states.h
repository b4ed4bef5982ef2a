#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

// DDP's _sync_module_states: detached parameters and the buffers, one raw
// broadcast.
void sync_module_states(torch::nn::Module &model, c10d::ProcessGroup &pg);
// Negative twins: the buffers alone (meshguard::distribute_module leaves
// them plain), and the states unwrapped first.
void sync_buffers(torch::nn::Module &model, c10d::ProcessGroup &pg);
void sync_local_states(torch::nn::Module &model, c10d::ProcessGroup &pg);
