// A chain of helpers over three files (summary-export.test): main.cpp calls
// b::g (b.cpp), which calls c::h (c.cpp), which does the collective.
#pragma once
#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace c {
void h(const at::Tensor &t);
} // namespace c

namespace b {
void g(const at::Tensor &t);
} // namespace b
