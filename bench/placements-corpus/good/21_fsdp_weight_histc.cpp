#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The statistic taken before sharding, and on the full weight after it.
at::Tensor weight_histogram(const DeviceMesh &mesh) {
  torch::nn::Linear fc(16, 16);
  at::Tensor before = fc->weight.histc(32);
  fully_shard(*fc, mesh);
  return before + redistribute(fc->weight, {Replicate{}}).histc(32);
}
