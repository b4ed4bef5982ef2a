// Helpers of the divergence test project (whole-program-divergence.test):
// declared here, defined in dist_utils.cpp, called from train.cpp under
// rank conditions.
#pragma once
#include <meshguard/meshguard.h>

namespace dist_utils {
// Performs a collective: every rank must call it.
void sync(const at::Tensor &grads);
// Performs one through a helper of its own file.
void sync_and_log(const at::Tensor &grads);
// Its only fact is the collective (it has a mesh: nothing else to say).
void sync_on(const at::Tensor &grads, const meshguard::DeviceMesh &mesh);
// Local work only: fine on one rank.
void log_norm(const at::Tensor &grads);
// Its parameter decides whether it communicates: right in itself, a hang
// when a caller passes a value that differs per rank.
void maybe_sync(const at::Tensor &grads, bool doit);
} // namespace dist_utils
