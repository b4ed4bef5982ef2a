//===--- Provenance.cpp - Reading provenance at a program point -----------===//

#include "meshguard/Analysis/Provenance/Provenance.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Analysis/FlowSensitive/DataflowAnalysisContext.h"

using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

bool surely(const Formula &F, const Environment &Env) {
  if (F.kind() == Formula::Literal)
    return F.literal();
  llvm::SetVector<const Formula *> Query;
  Query.insert(&Env.arena().makeNot(F));
  return Env.getDataflowAnalysisContext()
             .querySolver(std::move(Query))
             .getStatus() == Solver::Result::Status::Unsatisfiable;
}

bool possibly(const Formula &F, const Environment &Env) {
  if (F.kind() == Formula::Literal)
    return F.literal();
  llvm::SetVector<const Formula *> Query;
  Query.insert(&F);
  return Env.getDataflowAnalysisContext()
             .querySolver(std::move(Query))
             .getStatus() == Solver::Result::Status::Satisfiable;
}

bool possiblyOnAPath(const Formula &F, const Environment &Env) {
  return possibly(F, Env) && Env.allows(F);
}

static Provenance classify(const Formula &AllPlain, const Formula &AllDTensor,
                           const Formula &AnyDTensor, const Formula &Known,
                           const Environment &Env) {
  if (!surely(Known, Env))
    return surely(AnyDTensor, Env) ? Provenance::MaybeDTensor
                                   : Provenance::Unknown;
  if (surely(AllPlain, Env))
    return Provenance::Plain;
  if (surely(AllDTensor, Env))
    return Provenance::DTensor;
  if (possibly(AllPlain, Env))
    return Provenance::MaybePlain;
  return Provenance::MaybeDTensor;
}

Provenance classify(const TensorFacts &F, const Environment &Env) {
  Arena &A = Env.arena();
  const Formula &IsDT = A.makeNot(*F.Plain);
  return classify(*F.Plain, IsDT, IsDT, *F.Known, Env);
}

Provenance classify(const ContainerFacts &F, const Environment &Env) {
  return classify(*F.AllPlain, *F.AllDTensor, *F.AnyDTensor, *F.AllKnown, Env);
}

Provenance classify(const ModuleFacts &F, const Environment &Env) {
  const Formula &Plain = Env.arena().makeNot(*F.Distributed);
  return classify(Plain, *F.Distributed, *F.Distributed, *F.Known, Env);
}

} // namespace analysis
} // namespace meshguard
