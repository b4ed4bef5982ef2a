//===--- ModuleFacts.cpp - Parameters that module calls made DTensors -----===//
//
// The placements follow the runtime (include/meshguard/runtime/
// FullyShard.h, Parallelize.h): fully_shard puts every parameter on Shard(0)
// of a 1-D mesh (with a mesh dim: Shard of some tensor dim on that dim of a
// 1-D or 2-D mesh); ColwiseParallel shards a Linear's weight and bias on
// dim 0 and an Embedding's weight on dim 1, RowwiseParallel a Linear's
// weight on dim 1 (its bias stays Replicate) and an Embedding's on dim 0.
//
//===----------------------------------------------------------------------===//

#include "Placements/ModuleFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include <algorithm>

using namespace clang;

namespace meshguard {
namespace analysis {

bool ModulePath::within(const ModulePath &O) const {
  return Root == O.Root && Fields.size() >= O.Fields.size() &&
         std::equal(O.Fields.begin(), O.Fields.end(), Fields.begin());
}

std::optional<ModulePath> modulePath(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (!E)
    return std::nullopt;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref)
    return modulePath(U->getSubExpr());
  // A module holder's `*fc` and `fc->`.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 1 &&
      (Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow))
    return modulePath(Op->getArg(0));
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return std::nullopt;
    ModulePath P;
    P.Root = V->getCanonicalDecl();
    return P;
  }
  if (isa<CXXThisExpr>(E))
    return ModulePath();
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    std::optional<ModulePath> P = modulePath(M->getBase());
    if (P && isa<FieldDecl>(M->getMemberDecl()))
      P->Fields.push_back(M->getMemberDecl());
    else
      P.reset();
    return P;
  }
  return std::nullopt;
}

/// The name of the class \p E's value is (through references and
/// pointers), or empty.
static StringRef className(const Expr *E) {
  QualType T = E->getType().getNonReferenceType();
  if (const PointerType *P = T->getAs<PointerType>())
    T = P->getPointeeType();
  const CXXRecordDecl *R = T->getAsCXXRecordDecl();
  return R && R->getIdentifier() ? R->getName() : StringRef();
}

/// "ColwiseParallel" or "RowwiseParallel" when \p Style is written as one.
static StringRef styleName(const Expr *Style) {
  const Expr *Written = findSubExpr(Style, [](const Expr *E) {
    StringRef Name = className(E);
    return Name == "ColwiseParallel" || Name == "RowwiseParallel";
  });
  return Written ? className(Written) : StringRef();
}

/// Whether \p RD is a torch::nn module or module holder (or derives from
/// one).
static bool isModuleClass(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return false;
  auto IsTorchModule = [](const CXXRecordDecl *C) {
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(C))
      C = Spec->getSpecializedTemplate()->getTemplatedDecl();
    std::string Name = C->getQualifiedNameAsString();
    return Name == "torch::nn::Module" || Name == "torch::nn::ModuleHolder";
  };
  if (IsTorchModule(RD))
    return true;
  return !RD->forallBases(
      [&](const CXXRecordDecl *Base) { return !IsTorchModule(Base); });
}

const Expr *moduleOfForward(const CallExpr &Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() && MD->getName() == "forward" &&
        isModuleClass(MD->getParent()))
      return MC->getImplicitObjectArgument();
    return nullptr;
  }
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!OC || OC->getOperator() != OO_Call || OC->getNumArgs() < 2)
    return nullptr;
  const Expr *Object = OC->getArg(0);
  QualType T = Object->getType().getNonReferenceType();
  return isModuleClass(T->getAsCXXRecordDecl()) ? Object : nullptr;
}

const Expr *moduleInput(const CallExpr &Call, const ApiIndex &Index) {
  if (!moduleOfForward(Call))
    return nullptr;
  unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  for (unsigned I = First; I < Call.getNumArgs(); ++I)
    if (Index.isTensorType(Call.getArg(I)->getType()))
      return Call.getArg(I);
  return nullptr;
}

