// Odd ranks gather the activations before reducing the gradients, even ranks
// after (on meshguard's dist API).
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Allgather_MPI_Allreduce_nok
#include <meshguard/meshguard.h>

std::vector<at::Tensor> step(const meshguard::DeviceMesh &mesh,
                             at::Tensor acts, at::Tensor grads) {
  std::vector<at::Tensor> gathered;
  if (mesh.get_rank() % 2) {
    gathered = meshguard::dist::all_gather({acts}); // EXPECT-DIVERGENCE
    meshguard::dist::all_reduce_({grads}); // EXPECT-DIVERGENCE
  } else {
    meshguard::dist::all_reduce_({grads}); // EXPECT-DIVERGENCE
    gathered = meshguard::dist::all_gather({acts}); // EXPECT-DIVERGENCE
  }
  return gathered;
}
