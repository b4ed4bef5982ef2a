#pragma once

// Sharding rules as data. A rule looks at one call of an operator (global
// shapes and current placements of its DTensor operands, its other
// arguments) and lists the strategies under which the op can run on local
// tensors alone, for ONE mesh dimension: the placement each DTensor operand
// must have and the placement each output then has. The propagator
// (Propagator.cpp) takes the same list for every mesh dim, picks per mesh
// dim the strategy that needs the least communication, redistributes and
// runs the op locally (ops/Dispatch.cpp). As PyTorch's op strategies, but in
// C++ and per mesh dim.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {
namespace ops {

using Shape = std::vector<int64_t>;

// One DTensor operand of the call. Shape and placements refer to the
// operand's own spec (alive for the whole call): built on every op call,
// copies would cost two heap allocations per operand.
struct Operand {
  size_t arg_index = 0; // position in the schema's arguments
  int64_t list_index = -1; // position in a Tensor[] argument (cat, stack); -1:
                           // a Tensor argument
  const Shape& shape; // global
  const Placements& placements; // current, one per mesh dim
};

struct CallInfo {
  const c10::IValue* args =
      nullptr; // the op's arguments on the stack (DTensors not unwrapped)
  size_t num_args = 0;
  std::vector<Operand> operands; // DTensor operands in argument order
  int64_t mesh_size = 1; // product of the mesh's dims
  c10::IntArrayRef mesh_shape; // the mesh's dims (valid during the call)
  size_t plain_tensors = 0; // plain (scalar-like) tensor operands

  const c10::IValue& arg(size_t i) const {
    return args[i];
  }
};

// On one mesh dim: operand placements (one per Operand) -> output placements.
struct Strategy {
  std::vector<Placement> inputs;
  std::vector<Placement> outputs;
};

// What a rule's local runner may read besides the local operands: the
// outputs' local shapes and, for ops whose local computation depends on
// where the shard lies (a row-sharded embedding masks other ranks' rows),
// the mesh and the operands' global shapes and (decided) placements.
struct LocalContext {
  const std::vector<Shape>* output_shapes = nullptr; // local, per output
  const std::vector<Shape>* input_shapes = nullptr; // global, per operand
  const std::vector<Placements>* input_placements =
      nullptr; // decided, per operand
  const DeviceMesh* mesh = nullptr;
  // The op's arguments, DTensor operands replaced by their local tensors.
  const c10::IValue* args = nullptr;
};

// The start of this rank's block of a tensor's dim `dim` (global size
// `size`) under `placements` (nested torch.chunk over the mesh dims).
int64_t shard_offset(
    int64_t size,
    int64_t dim,
    const Placements& placements,
    const DeviceMesh& mesh);

// For rules that leave the outputs' global shapes to the local results
// (FreeDims.h): output `output`'s dim `dim`, when sharded, has the global
// size of operand `operand`'s dim `operand_dim`.
struct GlobalDim {
  size_t output = 0;
  int64_t dim = 0;
  size_t operand = 0;
  int64_t operand_dim = 0;
};

struct RuleResult {
  std::vector<Strategy> strategies; // in order of preference on equal cost
  std::vector<Shape> output_shapes; // global, one per tensor output
  // Runs the op on the local (redistributed) operands in place of the op
  // itself: for ops whose size arguments must become local sizes (views).
  // Gets the local operands and the context (local output shapes, ...).
  std::function<std::vector<at::Tensor>(
      const std::vector<at::Tensor>&,
      const LocalContext&)>
      run_local;
  // Set (with one empty shape per output in output_shapes) when the global
  // shapes come from the local results: the sharded output dims, each with
  // the operand dim it is sharded alike with.
  bool shapes_from_locals = false;
  std::vector<GlobalDim> global_dims;
};

using RuleFn = std::function<RuleResult(const CallInfo&)>;

struct RuleEntry {
  std::string family; // "pointwise", "matrix", "reduction", "view", "nn"
  std::string strategies; // for the docs: "S(0)×R → S(0); ..."
  RuleFn rule;
  // The output's shape depends on the values (nonzero, masked_select): no
  // rule can give it beforehand, so every operand is replicated and the op
  // runs as on all-Replicate operands; `rule` is not called.
  bool replicates_operands = false;
  // Set for the in-place and out= forms derived from a functional rule
  // (Variants.cpp): the overload whose rule this is ("aten::add.Tensor").
  std::string derived_from;
  // An out= form: how many trailing arguments are its out tensors. The rule
  // sees the arguments before them (the functional op's), and the out
  // tensors keep their placements.
  size_t out_args = 0;
  // Set where the entry runs the whole call itself instead of a rule: the
  // _foreach_ ops, element by element through the DTensor kernel
  // (Foreach.cpp). Gets the stack and where the op's arguments begin.
  std::function<void(torch::jit::Stack&, size_t)> run_whole;
  // Arguments the op writes though its schema does not mark them
  // (native_batch_norm's running statistics when training), given the
  // call's arguments: they keep their placements, as marked ones do.
  std::function<std::vector<size_t>(const c10::IValue* args)> hidden_writes;
  // The rule reads the tensor arguments' dtypes or where a Tensor?[] holds
  // None (view.dtype, indexing's masks): the decision cache's key holds
  // them too.
  bool keys_tensor_kinds = false;
};

// The placement an operand of `in_shape` broadcast to `out_shape` needs when
// the output is sharded on `out_dim`: Shard of the aligned dim, or Replicate
// when the operand lacks that dim or broadcasts along it.
Placement
aligned_shard(const Shape& in_shape, const Shape& out_shape, int64_t out_dim);

// Whether `size` splits into `k` equal torch.chunk pieces.
inline bool divisible(int64_t size, int64_t k) {
  return k > 0 && size % k == 0;
}

} // namespace ops
} // namespace meshguard
