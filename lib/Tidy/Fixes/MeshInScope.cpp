//===--- MeshInScope.cpp - Find a DeviceMesh expression for a fix-it ------===//

#include "MeshInScope.h"
#include "../NamedFunctions.h"
#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace meshguard {
namespace tidy {

namespace {

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

/// The type of the mesh a value of type \p T gives (through \p Access).
QualType meshTypeOf(QualType T, MeshAccess Access) {
  T = T.getNonReferenceType();
  if (Access != MeshAccess::Deref)
    return T;
  if (T->isPointerType())
    return T->getPointeeType();
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          T->getAsCXXRecordDecl());
      Spec && Spec->getTemplateArgs().size() > 0 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return Spec->getTemplateArgs()[0].getAsType();
  return QualType();
}

/// Whether the mesh that \p T gives is one \p Accepts takes.
bool usable(QualType T, const analysis::ApiIndex &Index, MeshAcceptor Accepts) {
  MeshAccess Access = meshAccess(T, Index);
  if (Access == MeshAccess::None)
    return false;
  if (!Accepts)
    return true;
  QualType Mesh = meshTypeOf(T, Access);
  return !Mesh.isNull() && Accepts(Mesh);
}

std::string spell(const NamedDecl &D, MeshAccess Access) {
  std::string Name = D.getNameAsString();
  return Access == MeshAccess::Deref ? "*" + Name : Name;
}

/// Records every local of \p S with the statement that declares it, and the
/// DeviceMesh-typed ones in source order. (No parent map: building one for a
/// TU that includes <torch/torch.h> costs hundreds of MB.)
void collectLocals(const Stmt *S, const analysis::ApiIndex &Index,
                   MeshLocals &Locals) {
  for (const Stmt *Child : S->children()) {
    if (!Child)
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(Child))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          Locals.DeclarationOf[VD] = {DS, S};
          if (VD->getIdentifier())
            Locals.ByName[VD->getIdentifier()].push_back(VD);
          if (meshAccess(VD->getType(), Index) != MeshAccess::None)
            Locals.Vars.push_back(VD);
        }
    collectLocals(Child, Index, Locals);
  }
}

/// Whether the local \p VD is in scope at \p At: declared before it, in a
/// statement (block, for, if, ...) that contains it.
bool inScopeAt(const VarDecl &VD, const Stmt &At, const MeshLocals &Locals,
               const SourceManager &SM) {
  const Stmt *Scope = Locals.DeclarationOf.lookup(&VD).Scope;
  if (!Scope)
    return false;
  SourceLocation Use = SM.getExpansionLoc(At.getBeginLoc());
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(VD.getLocation()),
                                      Use) &&
         SM.isPointWithin(Use, SM.getExpansionLoc(Scope->getBeginLoc()),
                          SM.getExpansionLoc(Scope->getEndLoc()));
}

/// Whether another declaration hides \p D at \p At, so that its name there
/// means something else (`{ int mesh = 3; ... }` inside a function given a
/// `DeviceMesh &mesh`): a local of \p FD in scope there and declared after
/// \p D, or, for what \p FD did not declare (a field, a captured variable),
/// any such local or a parameter of \p FD.
bool hiddenAt(const NamedDecl &D, const FunctionDecl &FD, const Stmt &At,
              const MeshLocals &Locals, const SourceManager &SM) {
  const IdentifierInfo *Name = D.getIdentifier();
  if (!Name)
    return true;
  const auto *Var = dyn_cast<VarDecl>(&D);
  bool OwnLocal = Var && Locals.DeclarationOf.count(Var);
  bool OwnParam = Var && llvm::is_contained(FD.parameters(), Var);
  auto It = Locals.ByName.find(Name);
  if (It != Locals.ByName.end())
    for (const VarDecl *Other : It->second)
      if (Other != &D && inScopeAt(*Other, At, Locals, SM) &&
          (!OwnLocal || SM.isBeforeInTranslationUnit(
                            SM.getExpansionLoc(D.getLocation()),
                            SM.getExpansionLoc(Other->getLocation()))))
        return true;
  if (!OwnLocal && !OwnParam)
    for (const ParmVarDecl *P : FD.parameters())
      if (P != &D && P->getIdentifier() == Name)
        return true;
  return false;
}

/// The locals of \p FD, from \p Cache when it holds them.
MeshLocals &localsOf(const FunctionDecl &FD, const analysis::ApiIndex &Index,
                     MeshLocals *Cache, MeshLocals &Fresh) {
  MeshLocals &Locals = Cache ? *Cache : Fresh;
  if (Locals.FD != &FD) {
    std::unique_ptr<MeshLocals> Enclosing = std::move(Locals.Enclosing);
    Locals = MeshLocals();
    Locals.Enclosing = std::move(Enclosing);
    Locals.FD = &FD;
    if (FD.getBody())
      collectLocals(FD.getBody(), Index, Locals);
  }
  return Locals;
}

