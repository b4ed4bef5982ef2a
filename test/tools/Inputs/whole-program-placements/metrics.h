// Helpers of the placement test project (whole-program-placements.test):
// declared here, defined in metrics.cpp, called from train.cpp.
#pragma once
#include <meshguard/meshguard.h>

namespace metrics {
// The sum of squares of row-sharded values: a Partial DTensor.
at::Tensor sum_of_squares(const meshguard::DeviceMesh &mesh,
                          const at::Tensor &rows);
// The local tensor of that sum: one rank's share.
at::Tensor local_sum_of_squares(const meshguard::DeviceMesh &mesh,
                                const at::Tensor &rows);
// Its argument scaled (a linear op): a share stays a share.
at::Tensor scaled(const at::Tensor &t, double by);
// Reads its parameter as the full value.
double report(const at::Tensor &value);
// Uses its parameter linearly only: fine with a share.
at::Tensor accumulate(const at::Tensor &total, const at::Tensor &part);
// Rows sharded over a 1-D mesh, over dim 0 of a 2-D mesh, replicated.
at::Tensor rows(const meshguard::DeviceMesh &mesh, const at::Tensor &t);
at::Tensor rows_on_grid(const meshguard::DeviceMesh &grid,
                        const at::Tensor &t);
at::Tensor replicated(const meshguard::DeviceMesh &mesh, const at::Tensor &t);
// Wraps its argument as a replica without run_check: right for a uniform
// argument.
at::Tensor as_replica(const at::Tensor &t, const meshguard::DeviceMesh &mesh);
} // namespace metrics
