// Stub of c10d's dispatcher ops (libtorch) for meshguard's check tests.
#pragma once
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace c10d {
namespace ops {
c10::intrusive_ptr<Work>
broadcast(const c10::intrusive_ptr<ProcessGroup> &process_group,
          at::TensorList tensors, const BroadcastOptions &opts = {});
c10::intrusive_ptr<Work>
allreduce(const c10::intrusive_ptr<ProcessGroup> &process_group,
          at::TensorList tensors, const AllreduceOptions &opts = {});
} // namespace ops
} // namespace c10d
