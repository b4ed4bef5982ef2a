#include "dist_utils.h"

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
};

void setup(c10d::ProcessGroup &pg, const meshguard::DeviceMesh &mesh) {
  NetImpl net;
  meshguard::distribute_module(net, mesh);
  utils::broadcast_parameters(net, pg);
}

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  at::Tensor local = utils::make_local(w);
  meshguard::dist::broadcast_({local}, 0);
  utils::sync(meshguard::to_local(w));
  at::Tensor noisy = utils::add_noise(w);
}

// A finding of this file alone: there with or without summaries.
void perFile() {
  at::Tensor z = torch::zeros({2});
  meshguard::dist::broadcast_({z}, 0);
}

// Negative twins: the same helpers given what they expect, and the fine ones.
void fine(c10d::ProcessGroup &pg, const meshguard::DeviceMesh &mesh) {
  NetImpl net;
  utils::broadcast_parameters(net, pg);
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  utils::sync(w);
  meshguard::dist::broadcast_({utils::make_replicated(torch::ones({4}), mesh)},
                              0);
  utils::sync_on(meshguard::to_local(w), mesh);
  at::Tensor quiet = utils::add_noise(torch::ones({4}));
  utils::broadcast_locals(pg);
}
