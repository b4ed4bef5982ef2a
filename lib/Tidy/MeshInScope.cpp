//===--- MeshInScope.cpp - Find a DeviceMesh expression for a fix-it ------===//

#include "MeshInScope.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace meshguard {
namespace tidy {

namespace {

/// Walks \p S in source order keeping the variables declared so far in the
/// enclosing scopes; stops at \p Target with \p Scope holding what it sees.
bool collectVisible(const Stmt *S, const Stmt *Target,
                    llvm::SmallVectorImpl<const VarDecl *> &Scope) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  size_t Mark = Scope.size();
  for (const Stmt *Child : S->children()) {
    if (collectVisible(Child, Target, Scope))
      return true;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Child))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          Scope.push_back(VD);
  }
  Scope.resize(Mark);
  return false;
}

enum class MeshAccess { None, Direct, Deref };

/// How a value of type \p T gives a DeviceMesh: it is one, or it points to
/// one (raw pointer, shared_ptr, unique_ptr).
MeshAccess meshAccess(QualType T, const analysis::ApiIndex &Index) {
  T = T.getNonReferenceType();
  if (Index.isMeshType(T))
    return MeshAccess::Direct;
  if (T->isPointerType() && Index.isMeshType(T->getPointeeType()))
    return MeshAccess::Deref;
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          T->getAsCXXRecordDecl())) {
    std::string Name = Spec->getQualifiedNameAsString();
    if ((Name == "std::shared_ptr" || Name == "std::unique_ptr") &&
        Spec->getTemplateArgs().size() > 0 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
        Index.isMeshType(Spec->getTemplateArgs()[0].getAsType()))
      return MeshAccess::Deref;
  }
  return MeshAccess::None;
}

std::string spell(const NamedDecl &D, MeshAccess Access) {
  std::string Name = D.getNameAsString();
  return Access == MeshAccess::Deref ? "*" + Name : Name;
}

/// The lambda expression in \p S whose closure class is \p Closure.
const LambdaExpr *findLambda(const Stmt *S, const CXXRecordDecl *Closure) {
  if (!S)
    return nullptr;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S);
      Lambda && Lambda->getLambdaClass() == Closure)
    return Lambda;
  for (const Stmt *Child : S->children())
    if (const LambdaExpr *Found = findLambda(Child, Closure))
      return Found;
  return nullptr;
}

/// The variables usable at \p Target in \p FD, outermost first: parameters,
/// then locals of enclosing scopes. In a lambda's body the variables of the
/// enclosing function come first, but only those the lambda captures: every
/// one under a default capture (`[&]`, `[=]`: naming it captures it), else
/// those of the capture list (init-captures included). \p ThisClass is set to
/// the class whose fields `this` gives access to, if any.
bool visibleAt(const FunctionDecl &FD, const Stmt *Target,
               llvm::SmallVectorImpl<const VarDecl *> &Visible,
               const CXXRecordDecl *&ThisClass) {
  ThisClass = nullptr;
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  if (MD && MD->getParent() && MD->getParent()->isLambda()) {
    const CXXRecordDecl *Closure = MD->getParent();
    bool CapturesThis = false;
    for (const LambdaCapture &Capture : Closure->captures()) {
      if (Capture.capturesThis())
        CapturesThis = true;
      else if (Capture.capturesVariable())
        if (const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
            VD && !VD->isInitCapture())
          Visible.push_back(VD);
    }
    const auto *Enclosing = dyn_cast<FunctionDecl>(Closure->getDeclContext());
    const LambdaExpr *Lambda =
        Enclosing ? findLambda(Enclosing->getBody(), Closure) : nullptr;
    llvm::SmallVector<const VarDecl *, 16> Outer;
    const CXXRecordDecl *OuterThis = nullptr;
    bool OuterKnown = Lambda && visibleAt(*Enclosing, Lambda, Outer, OuterThis);
    if (OuterKnown && Closure->getLambdaCaptureDefault() != LCD_None) {
      for (const VarDecl *VD : Outer)
        if (!llvm::is_contained(Visible, VD))
          Visible.push_back(VD);
      // Naming a field captures `this` under a default capture.
      CapturesThis = true;
    }
    if (CapturesThis && OuterKnown)
      ThisClass = OuterThis;
    // Init-captures (`[m = mesh]`) are variables of the lambda's own scope.
    for (const LambdaCapture &Capture : Closure->captures())
      if (Capture.capturesVariable())
        if (const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
            VD && VD->isInitCapture())
          Visible.push_back(VD);
  } else if (MD && MD->isInstance()) {
    ThisClass = MD->getParent();
  }
  for (const ParmVarDecl *P : FD.parameters())
    Visible.push_back(P);
  return collectVisible(FD.getBody(), Target, Visible);
}

} // namespace

std::optional<std::string>
meshExpressionInScope(const FunctionDecl &FD, const Expr &Call,
                      llvm::ArrayRef<const VarDecl *> DTensorVars,
                      const analysis::ApiIndex &Index) {
  llvm::SmallVector<const VarDecl *, 16> Visible;
  const CXXRecordDecl *ThisClass = nullptr;
  if (!visibleAt(FD, &Call, Visible, ThisClass))
    return std::nullopt;

  // The nearest DeviceMesh variable (locals come after parameters).
  for (const VarDecl *VD : llvm::reverse(Visible))
    if (MeshAccess Access = meshAccess(VD->getType(), Index);
        Access != MeshAccess::None && VD->getIdentifier())
      return spell(*VD, Access);

  if (ThisClass)
    for (const FieldDecl *Field : ThisClass->fields())
      if (MeshAccess Access = meshAccess(Field->getType(), Index);
          Access != MeshAccess::None && Field->getIdentifier())
        return spell(*Field, Access);

  const std::string &MeshOf = Index.model().MeshOfFunction;
  if (MeshOf.empty())
    return std::nullopt;
  for (const VarDecl *VD : llvm::reverse(Visible))
    if (llvm::is_contained(DTensorVars, VD) && VD->getIdentifier())
      return "*" + MeshOf + "(" + VD->getNameAsString() + ")";
  return std::nullopt;
}

} // namespace tidy
} // namespace meshguard
