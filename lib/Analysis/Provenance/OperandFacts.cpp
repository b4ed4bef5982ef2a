//===--- OperandFacts.cpp - Provenance of a call's tensor operands --------===//

#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/ModuleNavigation.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

std::optional<OperandReading> readOperand(const TensorOperand &Op,
                                          const Environment &Env,
                                          const OriginTable &Origins) {
  RecordStorageLocation *L = recordLocation(Op.E, Env);
  if (!L)
    return std::nullopt;
  if (Op.IsContainer) {
    ContainerFacts F = readContainer(*L, Env);
    return OperandReading{{Op.E, true, classify(F, Env), nullptr},
                          F.AllPlain,
                          F.AnyDTensor,
                          F.AllKnown};
  }
  TensorFacts F = readTensor(*L, Env, &Origins);
  return OperandReading{{Op.E, false, classify(F, Env), F.Origin},
                        F.Plain,
                        &F.isDTensor(Env.arena()),
                        F.Known};
}

DTensorPresence dtensorPresence(const OperandReading &R,
                                const Environment &Env) {
  if (surely(*R.AnyDTensor, Env))
    return DTensorPresence::Surely;
  if (surely(*R.AllKnown, Env) && possiblyOnAPath(*R.AnyDTensor, Env))
    return DTensorPresence::Maybe;
  return DTensorPresence::None;
}

std::optional<OperandsReading> readOperands(const TensorOperands &Ops,
                                            const Environment &Env,
                                            const OriginTable &Origins) {
  Arena &A = Env.arena();
  OperandsReading Out{{}, &A.makeLiteral(true), &A.makeLiteral(true)};
  for (const TensorOperand &Op : Ops.Items) {
    std::optional<OperandReading> R = readOperand(Op, Env, Origins);
    if (!R)
      return std::nullopt;
    Out.AllPlain = &A.makeAnd(*Out.AllPlain, *R->AllPlain);
    Out.AllKnown = &A.makeAnd(*Out.AllKnown, *R->AllKnown);
    Out.Facts.push_back(R->Fact);
  }
  return Out;
}

std::optional<OperandReading> readModuleOperand(const Expr *E,
                                                const Environment &Env,
                                                const ApiIndex &Index) {
  llvm::SmallVector<RecordStorageLocation *, 4> Chain =
      modulesAlong(E, Env, Index);
  if (Chain.empty())
    return std::nullopt;
  ModuleFacts F = readModule(*Chain.front(), Env);
  const VarDecl *VD = moduleVariable(E, Index);
  const Expr *Origin = VD && !isa<ParmVarDecl>(VD) ? VD->getInit() : nullptr;
  Arena &A = Env.arena();
  return OperandReading{{E, false, classify(F, Env), Origin, /*IsModule=*/true},
                        &A.makeNot(*F.Distributed),
                        F.Distributed,
                        F.Known};
}

namespace {
class TensorVarCollector : public RecursiveASTVisitor<TensorVarCollector> {
public:
  explicit TensorVarCollector(const ApiIndex &Index) : Index(Index) {}
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

llvm::SmallVector<const VarDecl *, 8> tensorVariables(const FunctionDecl &FD,
                                                      const ApiIndex &Index) {
  TensorVarCollector Collector(Index);
  for (const ParmVarDecl *P : FD.parameters())
    if (Index.isTensorType(P->getType()))
      Collector.Vars.push_back(P);
  Collector.TraverseStmt(FD.getBody());
  return Collector.Vars;
}

llvm::SmallVector<const VarDecl *, 4>
dtensorVariables(llvm::ArrayRef<const VarDecl *> Vars, const Environment &Env,
                 const Stmt *Site) {
  // The most recently declared first, and only a few: a fix-it needs one,
  // and reading every variable at every site made long functions quadratic.
  constexpr unsigned MaxFound = 4, MaxRead = 64;
  llvm::SmallVector<const VarDecl *, 4> Out;
  if (Site && !Vars.empty()) {
    // Skipping the variables declared after the site one by one (they have
    // no location yet) was quadratic too: 27% of a 100k-statement function.
    const SourceManager &SM = Vars.front()->getASTContext().getSourceManager();
    SourceLocation At = SM.getExpansionLoc(Site->getBeginLoc());
    Vars = Vars.take_front(
        llvm::partition_point(Vars,
                              [&](const VarDecl *VD) {
                                return SM.isBeforeInTranslationUnit(
                                    SM.getExpansionLoc(VD->getLocation()), At);
                              }) -
        Vars.begin());
  }
  unsigned Read = 0;
  for (const VarDecl *VD : llvm::reverse(Vars)) {
    auto *L =
        dyn_cast_or_null<RecordStorageLocation>(Env.getStorageLocation(*VD));
    if (!L)
      continue; // Not declared yet on this path.
    if (classify(readTensor(*L, Env, nullptr), Env) == Provenance::DTensor)
      Out.push_back(VD);
    if (Out.size() == MaxFound || ++Read == MaxRead)
      break;
  }
  return Out;
}

} // namespace analysis
} // namespace meshguard
