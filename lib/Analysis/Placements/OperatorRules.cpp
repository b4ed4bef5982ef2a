//===--- OperatorRules.cpp - The runtime's rule table, as data ------------===//

#include "Placements/OperatorRules.h"
#include <algorithm>
#include <iterator>
#include <string>

namespace meshguard {
namespace analysis {

namespace {
using P = ShardedPolicy;
constexpr ShardedPolicy Rule = P::Rule, Decomposes = P::Decomposes,
                        Refused = P::Refused;

// Sorted by name: the generator writes them in std::map order.
const OperatorRule Operators[] = {
#define MESHGUARD_OPERATOR(Name, Policy, Family, FromShard, Keeps)             \
  {Name, Policy, Family, FromShard, Keeps},
#include "Placements/OperatorRules.def"
#undef MESHGUARD_OPERATOR
};
} // namespace

const OperatorRule *findOperatorRule(llvm::StringRef Name) {
  const auto *It = std::lower_bound(
      std::begin(Operators), std::end(Operators), Name,
      [](const OperatorRule &R, llvm::StringRef N) { return R.Name < N; });
  return It != std::end(Operators) && It->Name == Name ? It : nullptr;
}

const OperatorRule *findResultRule(llvm::StringRef Name) {
  const OperatorRule *Own = findOperatorRule(Name);
  if (!Own || Own->Policy != ShardedPolicy::Decomposes)
    return Own;
  if (Name == "matmul")
    return findOperatorRule("mm");
  // ATen's composite wrapper over its own kernel (softmax over _softmax,
  // log_softmax over _log_softmax): the kernel's rule gives the result.
  std::string Kernel = "_" + Name.str();
  if (const OperatorRule *Inner = findOperatorRule(Kernel);
      Inner && Inner->Policy == ShardedPolicy::Rule)
    return Inner;
  return Own;
}

} // namespace analysis
} // namespace meshguard
