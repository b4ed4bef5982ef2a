//===--- DeclaredNames.cpp - Does a TU declare any of these names ---------===//

#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace meshguard {
namespace analysis {

/// The scope a lookup result opens for the next name component: a namespace
/// or a class with a definition (a class template's pattern).
static const DeclContext *scopeOf(const NamedDecl *D) {
  D = D->getUnderlyingDecl();
  if (const auto *NS = dyn_cast<NamespaceDecl>(D))
    return NS;
  if (const auto *Template = dyn_cast<ClassTemplateDecl>(D))
    D = Template->getTemplatedDecl();
  if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
    return RD->getDefinition();
  return nullptr;
}

llvm::SmallVector<const NamedDecl *, 2>
lookupQualified(const ASTContext &Ctx, llvm::StringRef QualifiedName) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  QualifiedName.split(Parts, "::");
  llvm::SmallVector<const DeclContext *, 2> Scopes = {
      Ctx.getTranslationUnitDecl()};
  llvm::SmallVector<const NamedDecl *, 2> Found;
  for (size_t I = 0; I < Parts.size(); ++I) {
    // get(), not find(): in clangd the name may live in the preamble only,
    // which get() consults.
    DeclarationName Name(&Ctx.Idents.get(Parts[I]));
    bool Last = I + 1 == Parts.size();
    llvm::SmallVector<const DeclContext *, 2> Next;
    for (const DeclContext *DC : Scopes)
      for (const NamedDecl *D : DC->lookup(Name)) {
        if (Last)
          Found.push_back(D);
        else if (const DeclContext *Scope = scopeOf(D))
          Next.push_back(Scope);
      }
    if (Next.empty())
      break;
    Scopes = std::move(Next);
  }
  return Found;
}

bool declaresName(const ASTContext &Ctx, llvm::StringRef QualifiedName) {
  return !lookupQualified(Ctx, QualifiedName).empty();
}

bool declaresAnyOf(const ASTContext &Ctx,
                   llvm::ArrayRef<llvm::StringRef> QualifiedNames) {
  return llvm::any_of(QualifiedNames, [&](llvm::StringRef Name) {
    return declaresName(Ctx, Name);
  });
}

void mainFileFunctions(const ASTContext &Ctx,
                       llvm::SmallVectorImpl<const FunctionDecl *> &Out,
                       bool WithSpecializations) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<const DeclContext *, 16> Work = {
      Ctx.getTranslationUnitDecl()};
  while (!Work.empty()) {
    const DeclContext *DC = Work.pop_back_val();
    for (const Decl *D : DC->decls()) {
      if (!SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
        continue;
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D)) {
        if (WithSpecializations)
          for (const FunctionDecl *Spec : FT->specializations())
            Out.push_back(Spec);
        D = FT->getTemplatedDecl();
      }
      if (const auto *F = dyn_cast<FunctionDecl>(D)) {
        if (F->doesThisDeclarationHaveABody())
          Out.push_back(F);
      } else if (isa<NamespaceDecl, LinkageSpecDecl, CXXRecordDecl>(D)) {
        Work.push_back(cast<DeclContext>(D));
      }
    }
  }
}

} // namespace analysis
} // namespace meshguard
