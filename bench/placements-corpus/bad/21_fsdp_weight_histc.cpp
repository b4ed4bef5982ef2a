#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A weight histogram logged after FSDP sharded the layer: histc has no
// sharding rule, and the weight is Shard(0) now.
at::Tensor weight_histogram(const DeviceMesh &mesh) {
  torch::nn::Linear fc(16, 16);
  fully_shard(*fc, mesh);
  return fc->weight.histc(32); // EXPECT: dtensor-op-without-sharding-rule
}
