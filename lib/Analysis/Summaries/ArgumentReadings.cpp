//===--- ArgumentReadings.cpp - What an argument gives a sink -------------===//

#include "Summaries/ArgumentReadings.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/ModuleNavigation.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/Analysis/FlowSensitive/Arena.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

/// "plain and known" of every tensor operand of \p Arg, or of the module it
/// gives when \p IsModule.
const Formula *allPlainAndKnown(const Expr *Arg, bool IsModule,
                                const ApiIndex &Index, const Environment &Env,
                                const OriginTable &Origins) {
  if (IsModule) {
    std::optional<OperandReading> R = readModuleOperand(Arg, Env, Index);
    return R ? &Env.arena().makeAnd(*R->AllPlain, *R->AllKnown) : nullptr;
  }
  TensorOperands Ops = tensorOperands(Arg, Index);
  if (Ops.Items.empty())
    return nullptr;
  std::optional<OperandsReading> R = readOperands(Ops, Env, Origins);
  return R ? &Env.arena().makeAnd(*R->AllPlain, *R->AllKnown) : nullptr;
}

/// "some tensor \p Arg passes is a DTensor" (or: the module it gives was
/// distributed), or null when it cannot be read.
const Formula *anyDTensor(const Expr *Arg, bool IsModule, const ApiIndex &Index,
                          const Environment &Env, const OriginTable &Origins) {
  if (IsModule) {
    std::optional<OperandReading> R = readModuleOperand(Arg, Env, Index);
    return R ? R->AnyDTensor : nullptr;
  }
  TensorOperands Ops = tensorOperands(Arg, Index);
  Arena &A = Env.arena();
  const Formula *Any = nullptr;
  for (const TensorOperand &Op : Ops.Items)
    if (std::optional<OperandReading> R = readOperand(Op, Env, Origins))
      Any = Any ? &A.makeOr(*Any, *R->AnyDTensor) : R->AnyDTensor;
  return Any;
}

/// Every tensor \p Arg passes is known (plain or DTensor) and they are not
/// surely all plain: a vector filled from a module's parameters and its
/// buffers (plain), in loops that may not run. Asked under both assumptions
/// of a module parameter, it tells them apart only through the parameters:
/// given DTensors unless the module has none.
bool knownNotAllPlain(const Expr *Arg, bool IsModule, const ApiIndex &Index,
                      const Environment &Env, const OriginTable &Origins) {
  if (IsModule)
    return false;
  TensorOperands Ops = tensorOperands(Arg, Index);
  if (Ops.Items.empty())
    return false;
  std::optional<OperandsReading> R = readOperands(Ops, Env, Origins);
  return R && surely(*R->AllKnown, Env) && !surely(*R->AllPlain, Env);
}

/// "every tensor \p Arg passes is a DTensor" (the module it gives was
/// distributed), or null when it cannot be read. With a module assumed
/// distributed, a vector filled from its parameters() in a loop is "every
/// element a DTensor" but not "some element" (the loop may not run).
const Formula *everyDTensor(const Expr *Arg, bool IsModule,
                            const ApiIndex &Index, const Environment &Env,
                            const OriginTable &Origins) {
  if (IsModule)
    return anyDTensor(Arg, IsModule, Index, Env, Origins);
  TensorOperands Ops = tensorOperands(Arg, Index);
  Arena &A = Env.arena();
  const Formula *Every = nullptr;
  for (const TensorOperand &Op : Ops.Items) {
    RecordStorageLocation *L = recordLocation(Op.E, Env);
    if (!L)
      return nullptr;
    const Formula *This;
    if (Op.IsContainer) {
      ContainerFacts F = readContainer(*L, Env);
      This = &A.makeAnd(*F.AllDTensor, *F.AllKnown);
    } else {
      This = &readTensor(*L, Env, nullptr).isDTensor(A);
    }
    Every = Every ? &A.makeAnd(*Every, *This) : This;
  }
  return Every;
}

} // namespace analysis
} // namespace meshguard
