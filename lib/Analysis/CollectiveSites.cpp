//===--- CollectiveSites.cpp - Mesh-inferred collectives and their args ---===//

#include "meshguard/Analysis/CollectiveSites.h"
#include "meshguard/Analysis/TensorOperands.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// Tensor-typed parameters and local variables of a function.
class TensorVarCollector : public RecursiveASTVisitor<TensorVarCollector> {
public:
  TensorVarCollector(const ApiIndex &Index) : Index(Index) {}
  bool VisitVarDecl(VarDecl *VD) {
    if (Index.isTensorType(VD->getType()))
      Vars.push_back(VD);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  llvm::SmallVector<const VarDecl *, 8> Vars;

private:
  const ApiIndex &Index;
};

} // namespace

CollectiveScan scanCollectives(const FunctionDecl &FD, ASTContext &Ctx,
                               const ApiIndex &Index,
                               const AnalysisLimits &Limits) {
  CollectiveScan Scan;
  llvm::SmallVector<const VarDecl *, 8> TensorVars;
  {
    TensorVarCollector Collector(Index);
    for (const ParmVarDecl *P : FD.parameters())
      if (Index.isTensorType(P->getType()))
        TensorVars.push_back(P);
    Collector.TraverseStmt(FD.getBody());
    TensorVars.append(Collector.Vars.begin(), Collector.Vars.end());
  }
  llvm::DenseSet<const CallExpr *> Seen;

  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    auto S = Elt.getAs<CFGStmt>();
    if (!S)
      return;
    const auto *Call = dyn_cast<CallExpr>(S->getStmt());
    if (!Call || !Seen.insert(Call).second)
      return;
    const MeshCollectiveEntry *Entry =
        Index.meshCollective(Call->getDirectCallee());
    if (!Entry || Entry->TensorArg >= Call->getNumArgs())
      return;
    TensorOperands Ops = tensorOperands(Call->getArg(Entry->TensorArg), Index);
    if (Ops.Items.empty())
      return; // `{}` or something we cannot see into: nothing to say.

    CollectiveSite Site{Call, Entry, MeshVerdict::MayHaveMesh, {}, {}};
    Arena &A = Env.arena();
    const Formula *AllPlain = &A.makeLiteral(true);
    const Formula *AllKnown = &A.makeLiteral(true);
    for (const TensorOperand &Op : Ops.Items) {
      RecordStorageLocation *L = recordLocation(Op.E, Env);
      if (!L)
        return; // An argument we cannot read: unknown, never a warning.
      OperandFact Fact{Op.E, Op.IsContainer, Provenance::Unknown, nullptr};
      if (Op.IsContainer) {
        ContainerFacts F = readContainer(*L, Env);
        AllPlain = &A.makeAnd(*AllPlain, *F.AllPlain);
        AllKnown = &A.makeAnd(*AllKnown, *F.AllKnown);
        Fact.P = classify(F, Env);
      } else {
        TensorFacts F = readTensor(*L, Env, &Origins);
        AllPlain = &A.makeAnd(*AllPlain, *F.Plain);
        AllKnown = &A.makeAnd(*AllKnown, *F.Known);
        Fact.P = classify(F, Env);
        Fact.Origin = F.Origin;
      }
      Site.Operands.push_back(Fact);
    }
    if (!Env.proves(*AllKnown))
      return;
    if (Env.proves(*AllPlain))
      Site.Verdict = MeshVerdict::NoMesh;
    else if (Env.allows(*AllPlain))
      Site.Verdict = MeshVerdict::MaybeNoMesh;
    else
      return;
    for (const VarDecl *VD : TensorVars) {
      auto *L = dyn_cast_or_null<RecordStorageLocation>(
          Env.getStorageLocation(*VD));
      if (L && classify(readTensor(*L, Env, nullptr), Env) ==
                   Provenance::DTensor)
        Site.DTensorVars.push_back(VD);
    }
    Scan.Sites.push_back(std::move(Site));
  };

  Scan.Result = analyzeFunction(FD, Ctx, Index, Limits, Visit);
  if (!Scan.Result.ok())
    Scan.Sites.clear();
  return Scan;
}

} // namespace analysis
} // namespace meshguard
