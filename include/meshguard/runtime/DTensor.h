#pragma once

// DTensor functions. A DTensor is an at::Tensor whose impl is a DTensorImpl
// (the local shard plus the spec); ops on it go through meshguard's
// dispatcher fallback. Plain tensors and DTensors share one static type, so
// these functions (and the static analyzer) tell them apart.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/Tensor.h>

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

// Splits `full` (the same value on every rank; rank 0's copy wins, as in
// PyTorch) over `mesh` by `placements` (Shard(-1) is the last dim). A
// non-leaf tensor that requires grad is refused, as in PyTorch. Collective.
// (`where`, on every collective entry point, is the caller's line for the
// collective-consistency mode, DebugCollectives.h; callers never write it.)
at::Tensor distribute_tensor(
    const at::Tensor& full,
    const DeviceMesh& mesh,
    const Placements& placements,
    CallSite where = CallSite::here());

// Wraps this rank's `local` shard. The global shape assumes even shards
// unless `shape` gives it. run_check (collective) verifies that every rank's
// local tensor has the same dtype (and shape, unless `shape` is given), and
// that all-Replicate values really are equal. Differentiable.
at::Tensor from_local(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const Placements& placements,
    bool run_check = false,
    const std::optional<std::vector<int64_t>>& shape = std::nullopt,
    CallSite where = CallSite::here());

// This rank's local tensor (a view of it; differentiable). The call site is
// remembered on the result so that a later "found no DeviceMesh" error can
// say where the plain tensor came from.
at::Tensor to_local(
    const at::Tensor& dtensor,
    const char* file = __builtin_FILE(),
    int line = __builtin_LINE());

// The same, with the placements that the local tensor's gradient is read
// with in backward (PyTorch's grad_placements), e.g. Partial when each rank's
// gradient is a partial sum. They must give the local tensor's shape.
at::Tensor to_local(
    const at::Tensor& dtensor,
    const std::optional<Placements>& grad_placements,
    const char* file = __builtin_FILE(),
    int line = __builtin_LINE());

// The global value as a plain tensor on every rank (collective).
at::Tensor full_tensor(
    const at::Tensor& dtensor,
    const char* file = __builtin_FILE(),
    int line = __builtin_LINE());

// The same global value with new placements (collective). See
// docs/runtime/redistribute.md for the supported transitions.
at::Tensor redistribute(
    const at::Tensor& dtensor,
    const Placements& placements,
    CallSite where = CallSite::here());

bool is_dtensor(const at::Tensor& t);
// The mesh of a DTensor; nullopt for a plain tensor.
std::optional<DeviceMesh> mesh_of(const at::Tensor& t);
// The placements of a DTensor; nullopt for a plain tensor.
std::optional<Placements> placements_of(const at::Tensor& t);

// Where a plain tensor came from, when meshguard knows: "to_local() at
// file.cpp:12" or "full_tensor() at ...". Empty otherwise.
std::string provenance_of(const at::Tensor& t);

// Whether promotions check replicas (MESHGUARD_CHECK_REPLICAS=1 or set here).
bool replica_check_enabled();
void set_replica_check(bool enabled);

// Verifies that `local` holds the same values on every rank of `mesh`
// (checksum all-gather) and throws ReplicaMismatchError naming the ranks
// that differ. Collective.
void check_replicas(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const std::string& what,
    CallSite where = CallSite::here());

} // namespace meshguard
