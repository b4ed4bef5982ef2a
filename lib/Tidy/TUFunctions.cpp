//===--- TUFunctions.cpp - The functions the dtensor-* checks look at -----===//

#include "TUFunctions.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace tidy {

bool inSystemHeader(SourceLocation Loc, const SourceManager &SM) {
  SourceLocation Expansion = SM.getExpansionLoc(Loc);
  return Expansion.isValid() && SM.isInSystemHeader(Expansion);
}

namespace {
/// The functions called in a subtree, as the AST matchers' hasDescendant
/// sees them (implicit code and lambda bodies included).
class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  explicit CallCollector(llvm::SmallVectorImpl<const FunctionDecl *> &Callees)
      : Callees(Callees) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl()))
      Callees.push_back(FD);
    return true;
  }

private:
  llvm::SmallVectorImpl<const FunctionDecl *> &Callees;
};

/// The definitions and lambdas outside the system headers; declarations in
/// a system header (libtorch's namespaces) are not entered at all.
class DefinitionFinder : public RecursiveASTVisitor<DefinitionFinder> {
public:
  DefinitionFinder(const SourceManager &SM,
                   std::vector<TUFunctions::Entry> &Entries)
      : SM(SM), Entries(Entries) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        inSystemHeader(D->getBeginLoc(), SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    // A lambda's call operator is reached through its expression.
    if (!FD->isThisDeclarationADefinition() ||
        !FD->doesThisDeclarationHaveABody() || isLambdaCallOperator(FD))
      return true;
    TUFunctions::Entry &E = Entries.emplace_back();
    E.Function = FD;
    CallCollector(E.Callees).TraverseStmt(FD->getBody());
    return true;
  }

  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    if (inSystemHeader(Lambda->getBeginLoc(), SM))
      return true;
    TUFunctions::Entry &E = Entries.emplace_back();
    E.Function = Lambda->getCallOperator();
    E.Lambda = Lambda;
    // The expression's children, as hasDescendant sees them from it.
    CallCollector Collector(E.Callees);
    for (Stmt *Child : Lambda->children())
      Collector.TraverseStmt(Child);
    return true;
  }

private:
  const SourceManager &SM;
  std::vector<TUFunctions::Entry> &Entries;
};
} // namespace

TUFunctions::TUFunctions(ASTContext &Ctx) : Ctx(Ctx) {
  DefinitionFinder(Ctx.getSourceManager(), Entries).TraverseAST(Ctx);
}

llvm::ArrayRef<const FunctionDecl *>
TUFunctions::calleesOf(const FunctionDecl &FD) {
  const Stmt *Body = FD.getBody();
  if (!Body)
    return {};
  auto [It, New] = BodyCallees.try_emplace(Body);
  if (New)
    CallCollector(It->second).TraverseStmt(const_cast<Stmt *>(Body));
  return It->second;
}

bool TUFunctions::reaches(const FunctionDecl &Callee,
                          llvm::function_ref<bool(const FunctionDecl &)> Wanted,
                          unsigned Depth) {
  if (Wanted(Callee))
    return true;
  // As the matchers' hasBody: the declaration the call names must be the
  // definition.
  if (Depth == 0 || !Callee.doesThisDeclarationHaveABody() ||
      inSystemHeader(Callee.getBeginLoc(), Ctx.getSourceManager()))
    return false;
  for (const FunctionDecl *Next : calleesOf(Callee))
    if (reaches(*Next, Wanted, Depth - 1))
      return true;
  return false;
}

bool TUFunctions::calls(const Entry &E,
                        llvm::function_ref<bool(const FunctionDecl &)> Wanted,
                        unsigned Depth) {
  for (const FunctionDecl *Callee : E.Callees)
    if (reaches(*Callee, Wanted, Depth))
      return true;
  return false;
}

} // namespace tidy
} // namespace meshguard
