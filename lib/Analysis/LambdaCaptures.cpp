//===--- LambdaCaptures.cpp - Provenance a lambda's captures carry --------===//

#include "meshguard/Analysis/LambdaCaptures.h"
#include "meshguard/Analysis/Provenance.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Analysis/CFG.h"
#include "clang/Analysis/CFGStmtMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
class LambdaFinder : public RecursiveASTVisitor<LambdaFinder> {
public:
  explicit LambdaFinder(const CXXRecordDecl *Closure) : Closure(Closure) {}
  bool VisitLambdaExpr(LambdaExpr *E) {
    if (E->getLambdaClass() != Closure)
      return true;
    Found = E;
    return false;
  }
  const CXXRecordDecl *Closure;
  const LambdaExpr *Found = nullptr;
};

/// The uses of a variable in a function body, except the capture-list entries
/// that capture it by reference (what is done through such a capture is a
/// use in the lambda's body), and whether each lies in a lambda's body.
class UseFinder : public RecursiveASTVisitor<UseFinder> {
public:
  explicit UseFinder(const VarDecl *VD) : VD(VD) {}
  bool TraverseLambdaExpr(LambdaExpr *E) {
    for (const Expr *Init : E->capture_inits())
      if (Init)
        CaptureInits.insert(Init);
    ++LambdaDepth;
    bool Continue = RecursiveASTVisitor::TraverseLambdaExpr(E);
    --LambdaDepth;
    return Continue;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == VD && !CaptureInits.contains(E))
      Uses.push_back({E, LambdaDepth > 0});
    return true;
  }

  struct Use {
    const DeclRefExpr *Ref;
    bool InLambda;
  };
  llvm::SmallVector<Use, 8> Uses;

private:
  const VarDecl *VD;
  llvm::DenseSet<const Expr *> CaptureInits;
  unsigned LambdaDepth = 0;
};

/// Whether control can reach one statement of a function after another.
class Reachability {
public:
  Reachability(const FunctionDecl &FD, ASTContext &Ctx)
      : Parents(FD.getBody()) {
    CFG::BuildOptions Options;
    Options.setAllAlwaysAdd();
    Graph = CFG::buildCFG(&FD, FD.getBody(), &Ctx, Options);
    if (Graph)
      Blocks.reset(CFGStmtMap::Build(Graph.get(), &Parents));
  }

  /// Whether \p To can run after \p From has run (true when unsure).
  bool canFollow(const Stmt *From, const Stmt *To) {
    const CFGBlock *FromBlock = Blocks ? Blocks->getBlock(From) : nullptr;
    const CFGBlock *ToBlock = Blocks ? Blocks->getBlock(To) : nullptr;
    if (!FromBlock || !ToBlock)
      return true;
    if (FromBlock == ToBlock) {
      std::optional<unsigned> F = position(*FromBlock, From),
                              T = position(*ToBlock, To);
      if (!F || !T || *T > *F)
        return true;
    }
    return reachesFromSuccessors(*FromBlock, *ToBlock);
  }

private:
  /// The index of the element of \p B that evaluates \p S (or the nearest
  /// statement around it that is one).
  std::optional<unsigned> position(const CFGBlock &B, const Stmt *S) const {
    for (; S; S = Parents.getParent(S))
      for (unsigned I = 0, N = B.size(); I < N; ++I)
        if (auto Elt = B[I].getAs<CFGStmt>(); Elt && Elt->getStmt() == S)
          return I;
    return std::nullopt;
  }

  static bool reachesFromSuccessors(const CFGBlock &From, const CFGBlock &To) {
    llvm::SmallVector<const CFGBlock *, 16> Work;
    llvm::DenseSet<const CFGBlock *> Seen;
    auto Push = [&](const CFGBlock &B) {
      for (const CFGBlock *Succ : B.succs())
        if (Succ && Seen.insert(Succ).second)
          Work.push_back(Succ);
    };
    Push(From);
    while (!Work.empty()) {
      const CFGBlock *B = Work.pop_back_val();
      if (B == &To)
        return true;
      Push(*B);
    }
    return false;
  }

  ParentMap Parents;
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<CFGStmtMap> Blocks;
};

