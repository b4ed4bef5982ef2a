#pragma once

// A rule language for the many ops that compute each index of some dims on
// its own: sort along `dim` (every other dim is free), pooling and
// upsampling (batch and channel dims), batched linear algebra (the batch
// dims), convolution (the batch dim; output channels with a sharded weight).
// Such an op is described by its free dims, not by code: a FreeDim names,
// for one way of sharding, the dim of each operand (or Replicate) and what
// each output then is. The rule offers one strategy per FreeDim plus the
// all-Replicate one; the propagator picks per mesh dim by cost, as for any
// rule. Global output shapes are taken from the local results (a sharded
// output dim has the global size of the operand dim it is sharded alike
// with), so a free-dim rule never restates an op's shape arithmetic.

#include <cstdint>
#include <vector>

#include <ATen/core/function_schema.h>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

// What an output is under a FreeDim besides sharded on one of its dims.
constexpr int64_t kWhole = -1; // Replicate: computed whole on every rank
constexpr int64_t kPartialSum = -2; // each rank's part of a sum

struct FreeDim {
  std::vector<int64_t> operands; // per DTensor operand: its dim, or kWhole
  std::vector<int64_t> outputs; // per output: its dim, kWhole or kPartialSum
};

// The rule: one strategy per FreeDim, then all-Replicate. `outputs` is the
// op's number of tensor outputs. A FreeDim is skipped where some rank's
// block of a sharded dim would be empty, unless `empty_blocks_ok` (ops that
// accept empty tensors, e.g. fills): kernels refuse an empty channel or
// matrix dim, and a rank that raises alone leaves the others waiting.
RuleResult free_dim_rule(
    const CallInfo& call,
    const std::vector<FreeDim>& dims,
    size_t outputs,
    bool empty_blocks_ok = false);

// Helpers that read a call by its schema.
// The index of the schema argument named `name` (SIZE_MAX: none).
size_t arg_index(const c10::FunctionSchema& schema, const char* name);
// The DTensor operand that is argument `arg` (-1: none, e.g. a None bias).
int64_t operand_at(const CallInfo& call, size_t arg);
// A dim argument wrapped into [0, rank); `fallback` when the argument is
// absent or None.
int64_t
dim_arg(const CallInfo& call, size_t arg, int64_t rank, int64_t fallback);

// Every dim of operand 0 except `excluded` is free: the operands that are
// arguments in `whole_args` stay whole (indices, boundaries, a value), the
// others must have operand 0's shape and are sharded alike (a dim is not
// free when one does not). Outputs keep operand 0's dims (`keep_rank`) or
// drop the excluded ones. `excluded_partial`: a sharded excluded dim gives
// Partial(sum) outputs (a sum over it, e.g. nansum).
struct AllDimsExcept {
  std::vector<int64_t> excluded;
  size_t outputs = 1;
  bool keep_rank = true;
  bool excluded_partial = false;
  std::vector<size_t> whole_args;
};
std::vector<FreeDim> all_dims_except(
    const CallInfo& call,
    const AllDimsExcept& how);

// The leading dims that every operand has before its `core` trailing dims
// (per operand), of equal sizes, are free; each output has them first too.
std::vector<FreeDim> leading_dims(
    const CallInfo& call,
    const std::vector<int64_t>& core,
    size_t outputs);

// Registers `rule` for every overload of `name` (aten::name) that returns
// only tensors and writes none of its arguments; the rule factory gets the
// overload's schema (to find its arguments by name). Returns how many.
size_t add_for_overloads(
    RuleTable& table,
    const char* family,
    const char* name,
    const std::string& strategies,
    const std::function<RuleFn(const c10::FunctionSchema&)>& make_rule);

} // namespace ops
} // namespace meshguard
