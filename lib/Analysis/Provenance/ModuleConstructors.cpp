//===--- ModuleConstructors.cpp - Does a new module start plain? ----------===//

#include "Provenance/ModuleConstructors.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

class DTensorMakerFinder : public RecursiveASTVisitor<DTensorMakerFinder> {
public:
  explicit DTensorMakerFinder(const ApiIndex &Index) : Index(Index) {}

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    const SourceEntry *Source = Index.source(FD);
    if (Index.isDistributeModule(FD) ||
        (Source && Source->Kind == SourceKind::DTensor)) {
      Found = true;
      return false;
    }
    return true;
  }

  bool Found = false;

private:
  const ApiIndex &Index;
};

} // namespace

bool constructorMayMakeDTensors(const CXXRecordDecl &Module,
                                const ApiIndex &Index) {
  const CXXRecordDecl *Def = Module.getDefinition();
  if (!Def)
    return true;
  DTensorMakerFinder Finder(Index);
  for (const CXXConstructorDecl *Ctor : Def->ctors()) {
    if (Ctor->isImplicit() || Ctor->isDeleted() || Ctor->isDefaulted())
      continue;
    const FunctionDecl *Body = nullptr;
    if (!Ctor->hasBody(Body))
      return true; // Written elsewhere: it could do anything.
    const auto *CtorDef = cast<CXXConstructorDecl>(Body);
    for (const CXXCtorInitializer *Init : CtorDef->inits())
      Finder.TraverseStmt(Init->getInit());
    Finder.TraverseStmt(CtorDef->getBody());
  }
  for (const FieldDecl *Field : Def->fields())
    if (Field->hasInClassInitializer())
      Finder.TraverseStmt(Field->getInClassInitializer());
  return Finder.Found;
}

} // namespace analysis
} // namespace meshguard