/// The variable to use at \p At in \p FD, if any: the nearest local
/// DeviceMesh in scope, else a DeviceMesh parameter, else (in a lambda body)
/// one of the enclosing function's that the lambda captures: every one under
/// a default capture (`[&]`, `[=]`: naming it captures it), else those of
/// the capture list (init-captures included). \p ThisClass is set to the
/// class whose fields `this` gives access to, if any.
const VarDecl *meshVariableAt(const FunctionDecl &FD, const Stmt &At,
                              const analysis::ApiIndex &Index,
                              MeshLocals &Locals,
                              const CXXRecordDecl *&ThisClass,
                              MeshAcceptor Accepts) {
  const SourceManager &SM = FD.getASTContext().getSourceManager();
  ThisClass = nullptr;
  for (const VarDecl *VD : llvm::reverse(Locals.Vars))
    if (VD->getIdentifier() && inScopeAt(*VD, At, Locals, SM) &&
        usable(VD->getType(), Index, Accepts))
      return VD;
  for (const ParmVarDecl *P : llvm::reverse(FD.parameters()))
    if (P->getIdentifier() && usable(P->getType(), Index, Accepts))
      return P;

  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  if (!MD || !MD->getParent() || !MD->getParent()->isLambda()) {
    if (MD && MD->isInstance())
      ThisClass = MD->getParent();
    return nullptr;
  }
  const CXXRecordDecl *Closure = MD->getParent();
  bool CapturesThis = false;
  const VarDecl *Captured = nullptr;
  for (const LambdaCapture &Capture : Closure->captures()) {
    if (Capture.capturesThis())
      CapturesThis = true;
    else if (Capture.capturesVariable())
      if (const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
          VD && VD->getIdentifier() && usable(VD->getType(), Index, Accepts))
        Captured = VD; // The last one listed, as the nearest.
  }
  const LambdaExpr *Lambda = analysis::findLambdaExpr(*Closure);
  const CXXRecordDecl *OuterThis = nullptr;
  const VarDecl *Outer = nullptr;
  if (Lambda) {
    const auto &Enclosing = *cast<FunctionDecl>(Closure->getDeclContext());
    if (!Locals.Enclosing)
      Locals.Enclosing = std::make_unique<MeshLocals>();
    MeshLocals Unused;
    Outer = meshVariableAt(
        Enclosing, *Lambda, Index,
        localsOf(Enclosing, Index, Locals.Enclosing.get(), Unused), OuterThis,
        Accepts);
  }
  if (Closure->getLambdaCaptureDefault() != LCD_None) {
    CapturesThis = true; // Naming a field captures `this` too.
    if (!Captured)
      Captured = Outer;
  }
  if (CapturesThis && Lambda)
    ThisClass = OuterThis;
  return Captured;
}

} // namespace

std::optional<std::string>
meshExpressionInScope(const FunctionDecl &FD, const Stmt &At,
                      llvm::ArrayRef<const VarDecl *> DTensorVars,
                      const analysis::ApiIndex &Index, MeshLocals *Cache,
                      MeshAcceptor Accepts) {
  MeshLocals Fresh;
  MeshLocals &Locals = localsOf(FD, Index, Cache, Fresh);
  const SourceManager &SM = FD.getASTContext().getSourceManager();
  const CXXRecordDecl *ThisClass = nullptr;
  // A hidden name would make the fix-it name something else: no fix-it then
  // (the note says what to pass).
  if (const VarDecl *VD =
          meshVariableAt(FD, At, Index, Locals, ThisClass, Accepts))
    return hiddenAt(*VD, FD, At, Locals, SM)
               ? std::nullopt
               : std::optional<std::string>(
                     spell(*VD, meshAccess(VD->getType(), Index)));

  if (ThisClass)
    for (const FieldDecl *Field : ThisClass->fields())
      if (MeshAccess Access = meshAccess(Field->getType(), Index);
          usable(Field->getType(), Index, Accepts) && Field->getIdentifier()) {
        std::string Spelled = spell(*Field, Access);
        if (!hiddenAt(*Field, FD, At, Locals, SM))
          return Spelled;
        // `this->mesh` still names the field.
        return Access == MeshAccess::Deref
                   ? "*this->" + Field->getNameAsString()
                   : "this->" + Field->getNameAsString();
      }

  const std::string &MeshOf = Index.model().MeshOfFunction;
  if (MeshOf.empty())
    return std::nullopt;
  if (Accepts) {
    // `*mesh_of(x)`: only if mesh_of is declared and gives an accepted mesh.
    llvm::SmallVector<const FunctionDecl *, 2> Fns =
        functionsNamed(FD.getASTContext(), MeshOf);
    if (llvm::none_of(Fns, [&](const FunctionDecl *F) {
          QualType R = F->getReturnType();
          QualType Mesh = R->isPointerType() ? R->getPointeeType()
                                             : meshTypeOf(R, MeshAccess::Deref);
          return !Mesh.isNull() && Accepts(Mesh);
        }))
      return std::nullopt;
  }
  // DTensorVars come nearest first; parameters are always in scope.
  for (const VarDecl *VD : DTensorVars)
    if (VD->getIdentifier() &&
        (isa<ParmVarDecl>(VD) || inScopeAt(*VD, At, Locals, SM)))
      return hiddenAt(*VD, FD, At, Locals, SM)
                 ? std::nullopt
                 : std::optional<std::string>("*" + MeshOf + "(" +
                                              VD->getNameAsString() + ")");
  return std::nullopt;
}

const DeclStmt *declaringStmt(const FunctionDecl &FD, const VarDecl &VD,
                              const analysis::ApiIndex &Index,
                              MeshLocals *Cache) {
  MeshLocals Fresh;
  return localsOf(FD, Index, Cache, Fresh).DeclarationOf.lookup(&VD).Stmt;
}

} // namespace tidy
} // namespace meshguard
