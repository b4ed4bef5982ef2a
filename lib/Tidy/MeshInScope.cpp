//===--- MeshInScope.cpp - Find a DeviceMesh expression for a fix-it ------===//

#include "MeshInScope.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
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

} // namespace

std::optional<std::string>
meshExpressionInScope(const FunctionDecl &FD, const Expr &Call,
                      llvm::ArrayRef<const VarDecl *> DTensorVars,
                      const analysis::ApiIndex &Index) {
  llvm::SmallVector<const VarDecl *, 16> Visible;
  for (const ParmVarDecl *P : FD.parameters())
    Visible.push_back(P);
  if (!collectVisible(FD.getBody(), &Call, Visible))
    return std::nullopt;

  // The nearest DeviceMesh variable (locals come after parameters).
  for (const VarDecl *VD : llvm::reverse(Visible))
    if (MeshAccess Access = meshAccess(VD->getType(), Index);
        Access != MeshAccess::None && VD->getIdentifier())
      return spell(*VD, Access);

  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
      MD && MD->isInstance() && MD->getParent())
    for (const FieldDecl *Field : MD->getParent()->fields())
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
