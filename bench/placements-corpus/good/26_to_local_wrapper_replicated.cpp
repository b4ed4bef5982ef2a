#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The same wrapper on a loss every rank holds whole.
at::Tensor local(const at::Tensor &t) { return to_local(t); }

void log_loss(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &loss) {
  at::Tensor l = distribute_tensor(loss, mesh, {Replicate{}});
  os << local(l.mean());
}
