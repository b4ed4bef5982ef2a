#include "sync_states.h"

void sync_module_states(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> states;
  for (auto &p : model.parameters())
    states.push_back(p.detach());
  for (auto &b : model.buffers())
    states.push_back(b.detach());
  pg.broadcast(states);
}

void sync_buffers(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> states;
  for (auto &b : model.buffers())
    states.push_back(b);
  pg.broadcast(states);
}

void sync_local_states(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> states;
  for (auto &p : model.parameters())
    states.push_back(meshguard::to_local(p));
  for (auto &b : model.buffers())
    states.push_back(b);
  pg.broadcast(states);
}

void sync_local_parameters(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> states;
  for (auto &p : model.parameters())
    states.push_back(meshguard::to_local(p));
  pg.broadcast(states);
}
