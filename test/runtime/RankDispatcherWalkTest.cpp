// Ops outside the sharding-rule table are refused, for every operator the
// dispatcher knows: the walk asks the DTensor kernel's own decision
// (sharded_call_policy) for each, checks that the kernel is registered for
// each refused op and that no rule is dead (an op that decomposes before
// reaching the kernel), and really calls every refused aten op that can be
// called with a sharded tensor and default arguments alone.

#include <sstream>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

std::string display(const c10::OperatorName& name) {
  return name.name + "." +
      (name.overload_name.empty() ? std::string("default")
                                  : name.overload_name);
}

// A Tensor first argument, every other one with a default, nothing written.
bool callable_generically(const c10::FunctionSchema& schema) {
  const auto& args = schema.arguments();
  if (args.empty() || args[0].type()->kind() != c10::TypeKind::TensorType) {
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if ((i > 0 && !args[i].default_value()) ||
        (args[i].alias_info() && args[i].alias_info()->isWrite())) {
      return false;
    }
  }
  return true;
}

std::string join(const std::vector<std::string>& v, size_t max = 40) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size() && i < max; ++i) {
    os << "\n  " << v[i];
  }
  if (v.size() > max) {
    os << "\n  ... " << v.size() - max << " more";
  }
  return os.str();
}

} // namespace

TEST(DispatcherWalk, EveryOpOutsideTheTableIsRefused) {
  auto mesh = world_mesh();
  // The first DTensor registers the kernel for every operator.
  at::Tensor sharded = distribute_tensor(rnd({4, 3}, 1), mesh, {S0});
  auto& dispatcher = c10::Dispatcher::singleton();
  size_t rules = 0, decomposes = 0, refused = 0;
  std::vector<std::string> dead_rules, unregistered;
  std::vector<c10::OperatorHandle> sample;
  for (const auto& name : dispatcher.getAllOpNames()) {
    auto op = dispatcher.findOp(name);
    if (!op || !op->hasSchema()) {
      continue;
    }
    switch (sharded_call_policy(name)) {
      case ShardedCall::kRule:
        ++rules;
        if (op->hasKernelForDispatchKey(
                c10::DispatchKey::CompositeImplicitAutograd) &&
            !op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse2)) {
          dead_rules.push_back(display(name));
        }
        break;
      case ShardedCall::kDecomposes:
        ++decomposes;
        EXPECT_TRUE(op->hasKernelForDispatchKey(
            c10::DispatchKey::CompositeImplicitAutograd))
            << display(name);
        break;
      case ShardedCall::kRefused:
        ++refused;
        if (!op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse2)) {
          unregistered.push_back(display(name));
        }
        if (name.name.rfind("aten::", 0) == 0 &&
            callable_generically(op->schema())) {
          sample.push_back(*op);
        }
        break;
    }
  }
  EXPECT_TRUE(dead_rules.empty())
      << "rules for ops that decompose before the DTensor kernel (never used):"
      << join(dead_rules);
  EXPECT_TRUE(unregistered.empty())
      << "refused ops without the DTensor kernel:" << join(unregistered);
  EXPECT_EQ(rules, sharding_rule_ops().size());
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(decomposes, 100u);

  // The real calls: each must stop in the kernel with its error, never run.
  std::vector<std::string> ran, other_errors;
  for (const auto& op : sample) {
    const std::string name = display(op.operator_name());
    torch::jit::Stack stack;
    stack.emplace_back(sharded);
    const auto& args = op.schema().arguments();
    for (size_t i = 1; i < args.size(); ++i) {
      stack.push_back(*args[i].default_value());
    }
    try {
      op.callBoxed(&stack);
      if (name == "aten::is_pinned.default") {
        // A query answered before the kernel (BackendSelect): no tensor
        // result, and false is right for the storage-less wrapper.
        EXPECT_FALSE(stack.at(0).toBool());
      } else {
        ran.push_back(name);
      }
    } catch (const c10::Error& e) {
      const std::string what = e.what();
      if (what.find(name + ": no sharding rule") == std::string::npos) {
        other_errors.push_back(name + ": " + what.substr(0, what.find('\n')));
      }
    }
  }
  EXPECT_TRUE(ran.empty())
      << "ops outside the table that ran on a Shard(0) operand:" << join(ran);
  // Other errors stop the op before the kernel (argument checks); they
  // must stay the exception.
  EXPECT_LT(other_errors.size() * 10, sample.size()) << join(other_errors);
  std::printf(
      "dispatcher walk: %zu rules, %zu decompose, %zu refused; %zu refused ops called: %zu stopped by "
      "the kernel, %zu by an earlier check%s\n",
      rules,
      decomposes,
      refused,
      sample.size(),
      sample.size() - ran.size() - other_errors.size(),
      other_errors.size(),
      join(other_errors).c_str());
}
