#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A histogram of a batch-sharded model output for logging: histc has no
// sharding rule.
at::Tensor output_histogram(const DeviceMesh &mesh, torch::nn::Linear &model,
                            const at::Tensor &batch) {
  at::Tensor out = model(from_local(batch, mesh, {Shard{0}}));
  at::Tensor probs = out.softmax(1);
  return probs.histc(20); // EXPECT: dtensor-op-without-sharding-rule
}
