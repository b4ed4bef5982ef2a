//===--- ProcessGroupSites.cpp - DTensors reaching raw c10d collectives ---===//

#include "meshguard/Analysis/ProcessGroupSites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// The braced-list elements that built \p ContainerExpr: written at the call
/// (`{a, b}`), or in the declaration of the local vector it names.
TensorOperands listBehind(const Expr *ContainerExpr, const ApiIndex &Index) {
  TensorOperands Ops = tensorOperands(ContainerExpr, Index);
  if (Ops.FromList)
    return Ops;
  const auto *Ref = dyn_cast<DeclRefExpr>(ContainerExpr->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getInit()) {
    TensorOperands Decl = tensorOperands(VD->getInit(), Index);
    if (Decl.FromList)
      return Decl;
  }
  return {};
}

/// True when \p E, a tensor element of a braced list, is surely a DTensor
/// now: a variable that is one, or a call that makes one.
bool surelyDTensorNow(const Expr *E, const ApiIndex &Index,
                      const Environment &Env) {
  E = E->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 1)
    E = Construct->getArg(0)->IgnoreImplicit();
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const SourceEntry *Source = Index.source(Call->getDirectCallee());
    return Source && Source->Kind == SourceKind::DTensor;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD)
    return false;
  return !dtensorVariables({VD}, Env).empty();
}

} // namespace

ProcessGroupScan scanProcessGroupCollectives(const FunctionDecl &FD,
                                             ASTContext &Ctx,
                                             const ApiIndex &Index,
                                             const AnalysisLimits &Limits) {
  ProcessGroupScan Scan;
  llvm::DenseSet<const CallExpr *> Seen;
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    const CallExpr *Call = firstVisitOfCall(Elt, Seen);
    if (!Call)
      return;
    const ProcessGroupCollectiveEntry *Entry =
        Index.processGroupCollective(Call->getDirectCallee());
    if (!Entry)
      return;
    // Arguments of an operator call include the object; methods here are
    // named calls, so argument indices are parameter indices.
    ProcessGroupSite Site{Call, Entry, false, {}, {}};
    for (unsigned ArgIndex : Entry->TensorArgs) {
      if (ArgIndex >= Call->getNumArgs())
        continue;
      const Expr *Arg = Call->getArg(ArgIndex);
      TensorOperands Ops = tensorOperands(Arg, Index);
      for (const TensorOperand &Op : Ops.Items) {
        std::optional<OperandReading> R = readOperand(Op, Env, Origins);
        if (!R)
          continue;
        bool Surely = Env.proves(*R->AnyDTensor);
        bool Maybe = !Surely && Env.proves(*R->AllKnown) &&
                     Env.allows(*R->AnyDTensor);
        if (!Surely && !Maybe)
          continue;
        Site.Surely |= Surely;
        Site.DTensorOperands.push_back(R->Fact);
        TensorOperands Elements =
            Op.IsContainer ? listBehind(Op.E, Index) : TensorOperands{};
        if (!Op.IsContainer && Ops.FromList && Surely)
          Site.WrapInToLocal.push_back(Op.E);
        for (const TensorOperand &Elem : Elements.Items)
          if (!Elem.IsContainer && surelyDTensorNow(Elem.E, Index, Env))
            Site.WrapInToLocal.push_back(Elem.E);
      }
    }
    if (!Site.DTensorOperands.empty())
      Scan.Sites.push_back(std::move(Site));
  };
  Scan.Result = analyzeFunction(FD, Ctx, Index, Limits, Visit);
  if (!Scan.Result.ok())
    Scan.Sites.clear();
  return Scan;
}

} // namespace analysis
} // namespace meshguard
