//===--- Provenance.cpp - Reading provenance at a program point -----------===//

#include "meshguard/Analysis/Provenance.h"
#include "clang/Analysis/FlowSensitive/Arena.h"

using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

static Provenance classify(const Formula &AllPlain, const Formula &AllDTensor,
                           const Formula &AnyDTensor, const Formula &Known,
                           const Environment &Env) {
  if (!Env.proves(Known))
    return Env.proves(AnyDTensor) ? Provenance::MaybeDTensor
                                  : Provenance::Unknown;
  if (Env.proves(AllPlain))
    return Provenance::Plain;
  if (Env.proves(AllDTensor))
    return Provenance::DTensor;
  if (Env.allows(AllPlain))
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

} // namespace analysis
} // namespace meshguard