ModulePlacements::ModulePlacements(const FunctionDecl &FD,
                                   const ApiIndex &Index, ASTContext &Ctx,
                                   const ModuleSetups *Setups)
    : Index(Index), Ctx(Ctx) {
  collect(FD.getBody());
  if (!Setups)
    return;
  // A module parameter this function does not distribute itself: what the
  // file's setup function does to its namesake, from the entry on (first,
  // so that a call here overrides it).
  std::vector<Made> Entry;
  for (const ParmVarDecl *P : FD.parameters()) {
    const VarDecl *Root = P->getCanonicalDecl();
    if (llvm::any_of(Calls,
                     [&](const Made &M) { return M.Module.Root == Root; }))
      continue;
    for (Made M : Setups->like(*P)) {
      M.Module.Root = Root;
      M.Elsewhere = true;
      Entry.push_back(std::move(M));
    }
  }
  Calls.insert(Calls.begin(), Entry.begin(), Entry.end());
}

ModuleSetups::ModuleSetups(const ApiIndex &Index, ASTContext &Ctx)
    : Index(Index), Ctx(Ctx) {
  walk(*Ctx.getTranslationUnitDecl());
}

void ModuleSetups::walk(const DeclContext &DC) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Decl *D : DC.decls()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(D)) {
      walk(*NS);
      continue;
    }
    if (const auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
      walk(*LS);
      continue;
    }
    if (!SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
      continue;
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D);
        RD && RD->isThisDeclarationADefinition() && !RD->isDependentContext())
      walk(*RD);
    else if (const auto *FD = dyn_cast<FunctionDecl>(D);
             FD && FD->doesThisDeclarationHaveABody() &&
             !FD->isDependentContext())
      addFunction(*FD);
  }
}

/// The module class a parameter of type \p T is (through a reference or
/// a pointer), or null.
static const CXXRecordDecl *moduleParamClass(QualType T) {
  T = T.getNonReferenceType();
  if (const PointerType *P = T->getAs<PointerType>())
    T = P->getPointeeType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return isModuleClass(RD) ? RD : nullptr;
}

void ModuleSetups::addFunction(const FunctionDecl &FD) {
  bool AnyModule = llvm::any_of(FD.parameters(), [](const ParmVarDecl *P) {
    return P->getIdentifier() && moduleParamClass(P->getType());
  });
  if (!AnyModule)
    return;
  ModulePlacements Own(FD, Index, Ctx);
  for (const ParmVarDecl *P : FD.parameters()) {
    if (!P->getIdentifier() || !moduleParamClass(P->getType()))
      continue;
    Setup S{P, {}};
    for (const ModulePlacements::Made &M : Own.Calls)
      if (M.Module.Root == P->getCanonicalDecl())
        S.Calls.push_back(M);
    // Gathered parameters (or a call after a gather) hold no placements
    // for the function's callers: left out.
    if (!S.Calls.empty() &&
        llvm::none_of(S.Calls, [](const auto &M) { return M.Gathered; }))
      Setups.push_back(std::move(S));
  }
}

llvm::ArrayRef<ModulePlacements::Made>
ModuleSetups::like(const ParmVarDecl &P) const {
  if (!P.getIdentifier() || !moduleParamClass(P.getType()))
    return {};
  auto Type = [](const ParmVarDecl &V) {
    QualType T = V.getType().getNonReferenceType();
    if (const PointerType *Ptr = T->getAs<PointerType>())
      T = Ptr->getPointeeType();
    return T.getUnqualifiedType().getCanonicalType();
  };
  const Setup *Found = nullptr;
  for (const Setup &S : Setups) {
    if (S.Param->getName() != P.getName() || Type(*S.Param) != Type(P) ||
        S.Param->getDeclContext() == P.getDeclContext())
      continue;
    if (Found && Found->Param->getDeclContext() != S.Param->getDeclContext())
      return {}; // two setup functions: which one ran is not known
    Found = &S;
  }
  return Found ? llvm::ArrayRef<ModulePlacements::Made>(Found->Calls)
               : llvm::ArrayRef<ModulePlacements::Made>();
}

