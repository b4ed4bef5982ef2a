#include "chain.h"

// A call the source-text guess cannot see (it hides in a macro): this file
// may run before mid.cpp, and is checked again once mid's summary exists.
#define FORWARD_ALL(t) mid::forward(t)

void hidden(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  FORWARD_ALL(meshguard::to_local(w));
}