/// A write that takes effect where it is and leaves no alias behind: an
/// assignment to \p Ref or a method called on it. Taking its address or
/// passing it by non-const reference may write it later, anywhere.
bool isPointWrite(const Stmt *Write, const DeclRefExpr *Ref) {
  const Expr *Target = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Write);
      Op && Op->isAssignmentOp() && Op->getNumArgs() > 0)
    Target = Op->getArg(0);
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Write))
    Target = Member->getImplicitObjectArgument();
  else if (const auto *Assign = dyn_cast<BinaryOperator>(Write);
           Assign && Assign->isAssignmentOp())
    Target = Assign->getLHS();
  return Target && Target->IgnoreParenImpCasts() == Ref;
}

/// Whether a lambda created by \p Lambda that captures \p VD by reference
/// sees, whenever it runs, the value \p VD had at its creation: no lambda
/// writes \p VD, and every write in \p Enclosing is one the creation cannot
/// reach. Any other write (through an alias, see isPointWrite) counts as a
/// write anywhere. The lambda is taken to run before \p VD's scope ends.
bool unchangedWhileCaptured(const VarDecl &VD, const LambdaExpr &Lambda,
                            const FunctionDecl &Enclosing, ASTContext &Ctx) {
  UseFinder Finder(&VD);
  Finder.TraverseStmt(Enclosing.getBody());
  ExprMutationAnalyzer Mutations(*Enclosing.getBody(), Ctx);
  std::optional<Reachability> Order;
  for (const UseFinder::Use &U : Finder.Uses) {
    const Stmt *Write = Mutations.findMutation(U.Ref);
    if (!Write)
      continue;
    if (U.InLambda)
      return false;
    if (!Order)
      Order.emplace(Enclosing, Ctx);
    if (!isPointWrite(Write, U.Ref) || Order->canFollow(&Lambda, Write))
      return false;
  }
  return true;
}
} // namespace

const LambdaExpr *lambdaExprOf(const CXXRecordDecl &Closure) {
  const auto *Enclosing = dyn_cast<FunctionDecl>(Closure.getDeclContext());
  if (!Closure.isLambda() || !Enclosing || !Enclosing->getBody())
    return nullptr;
  LambdaFinder Finder(&Closure);
  Finder.TraverseStmt(Enclosing->getBody());
  return Finder.Found;
}

llvm::DenseMap<const VarDecl *, CapturedTensor>
capturedTensorFacts(const CXXMethodDecl &CallOperator, ASTContext &Ctx,
                    const ApiIndex &Index, const AnalysisLimits &Limits) {
  llvm::DenseMap<const VarDecl *, CapturedTensor> Facts;
  const CXXRecordDecl *Closure = CallOperator.getParent();
  const LambdaExpr *Lambda = Closure ? lambdaExprOf(*Closure) : nullptr;
  if (!Lambda)
    return Facts;
  const auto *Enclosing = cast<FunctionDecl>(Closure->getDeclContext());

  // Captures whose value at creation is their value when the lambda runs.
  llvm::SmallVector<const VarDecl *, 4> Stable;
  for (const LambdaCapture &Capture : Lambda->captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (!VD || !Index.isTensorType(VD->getType()) ||
        VD->getType()->isReferenceType())
      continue;
    if (Capture.getCaptureKind() == LCK_ByRef &&
        !unchangedWhileCaptured(*VD, *Lambda, *Enclosing, Ctx))
      continue;
    Stable.push_back(VD);
  }
  if (Stable.empty())
    return Facts;

  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    auto S = Elt.getAs<CFGStmt>();
    if (!S || S->getStmt() != Lambda)
      return;
    for (const VarDecl *VD : Stable) {
      auto *L = dyn_cast_or_null<RecordStorageLocation>(
          Env.getStorageLocation(*VD));
      if (!L)
        continue;
      TensorFacts F = readTensor(*L, Env, &Origins);
      Provenance P = classify(F, Env);
      if (P == Provenance::Plain || P == Provenance::DTensor)
        Facts[VD] = {P == Provenance::Plain, F.Origin};
    }
  };
  AnalysisResult Result =
      analyzeFunction(*Enclosing, Ctx, Index, Limits, Visit);
  if (!Result.ok())
    Facts.clear();
  return Facts;
}

} // namespace analysis
} // namespace meshguard