void ModulePlacements::collect(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const PlacementCallEntry *E =
            Index.placementCall(Call->getDirectCallee());
        E && (E->Role == PlacementRole::ShardsModule ||
              E->Role == PlacementRole::ParallelizesModule))
      add(*Call, *E);
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee();
        FD && FD->getIdentifier() && FD->getName() == "distribute_module" &&
        FD->getQualifiedNameAsString() == "meshguard::distribute_module")
      addDistributed(*Call);
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        addGathered(*V);
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
    addLoop(*For);
  for (const Stmt *Child : S->children())
    collect(Child);
}

// GatheredParameters(module) replaces the parameters by their gathered
// values while it lives (fully_sharded_forward uses one): from there on,
// what a read of them gives is not followed.
void ModulePlacements::addGathered(const VarDecl &V) {
  const auto *Init = dyn_cast_or_null<CXXConstructExpr>(
      V.getInit() ? V.getInit()->IgnoreImplicit() : nullptr);
  if (!Init || Init->getNumArgs() != 1 ||
      className(Init) != "GatheredParameters")
    return;
  if (std::optional<ModulePath> Module = modulePath(Init->getArg(0)))
    Calls.push_back({*Module, Init, true, true, {}, {}});
}

// distribute_module(module, mesh): every parameter Replicate on the mesh
// (with a partition function: unknown placements, the same mesh).
void ModulePlacements::addDistributed(const CallExpr &Call) {
  if (Call.getNumArgs() < 2)
    return;
  std::optional<ModulePath> Module = modulePath(Call.getArg(0));
  if (!Module)
    return;
  PlacementState Placed;
  Placed.MeshMadeBy = meshMadeBy(Call.getArg(1), Index);
  Placed.MeshDims = literalMeshDims(Placed.MeshMadeBy, Index, Ctx);
  Placed.MeshAt = &Call;
  unsigned Written = 0;
  for (const Expr *Arg : Call.arguments())
    Written += !isa<CXXDefaultArgExpr>(Arg);
  if (Written > 2) {
    Placed.ShardDims = PlacementState::UnknownDim;
    Placed.PlacedAt = &Call;
  }
  Calls.push_back({*Module, &Call, true, false, Placed, Placed});
}

// `for (auto &p : model->parameters())`: p is each parameter.
void ModulePlacements::addLoop(const CXXForRangeStmt &For) {
  const VarDecl *Var = For.getLoopVariable();
  const auto *Range = dyn_cast_or_null<CXXMemberCallExpr>(
      For.getRangeInit() ? For.getRangeInit()->IgnoreImplicit() : nullptr);
  const CXXMethodDecl *MD = Range ? Range->getMethodDecl() : nullptr;
  if (!Var || !MD || !MD->getIdentifier() || MD->getName() != "parameters" ||
      !isModuleClass(MD->getParent()))
    return;
  if (std::optional<ModulePath> Module =
          modulePath(Range->getImplicitObjectArgument()))
    Loops.push_back({Var, *Module, &For});
}

std::optional<PlacementState>
ModulePlacements::loopParameter(const VarDecl &V) const {
  for (const Loop &L : Loops)
    if (L.Var == &V)
      return covering(L.Module, L.For->getBeginLoc(), /*Loop=*/true);
  return std::nullopt;
}

std::optional<PlacementState>
ModulePlacements::meshOf(const Expr &Module) const {
  std::optional<ModulePath> Path = modulePath(&Module);
  if (!Path)
    return std::nullopt;
  std::optional<PlacementState> S =
      covering(*Path, Module.getBeginLoc(), /*Loop=*/false);
  if (S && !S->MeshMadeBy && !S->MeshDims)
    return std::nullopt;
  return S;
}

