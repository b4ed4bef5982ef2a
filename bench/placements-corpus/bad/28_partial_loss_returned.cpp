#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Each rank computes its part of the loss and declares it Partial; the
// helper hands back the local tensor as "the loss", which is logged.
at::Tensor compute_loss(const DeviceMesh &mesh, const at::Tensor &local_loss) {
  at::Tensor loss = from_local(local_loss, mesh, {Partial{}});
  return to_local(loss);
}

double train_step(const DeviceMesh &mesh, const at::Tensor &l) {
  at::Tensor loss = compute_loss(mesh, l);
  return loss.item<double>(); // EXPECT: dtensor-partial-local-use
}
