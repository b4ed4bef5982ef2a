#pragma once

// The dispatcher kernel every operator called with a DTensor reaches
// (ops/Dispatch.cpp); ops/Registration.cpp registers it.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace meshguard {

void dtensor_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

} // namespace meshguard