/// The placements of the parameters of \p Module that the last covering
/// call before \p At gave them: the weight's, for a tensor-parallel style
/// (its mesh is the same); for a \p Loop over its parameters() (a Linear's
/// weight and bias, an Embedding's weight), the weight's joined with the
/// bias's.
std::optional<PlacementState>
ModulePlacements::covering(const ModulePath &Module, SourceLocation At,
                           bool Loop) const {
  const SourceManager &SM = Ctx.getSourceManager();
  std::optional<PlacementState> Found;
  for (const Made &M : Calls) {
    if (!M.Elsewhere && !SM.isBeforeInTranslationUnit(M.Call->getEndLoc(), At))
      continue;
    if (!(M.Recursive ? Module.within(M.Module)
                      : Module.Root == M.Module.Root &&
                            Module.Fields == M.Module.Fields))
      continue;
    if (M.Gathered) {
      Found.reset();
      continue;
    }
    Found = M.Weight; // one module's weight and bias: the same mesh
    if (Loop && !M.Recursive)
      Found->join(M.Bias);
  }
  return Found;
}

void ModulePlacements::add(const CallExpr &Call,
                           const PlacementCallEntry &Entry) {
  if (Call.getNumArgs() < 2 || Entry.MeshArg < 0 ||
      unsigned(Entry.MeshArg) >= Call.getNumArgs())
    return;
  std::optional<ModulePath> Module = modulePath(Call.getArg(0));
  if (!Module)
    return;
  PlacementState Placed;
  Placed.MeshMadeBy = meshMadeBy(Call.getArg(Entry.MeshArg), Index);
  Placed.MeshAt = &Call;
  Placed.PlacedAt = &Call;
  auto Shard = [&](int Dim) {
    PlacementState S = Placed;
    S.ShardDims = Dim < 0 ? PlacementState::UnknownDim : 1u << Dim;
    return S;
  };
  if (Entry.Role == PlacementRole::ShardsModule) {
    // fully_shard(m, mesh) needs a 1-D mesh; with a mesh dim, a 1-D or 2-D
    // one, on which the dim sharded depends on the tensor-parallel style.
    bool OnDim = Call.getNumArgs() > 2;
    Placed.MeshDims =
        OnDim ? literalMeshDims(Placed.MeshMadeBy, Index, Ctx) : 1;
    PlacementState S = Shard(OnDim ? -1 : 0);
    Calls.push_back({*Module, &Call, true, false, S, S});
    return;
  }
  if (Entry.PlacementsArg < 0 ||
      unsigned(Entry.PlacementsArg) >= Call.getNumArgs())
    return;
  StringRef Style = styleName(Call.getArg(Entry.PlacementsArg));
  StringRef Kind = className(Call.getArg(0)->IgnoreParenImpCasts());
  bool Colwise = Style == "ColwiseParallel";
  if (Style.empty() || (Kind != "LinearImpl" && Kind != "EmbeddingImpl"))
    return; // A plan, or a module the styles do not shard: unknown.
  Placed.MeshDims = 1;
  PlacementState Replicated = Placed;
  Replicated.PlacedAt = NotePlace();
  if (Kind == "LinearImpl")
    Calls.push_back({*Module, &Call, false, false, Shard(Colwise ? 0 : 1),
                     Colwise ? Shard(0) : Replicated});
  else
    Calls.push_back(
        {*Module, &Call, false, false, Shard(Colwise ? 1 : 0), Replicated});
}

std::optional<PlacementState>
ModulePlacements::parameter(const MemberExpr &Read) const {
  if (Calls.empty() || !isa<FieldDecl>(Read.getMemberDecl()) ||
      !Index.isTensorType(Read.getType()))
    return std::nullopt;
  std::optional<ModulePath> Owner = modulePath(Read.getBase());
  if (!Owner)
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Field = Read.getMemberDecl()->getName();
  // The last call before the read that covers it.
  std::optional<PlacementState> Found;
  for (const Made &M : Calls) {
    if (!M.Elsewhere &&
        !SM.isBeforeInTranslationUnit(M.Call->getEndLoc(), Read.getBeginLoc()))
      continue;
    if (M.Recursive ? Owner->within(M.Module)
                    : Owner->Root == M.Module.Root &&
                          Owner->Fields == M.Module.Fields) {
      if (M.Gathered)
        Found.reset();
      else if (M.Recursive || Field == "weight")
        Found = M.Weight;
      else if (Field == "bias")
        Found = M.Bias;
    }
  }
  return Found;
}

} // namespace analysis
} // namespace meshguard
