#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

// DDP's _sync_module_states: detached parameters and the buffers, one raw
// broadcast.
void sync_module_states(torch::nn::Module &model, c10d::ProcessGroup &pg);
// The buffers alone, and the parameters unwrapped beside the buffers:
// meshguard::distribute_module replicates buffers (as PyTorch's does), so
// both still hand the broadcast DTensors.
void sync_buffers(torch::nn::Module &model, c10d::ProcessGroup &pg);
void sync_local_states(torch::nn::Module &model, c10d::ProcessGroup &pg);
// Negative twin: the parameters unwrapped, alone.
void sync_local_parameters(torch::nn::Module &model, c10d::ProcessGroup &pg);
