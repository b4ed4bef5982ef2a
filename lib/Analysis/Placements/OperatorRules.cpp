//===--- OperatorRules.cpp - The runtime's rule table, as data ------------===//

#include "Placements/OperatorRules.h"
#include <algorithm>
#include <iterator>

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
  if (Own && Own->Policy == ShardedPolicy::Decomposes && Name == "matmul")
    return findOperatorRule("mm");
  return Own;
}

} // namespace analysis
} // namespace meshguard
