#include "sync_states.h"

struct NetImpl : torch::nn::Module {};

void setup(c10d::ProcessGroup &pg, const meshguard::DeviceMesh &mesh) {
  NetImpl net;
  meshguard::distribute_module(net, mesh);
  sync_module_states(net, pg);
  sync_buffers(net, pg);
  sync_local_states(net, pg);
  sync_local_parameters(net, pg);
}

void before(c10d::ProcessGroup &pg) {
  NetImpl net;
  sync_module_states(net, pg);
}
