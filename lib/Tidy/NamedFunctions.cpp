//===--- NamedFunctions.cpp - What a function named by the model accepts --===//

#include "NamedFunctions.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

namespace meshguard {
namespace tidy {

llvm::SmallVector<const FunctionDecl *, 2>
functionsNamed(ASTContext &Ctx, llvm::StringRef QualifiedName) {
  llvm::SmallVector<const FunctionDecl *, 2> Found;
  for (const NamedDecl *D : analysis::lookupQualified(Ctx, QualifiedName)) {
    D = D->getUnderlyingDecl(); // Through using-declarations.
    if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
      D = FTD->getTemplatedDecl();
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      Found.push_back(FD);
  }
  return Found;
}

bool acceptsArgument(llvm::ArrayRef<const FunctionDecl *> Fns, unsigned I,
                     QualType Arg) {
  QualType A = Arg.getNonReferenceType().getUnqualifiedType();
  const auto *ArgClass = A->getAsCXXRecordDecl();
  for (const FunctionDecl *FD : Fns) {
    if (I >= FD->getNumParams())
      continue;
    QualType P = FD->getParamDecl(I)->getType();
    if (P->isDependentType())
      return true;
    if (P->isRValueReferenceType())
      continue; // An lvalue does not bind.
    if (P->isLValueReferenceType() &&
        !P.getNonReferenceType().isConstQualified() &&
        Arg.getNonReferenceType().isConstQualified())
      continue;
    QualType PT = P.getNonReferenceType().getUnqualifiedType();
    if (FD->getASTContext().hasSameType(PT, A))
      return true;
    const auto *ParamClass = PT->getAsCXXRecordDecl();
    if (ParamClass && ArgClass && ArgClass->hasDefinition() &&
        ArgClass->isDerivedFrom(ParamClass))
      return true;
  }
  return false;
}

} // namespace tidy
} // namespace meshguard
