// Ops that compute each batch (and often channel) index on its own
// (FreeDims.h): pooling, upsampling, grid sampling, convolution, group and
// RMS normalization, attention on CPU, batched linear algebra. The leading
// dims are free; convolution also shards output channels with a sharded
// weight and input channels into a Partial sum; a reduction over the batch
// (a weight's gradient) comes out Partial(sum). Size arguments that name
// the batch (group norm's N, an upsample backward's input_size, a
// convolution backward's bias_sizes) are given their local values.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "FreeDims.h"

namespace meshguard {
namespace ops {

namespace {

// Per schema argument: its trailing core dims (`spatial` for every tensor
// argument, or as `core` names them).
std::vector<int64_t> core_dims(
    const c10::FunctionSchema& schema,
    int64_t spatial,
    const std::vector<std::pair<const char*, int64_t>>& core = {}) {
  std::vector<int64_t> out(schema.arguments().size(), spatial);
  for (const auto& [name, n] : core) {
    const size_t i = arg_index(schema, name);
    if (i != SIZE_MAX) {
      out[i] = n;
    }
  }
  return out;
}

RuleFn leading(const c10::FunctionSchema& schema, std::vector<int64_t> core) {
  const size_t outputs = schema.returns().size();
  return [=](const CallInfo& call) {
    return free_dim_rule(call, leading_dims(call, core, outputs), outputs);
  };
}

// A run_local that calls the op on the local operands with some int
// arguments set from the local tensors: `patch(args, locals)` edits a copy
// of the arguments.
using Patch = std::function<
    void(std::vector<c10::IValue>&, const std::vector<at::Tensor>&)>;

decltype(RuleResult::run_local) run_patched(
    const c10::FunctionSchema& schema,
    Patch patch) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(
      schema.name().c_str(), schema.overload_name().c_str());
  const size_t n = schema.arguments().size();
  return [op, n, patch](
             const std::vector<at::Tensor>& locals, const LocalContext& ctx) {
    std::vector<c10::IValue> args(ctx.args, ctx.args + n);
    patch(args, locals);
    torch::jit::Stack stack(args.begin(), args.end());
    op.callBoxed(stack);
    std::vector<at::Tensor> out;
    for (const auto& v : stack) {
      out.push_back(v.isTensor() ? v.toTensor() : at::Tensor());
    }
    return out;
  };
}

// The int list argument `list` with its first `count` entries set to the
// local sizes of operand `source`.
Patch local_leading_sizes(size_t list, size_t source, size_t count) {
  return [=](std::vector<c10::IValue>& args,
             const std::vector<at::Tensor>& locals) {
    auto sizes = args[list].toIntVector();
    for (size_t i = 0; i < count && i < sizes.size(); ++i) {
      sizes[i] = locals[source].size(static_cast<int64_t>(i));
    }
    args[list] = sizes;
  };
}

void add_pooling_and_upsampling(RuleTable& table) {
  const char* family = "batch";
  const std::string pool =
      "S(d) → S(d) for the batch and channel dims (every dim before the spatial ones); R → R";
  const std::vector<std::pair<const char*, int64_t>> spatial_ops = {
      {"avg_pool2d", 2},
      {"avg_pool2d_backward", 2},
      {"avg_pool3d", 3},
      {"avg_pool3d_backward", 3},
      {"_adaptive_avg_pool2d", 2},
      {"_adaptive_avg_pool2d_backward", 2},
      {"_adaptive_avg_pool3d", 3},
      {"_adaptive_avg_pool3d_backward", 3},
      {"adaptive_max_pool2d", 2},
      {"adaptive_max_pool2d_backward", 2},
      {"adaptive_max_pool3d", 3},
      {"adaptive_max_pool3d_backward", 3},
      {"max_pool2d_with_indices", 2},
      {"max_pool2d_with_indices_backward", 2},
      {"max_pool3d_with_indices", 3},
      {"max_pool3d_with_indices_backward", 3},
      {"max_unpool2d", 2},
      {"max_unpool3d", 3},
      {"fractional_max_pool2d", 2},
      {"fractional_max_pool2d_backward", 2},
      {"fractional_max_pool3d", 3},
      {"fractional_max_pool3d_backward", 3},
      {"upsample_nearest1d", 1},
      {"upsample_nearest2d", 2},
      {"upsample_nearest3d", 3},
      {"_upsample_nearest_exact1d", 1},
      {"_upsample_nearest_exact2d", 2},
      {"_upsample_nearest_exact3d", 3},
      {"upsample_linear1d", 1},
      {"upsample_bilinear2d", 2},
      {"upsample_bicubic2d", 2},
      {"upsample_trilinear3d", 3},
      {"_upsample_bilinear2d_aa", 2},
      {"_upsample_bicubic2d_aa", 2},
      {"_upsample_lanczos2d_aa", 2},
  };
  for (const auto& [name, spatial] : spatial_ops) {
    const int64_t k = spatial;
    add_for_overloads(table, family, name, pool, [k](const auto& schema) {
      // fractional pooling's samples: [N, C, k] (one core dim).
      return leading(schema, core_dims(schema, k, {{"random_samples", 1}}));
    });
    // The backward of an upsample gets the input's full size: its batch
    // and channel entries become the local ones.
    const std::string backward = std::string(name) + "_backward";
    if (std::string(name).find("upsample") == std::string::npos) {
      continue;
    }
    add_for_overloads(
        table, family, backward.c_str(), pool, [k](const auto& schema) {
          const size_t input_size = arg_index(schema, "input_size");
          const RuleFn rule = leading(schema, core_dims(schema, k));
          const auto run =
              run_patched(schema, local_leading_sizes(input_size, 0, 2));
          return RuleFn([rule, run](const CallInfo& call) {
            RuleResult r = rule(call);
            r.run_local = run;
            return r;
          });
        });
  }
}

void add_grid_sampler(RuleTable& table) {
  for (const char* name : {"grid_sampler_2d", "grid_sampler_3d"}) {
    add_for_overloads(
        table,
        "batch",
        name,
        "S(0)×S(0) → S(0) (batch); S(1)×R → S(1) (channels); R → R",
        [](const auto&) -> RuleFn {
          return [](const CallInfo& call) {
            std::vector<FreeDim> dims;
            if (call.operands.size() == 2) {
              dims.push_back(FreeDim{{0, 0}, {0}});
              dims.push_back(FreeDim{{1, kWhole}, {1}});
            }
            return free_dim_rule(call, dims, 1);
          };
        });
    add_for_overloads(
        table,
        "batch",
        (std::string(name) + "_backward").c_str(),
        "S(0)×S(0)×S(0) → S(0), S(0) (batch); S(1)×S(1)×R → S(1), P(sum) (channels); R → R",
        [](const auto&) -> RuleFn {
          return [](const CallInfo& call) {
            std::vector<FreeDim> dims;
            if (call.operands.size() == 3) {
              dims.push_back(FreeDim{{0, 0, 0}, {0, 0}});
              dims.push_back(FreeDim{{1, 1, kWhole}, {1, kPartialSum}});
            }
            return free_dim_rule(call, dims, 2);
          };
        });
  }
}

// Convolution (not transposed, one group): the batch; the output channels
// (weight and bias sharded on dim 0); the input channels without a bias
// (a Partial sum of each rank's channels).
void add_convolution(RuleTable& table) {
  add_for_overloads(
      table,
      "batch",
      "convolution",
      "input S(0) → S(0); weight S(0) (bias S(0)) → S(1); input S(1)×weight S(1), no bias → "
      "P(sum); R → R",
      [](const auto& schema) -> RuleFn {
        const size_t transposed = arg_index(schema, "transposed");
        const size_t groups = arg_index(schema, "groups");
        return [=](const CallInfo& call) {
          const int64_t input = operand_at(call, 0);
          const int64_t weight = operand_at(call, 1);
          const int64_t bias = operand_at(call, 2);
          const bool plain_conv =
              !call.arg(transposed).toBool() && call.arg(groups).toInt() == 1;
          auto dim = [&](int64_t operand, int64_t d) {
            return std::pair<int64_t, int64_t>{operand, d};
          };
          auto make =
              [&](std::initializer_list<std::pair<int64_t, int64_t>> sharded,
                  int64_t out) {
                FreeDim f{
                    std::vector<int64_t>(call.operands.size(), kWhole), {out}};
                for (const auto& [operand, d] : sharded) {
                  if (operand >= 0) {
                    f.operands[static_cast<size_t>(operand)] = d;
                  }
                }
                return f;
              };
          std::vector<FreeDim> dims{make({dim(input, 0)}, 0)};
          if (plain_conv) {
            dims.push_back(make({dim(weight, 0), dim(bias, 0)}, 1));
            if (bias < 0 && call.arg(2).isNone()) {
              dims.push_back(
                  make({dim(input, 1), dim(weight, 1)}, kPartialSum));
            }
          }
          return free_dim_rule(call, dims, 1);
        };
      });
  add_for_overloads(
      table,
      "batch",
      "convolution_backward",
      "grad S(0)×input S(0) → S(0), P(sum), P(sum); grad S(1)×weight S(0) → P(sum), S(0), "
      "S(0); input S(1)×weight S(1) → S(1), S(1), R; R → R",
      [](const auto& schema) -> RuleFn {
        const size_t transposed = arg_index(schema, "transposed");
        const size_t groups = arg_index(schema, "groups");
        const size_t bias_sizes = arg_index(schema, "bias_sizes");
        // bias_sizes names the output channels: the local count when the
        // weight is sharded on them.
        const auto run = run_patched(
            schema,
            [bias_sizes](
                std::vector<c10::IValue>& args,
                const std::vector<at::Tensor>& locals) {
              if (!args[bias_sizes].isNone() && locals.size() == 3) {
                args[bias_sizes] = std::vector<int64_t>{locals[2].size(0)};
              }
            });
        return [=](const CallInfo& call) {
          std::vector<FreeDim> dims;
          if (call.operands.size() != 3) {
            return free_dim_rule(call, dims, 3);
          }
          dims.push_back(
              FreeDim{{0, 0, kWhole}, {0, kPartialSum, kPartialSum}});
          if (!call.arg(transposed).toBool() && call.arg(groups).toInt() == 1) {
            dims.push_back(FreeDim{{1, kWhole, 0}, {kPartialSum, 0, 0}});
            dims.push_back(FreeDim{{kWhole, 1, 1}, {1, 1, kWhole}});
          }
          RuleResult r = free_dim_rule(call, dims, 3);
          r.run_local = run;
          return r;
        };
      });
}

// Group norm over the batch (its N argument becomes the local batch).
void add_normalization(RuleTable& table) {
  auto local_n = [](const c10::FunctionSchema& schema, size_t source) {
    const size_t n = arg_index(schema, "N");
    return run_patched(
        schema,
        [n, source](
            std::vector<c10::IValue>& args,
            const std::vector<at::Tensor>& locals) {
          args[n] = locals[source].size(0);
        });
  };
  add_for_overloads(
      table,
      "batch",
      "native_group_norm",
      "input S(0) → S(0), S(0), S(0) (batch; weight, bias R); R → R",
      [local_n](const auto& schema) -> RuleFn {
        const auto run = local_n(schema, 0);
        return [run](const CallInfo& call) {
          std::vector<int64_t> dims(call.operands.size(), kWhole);
          dims[0] = 0;
          RuleResult r = free_dim_rule(call, {FreeDim{dims, {0, 0, 0}}}, 3);
          r.run_local = run;
          return r;
        };
      });
  add_for_overloads(
      table,
      "batch",
      "native_group_norm_backward",
      "grad, input, mean, rstd S(0) → S(0), P(sum), P(sum) (weight R); R → R",
      [local_n](const auto& schema) -> RuleFn {
        const auto run = local_n(schema, 0);
        return [run](const CallInfo& call) {
          std::vector<int64_t> dims(call.operands.size(), kWhole);
          for (size_t i = 0; i < dims.size() && call.operands[i].arg_index < 4;
               ++i) {
            dims[i] = 0;
          }
          RuleResult r = free_dim_rule(
              call, {FreeDim{dims, {0, kPartialSum, kPartialSum}}}, 3);
          r.run_local = run;
          return r;
        };
      });
  add_for_overloads(
      table,
      "batch",
      "_fused_rms_norm_backward",
      "grad, input, rstd S(d) → S(d), P(sum) for d before the normalized dims; R → R",
      [](const auto& schema) -> RuleFn {
        const size_t shape = arg_index(schema, "normalized_shape");
        return [shape](const CallInfo& call) {
          const int64_t batch =
              static_cast<int64_t>(call.operands[0].shape.size()) -
              static_cast<int64_t>(call.arg(shape).toIntVector().size());
          std::vector<FreeDim> dims;
          for (int64_t d = 0; d < batch; ++d) {
            FreeDim f{{}, {d, kPartialSum}};
            for (const Operand& o : call.operands) {
              f.operands.push_back(o.arg_index == 4 ? kWhole : d);
            }
            dims.push_back(std::move(f));
          }
          return free_dim_rule(call, dims, 2);
        };
      });
  // Which attention kernel runs reads ranks, dtypes and the head size, which
  // sharding the batch or the heads does not change: decided on the local
  // blocks (an int result, no tensor output).
  auto& dispatcher = c10::Dispatcher::singleton();
  if (auto choice = dispatcher.findOp({"aten::_fused_sdp_choice", ""})) {
    const auto core = core_dims(choice->schema(), 2);
    table["aten::_fused_sdp_choice.default"] = RuleEntry{
        "batch",
        "S(0) or S(1) (batch, heads) on query, key, value: decided on the blocks; R → R",
        [core](const CallInfo& call) {
          return free_dim_rule(call, leading_dims(call, core, 0), 0);
        }};
  }
  // Attention on CPU: batch and heads of query, key, value (and of the
  // mask when it has them) are free.
  for (const char* name :
       {"_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_flash_attention_for_cpu_backward"}) {
    add_for_overloads(
        table,
        "batch",
        name,
        "S(0) or S(1) (batch, heads) on query, key, value → the same on the outputs; R → R",
        [](const auto& schema) {
          return leading(schema, core_dims(schema, 2, {{"logsumexp", 1}}));
        });
  }
}

// Batched linear algebra: the batch dims before each argument's matrix
// (2), vector (1) or scalar (0) dims are free.
void add_linear_algebra(RuleTable& table) {
  const std::vector<std::pair<const char*, int64_t>> core = {
      {"pivots", 1},
      {"LU_pivots", 1},
      {"tau", 1},
      {"input2", 2},
      {"atol", 0},
      {"rtol", 0},
      {"info", 0},
  };
  const std::string batched =
      "S(d) → S(d) for every batch dim (before the matrix dims); R → R";
  for (const char* name :
       {"cholesky",
        "cholesky_inverse",
        "cholesky_solve",
        "linalg_cholesky_ex",
        "linalg_eig",
        "linalg_householder_product",
        "linalg_inv_ex",
        "linalg_ldl_factor_ex",
        "linalg_ldl_solve",
        "linalg_lu",
        "linalg_lu_factor_ex",
        "linalg_lu_solve",
        "linalg_matrix_exp",
        "linalg_pinv",
        "linalg_qr",
        "linalg_solve_triangular",
        "_linalg_det",
        "_linalg_eigh",
        "_linalg_slogdet",
        "_linalg_svd",
        "triangular_solve",
        "lu_unpack",
        "geqrf"}) {
    add_for_overloads(table, "batch", name, batched, [&](const auto& schema) {
      return leading(schema, core_dims(schema, 2, core));
    });
  }
  // ormqr's second argument is tau (vectors).
  add_for_overloads(table, "batch", "ormqr", batched, [](const auto& schema) {
    return leading(schema, core_dims(schema, 2, {{"input2", 1}}));
  });
  // B of a solve is a batch of vectors when it has one dim less than A.
  add_for_overloads(
      table, "batch", "_linalg_solve_ex", batched, [](const auto& schema) {
        const size_t outputs = schema.returns().size();
        return RuleFn([outputs](const CallInfo& call) {
          std::vector<int64_t> core{2, 2};
          if (call.operands.size() == 2 &&
              call.operands[1].shape.size() + 1 ==
                  call.operands[0].shape.size()) {
            core[1] = 1;
          }
          return free_dim_rule(
              call, leading_dims(call, core, outputs), outputs);
        });
      });
  // Errors are checked on the whole info on every rank, so that every rank
  // raises the same error (a shard's check would raise on some ranks only).
  add_for_overloads(
      table,
      "batch",
      "_linalg_check_errors",
      "R (every rank checks the whole info)",
      [](const auto&) -> RuleFn {
        return [](const CallInfo& call) { return free_dim_rule(call, {}, 0); };
      });
}

} // namespace

void add_batch_rules(RuleTable& table) {
  add_pooling_and_upsampling(table);
  add_grid_sampler(table);
  add_convolution(table);
  add_normalization(table);
  add_linear_algebra(table);
}

} // namespace ops
} // namespace meshguard
