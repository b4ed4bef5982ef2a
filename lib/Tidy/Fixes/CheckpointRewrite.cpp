//===--- CheckpointRewrite.cpp - torch::save to the checkpoint API --------===//

#include "CheckpointRewrite.h"
#include "EditableSource.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace meshguard {
namespace tidy {

namespace {

/// The declarations a module expression goes through, from its variable:
/// `model`, `*model`, `model.get()` are {model}; `model->fc1` and
/// `*model->fc1` are {model, fc1}. Empty when it is anything else.
llvm::SmallVector<const ValueDecl *, 3> modulePath(const Expr *E) {
  llvm::SmallVector<const ValueDecl *, 3> Path;
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_Deref) {
      E = U->getSubExpr();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
               Op && Op->getNumArgs() == 1 &&
               (Op->getOperator() == OO_Star ||
                Op->getOperator() == OO_Arrow)) {
      E = Op->getArg(0);
    } else if (const auto *M = dyn_cast<CXXMemberCallExpr>(E);
               M && M->getMethodDecl() &&
               M->getMethodDecl()->getDeclName().isIdentifier() &&
               M->getMethodDecl()->getName() == "get" && !M->getNumArgs()) {
      E = M->getImplicitObjectArgument();
    } else if (const auto *T = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = T->getSubExpr();
    } else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
    } else if (const Expr *Source = analysis::copySource(E)) {
      E = Source;
    } else if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      Path.insert(Path.begin(), Member->getMemberDecl());
      E = Member->getBase();
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      Path.insert(Path.begin(), Ref->getDecl());
      return Path;
    } else {
      return {};
    }
  }
  return {};
}

/// One path is the other, or a submodule's of it.
bool related(llvm::ArrayRef<const ValueDecl *> A,
             llvm::ArrayRef<const ValueDecl *> B) {
  if (A.empty() || B.empty())
    return false;
  size_t N = std::min(A.size(), B.size());
  return A.take_front(N) == B.take_front(N);
}

void callsIn(const Stmt *S, llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Out.push_back(Call);
  for (const Stmt *Child : S->children())
    callsIn(Child, Out);
}

/// The mesh argument of a module-distributing call, if \p Call is one.
int meshArgument(const CallExpr &Call, const analysis::ApiIndex &Index) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (Index.isDistributeModule(Callee))
    return 1;
  const analysis::PlacementCallEntry *E = Index.placementCall(Callee);
  if (E && (E->Role == analysis::PlacementRole::ShardsModule ||
            E->Role == analysis::PlacementRole::ParallelizesModule))
    return E->MeshArg;
  return -1;
}

} // namespace

llvm::SmallVector<ModuleDistribution, 2>
distributionsBefore(const FunctionDecl &FD, const Expr &Module,
                    const Expr &Before, const analysis::ApiIndex &Index,
                    ASTContext &Ctx) {
  llvm::SmallVector<ModuleDistribution, 2> Found;
  llvm::SmallVector<const ValueDecl *, 3> Target = modulePath(&Module);
  if (Target.empty())
    return Found;
  llvm::SmallVector<const CallExpr *, 32> Calls;
  callsIn(FD.getBody(), Calls);
  const SourceManager &SM = Ctx.getSourceManager();
  for (const CallExpr *Call : Calls) {
    int Mesh = meshArgument(*Call, Index);
    if (Mesh < 1 || unsigned(Mesh) >= Call->getNumArgs() ||
        !SM.isBeforeInTranslationUnit(Call->getEndLoc(), Before.getBeginLoc()))
      continue;
    if (related(modulePath(Call->getArg(0)), Target))
      Found.push_back({Call, Call->getArg(0), Call->getArg(Mesh)});
  }
  return Found;
}

bool onlyVariableNamed(const FunctionDecl &FD, const VarDecl &Var) {
  for (const ParmVarDecl *P : FD.parameters())
    if (P != &Var && P->getDeclName() == Var.getDeclName())
      return false;
  llvm::SmallVector<const Stmt *, 32> Work{FD.getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D);
            VD && VD != &Var && VD->getDeclName() == Var.getDeclName())
          return false;
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return true;
}

bool isPathArgument(const Expr &E) {
  QualType T = E.IgnoreParenImpCasts()->getType().getNonReferenceType();
  if (const auto *Array = T->getAsArrayTypeUnsafe())
    return Array->getElementType()->isCharType();
  if (T->isPointerType())
    return T->getPointeeType()->isCharType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && RD->getDeclName().isIdentifier() &&
         RD->getName() == "basic_string" && RD->isInStdNamespace();
}

std::string sourceText(const Expr &E, ASTContext &Ctx) {
  bool Invalid = false;
  StringRef Text =
      Lexer::getSourceText(CharSourceRange::getTokenRange(E.getSourceRange()),
                           Ctx.getSourceManager(), Ctx.getLangOpts(), &Invalid);
  return Invalid ? std::string() : Text.str();
}

std::optional<FixItHint> checkpointSaveFix(const CallExpr &Save,
                                           StringRef Tensors, StringRef Mesh,
                                           ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange Range = Save.getSourceRange();
  if (Save.getNumArgs() != 2 ||
      !isEditable({Range.getBegin(), Range.getEnd()}, SM))
    return std::nullopt;
  std::string Path = sourceText(*Save.getArg(1), Ctx);
  if (Path.empty() || Tensors.empty() || Mesh.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Range),
                                      ("meshguard::checkpoint::save(" +
                                       Tensors + ", " + Path + ", " + Mesh +
                                       ")")
                                          .str());
}

} // namespace tidy
} // namespace meshguard
