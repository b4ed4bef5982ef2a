#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A robust weight statistic logged after FSDP sharded the layer: median has
// no sharding rule, and the weight is Shard(0) now.
at::Tensor weight_median(const DeviceMesh &mesh) {
  torch::nn::Linear fc(16, 16);
  fully_shard(*fc, mesh);
  return fc->weight.median(); // EXPECT: dtensor-op-without-sharding-rule
}
