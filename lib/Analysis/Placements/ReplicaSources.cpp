//===--- ReplicaSources.cpp - Data wrapped as replicas, and its source ----===//
//
// The from_local calls without run_check that wrap data as Replicate, with
// what decides whether that data is the same on every rank (the rank
// analysis answers): a structured binding's call arguments, the generator
// or the last manual_seed a random draw uses, or the tensor-parallel style
// that reads a plain module input as a replica.
//
//===----------------------------------------------------------------------===//

#include "Placements/ModuleFacts.h"
#include "Placements/PlacementSites.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

/// libtorch's random factories (at:: and torch::), which draw from the
/// default generator or the one they are given.
static bool isRandomFactory(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD))
    return false;
  std::string Name = FD->getQualifiedNameAsString();
  StringRef N(Name);
  if (!N.consume_front("at::") && !N.consume_front("torch::"))
    return false;
  return llvm::is_contained({"rand", "randn", "randint", "randperm", "normal",
                             "bernoulli", "rand_like", "randn_like",
                             "randint_like", "multinomial"},
                            N);
}

/// A call that seeds a generator: manual_seed(s) (at:: or torch::), or
/// Generator::set_current_seed(s).
static bool isSeedCall(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || Call.getNumArgs() < 1)
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return MD->getName() == "set_current_seed" && MD->getParent() &&
           MD->getParent()->getName() == "Generator";
  std::string Name = FD->getQualifiedNameAsString();
  return Name == "at::manual_seed" || Name == "torch::manual_seed";
}

static bool isGeneratorType(QualType T) {
  T = T.getNonReferenceType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (const auto *Spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD)) // optional<>
    if (Spec->getTemplateArgs().size() == 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      RD = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "Generator";
}

static void collectCalls(const Stmt *S,
                         llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Out.push_back(Call);
  for (const Stmt *Child : S->children())
    collectCalls(Child, Out);
}

/// The random factory call \p E's value is drawn by, through local
/// variables' initialisers and the ops applied to it, or null.
static const CallExpr *randomSource(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > 3)
    return nullptr;
  const Expr *Found = findSubExpr(E, [](const Expr *X) {
    const auto *C = dyn_cast<CallExpr>(X);
    return C && isRandomFactory(*C);
  });
  if (Found)
    return cast<CallExpr>(Found);
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCopies(E));
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V->isLocalVarDecl() ? randomSource(V->getInit(), Depth + 1)
                                  : nullptr;
}

/// The declaration that names the module \p E refers to: `up`, `*up`,
/// `model->up`, `*model->up`; null otherwise.
static const ValueDecl *moduleDecl(const Expr *E) {
  for (int Depth = 0; E && Depth < 4; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1) {
      E = Op->getArg(0);
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E);
        UO && UO->getOpcode() == UO_Deref) {
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return dyn_cast<FieldDecl>(ME->getMemberDecl());
    return nullptr;
  }
  return nullptr;
}

/// Whether \p A and \p B name the same module: the same field or
/// variable, or variables of the file's functions with one name and one
/// module type (`up` parallelised in a setup function taking
/// `torch::nn::Linear &up`, run in a step function taking the same).
static bool sameModule(const ValueDecl *A, const ValueDecl *B) {
  if (!A || !B)
    return false;
  if (A->getCanonicalDecl() == B->getCanonicalDecl())
    return true;
  if (!isa<VarDecl>(A) || !isa<VarDecl>(B) || !A->getIdentifier() ||
      !B->getIdentifier() || A->getName() != B->getName())
    return false;
  QualType TA = A->getType().getNonReferenceType().getUnqualifiedType();
  QualType TB = B->getType().getNonReferenceType().getUnqualifiedType();
  return TA.getCanonicalType() == TB.getCanonicalType();
}

enum class PlainInput { Replicate, Other, Unknown };

static StringRef recordName(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() ? RD->getName() : StringRef();
}

/// Whether \p Layout (an input_layouts value) spells Replicate.
static PlainInput layoutInput(const Expr *Layout) {
  Layout = stripCopies(Layout);
  if (!Layout || isa<ImplicitValueInitExpr>(Layout))
    return PlainInput::Unknown; // left to the style's default
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Layout);
      CE && CE->getNumArgs() == 0)
    return PlainInput::Unknown;
  bool Replicate = findSubExpr(Layout, [](const Expr *E) {
    return recordName(E->getType()) == "Replicate";
  });
  bool Other = findSubExpr(Layout, [](const Expr *E) {
    StringRef N = recordName(E->getType());
    return N == "Shard" || N == "Partial";
  });
  return Replicate && !Other ? PlainInput::Replicate : PlainInput::Other;
}

/// How the tensor-parallel style \p Style (parallelize_module's argument,
/// in \p FD) reads a plain input: ColwiseParallel as a replica unless its
/// input_layouts says otherwise; any style whose input_layouts is
/// Replicate; Unknown where the style is not written in \p FD.
static PlainInput styleInput(const Expr *Style, const FunctionDecl &FD,
                             unsigned Depth = 0) {
  if (!Style || Depth > 3)
    return PlainInput::Unknown;
  Style = Style->IgnoreParenImpCasts();
  if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(Style))
    Style = MTE->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(Style))
    Style = BTE->getSubExpr()->IgnoreParenImpCasts();
  StringRef Name = recordName(Style->getType());
  bool Known = Name == "ColwiseParallel" || Name == "RowwiseParallel" ||
               Name == "SequenceParallel" || Name == "PrepareModuleInput";
  PlainInput Default = Name == "ColwiseParallel" ? PlainInput::Replicate
                       : Known                   ? PlainInput::Other
                                                 : PlainInput::Unknown;
  // A variable of the style written in this function: its initialiser,
  // then what this function assigns to its input_layouts.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Style)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!Known || !V || !V->isLocalVarDecl() || isa<ParmVarDecl>(V))
      return PlainInput::Unknown;
    PlainInput In =
        V->getInit() ? styleInput(V->getInit(), FD, Depth + 1) : Default;
    if (In == PlainInput::Unknown)
      In = Default;
    llvm::SmallVector<const Stmt *, 64> Work = {FD.getBody()};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      const Expr *LHS = nullptr, *RHS = nullptr;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
          Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
        LHS = Op->getArg(0);
        RHS = Op->getArg(1);
      }
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(
              LHS ? LHS->IgnoreParenImpCasts() : nullptr);
          ME && namedVariable(ME->getBase()) == V) {
        PlainInput Set = layoutInput(RHS);
        In = Set == PlainInput::Unknown ? PlainInput::Other : Set;
      }
      for (const Stmt *Child : S->children())
        Work.push_back(Child);
    }
    return In;
  }
  if (const auto *ILE = dyn_cast<InitListExpr>(Style)) {
    const RecordDecl *RD = ILE->getType()->getAsRecordDecl();
    if (!Known || !RD)
      return PlainInput::Unknown;
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
      if (I >= ILE->getNumInits())
        break;
      const Expr *Init = ILE->getInit(I++);
      if (F->getIdentifier() && F->getName() == "input_layouts") {
        PlainInput Set = layoutInput(Init);
        return Set == PlainInput::Unknown ? Default : Set;
      }
    }
    return Default;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Style)) {
    if (CE->getNumArgs() == 0)
      return Default;
    // A copy, or a std::variant holding the style.
    if (CE->getNumArgs() == 1)
      return styleInput(CE->getArg(0), FD, Depth + 1);
  }
  return PlainInput::Unknown;
}

/// Whether \p E's value is a DTensor made here (through a local's
/// initialiser): a placement call (from_local, distribute_tensor, ...).
static bool madeByPlacementCall(const Expr *E, const ApiIndex &Index,
                                unsigned Depth = 0) {
  if (!E || Depth > 3)
    return false;
  if (findSubExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        return C && Index.placementCall(C->getDirectCallee());
      }))
    return true;
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCopies(E));
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V->isLocalVarDecl() &&
         madeByPlacementCall(V->getInit(), Index, Depth + 1);
}

/// parallel_forward(module, x) / parallel_input(module, x) calls of \p FD
/// whose module every parallelize_module of the file gives a style that
/// reads a plain input as a replica, x not a DTensor made here.
static void styleInputCandidates(const FunctionDecl &FD,
                                 llvm::ArrayRef<const CallExpr *> Calls,
                                 const ApiIndex &Index, ASTContext &Ctx,
                                 std::vector<ReplicaSourceCandidate> &Out) {
  auto IsForward = [](const CallExpr &Call) {
    const FunctionDecl *F = Call.getDirectCallee();
    if (!F || !F->getIdentifier() || Call.getNumArgs() != 2)
      return false;
    std::string Name = F->getQualifiedNameAsString();
    return Name == "meshguard::parallel_forward" ||
           Name == "meshguard::parallel_input";
  };
  if (llvm::none_of(Calls, [&](const CallExpr *C) { return IsForward(*C); }))
    return;
  // Every parallelize_module of the file, with the function it is in.
  llvm::SmallVector<const FunctionDecl *, 32> Functions;
  mainFileFunctions(Ctx, Functions);
  llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 8>
      Styles;
  for (const FunctionDecl *F : Functions) {
    llvm::SmallVector<const CallExpr *, 32> InF;
    collectCalls(F->getBody(), InF);
    for (const CallExpr *C : InF) {
      const PlacementCallEntry *E = Index.placementCall(C->getDirectCallee());
      if (E && E->Role == PlacementRole::ParallelizesModule &&
          E->PlacementsArg >= 0 && unsigned(E->PlacementsArg) < C->getNumArgs())
        Styles.push_back({C, F});
    }
  }
  for (const CallExpr *Call : Calls) {
    if (!IsForward(*Call) || madeByPlacementCall(Call->getArg(1), Index))
      continue;
    const ValueDecl *Module = moduleDecl(Call->getArg(0));
    const CallExpr *Style = nullptr;
    bool AllReplicate = true;
    for (const auto &[C, F] : Styles) {
      if (!sameModule(Module, moduleDecl(C->getArg(0))))
        continue;
      int Arg = Index.placementCall(C->getDirectCallee())->PlacementsArg;
      if (styleInput(C->getArg(Arg), *F) != PlainInput::Replicate)
        AllReplicate = false;
      else if (!Style)
        Style = C;
    }
    if (!Style || !AllReplicate)
      continue;
    ReplicaSourceCandidate C;
    C.What = ReplicaSourceCandidate::Kind::StyleInput;
    C.Call = Call;
    C.Local = Call->getArg(1);
    C.Probe = Call;
    C.ProbeArg = 1;
    C.Style = Style;
    Out.push_back(C);
  }
}

std::vector<ReplicaSourceCandidate>
replicaSourceCandidates(const FunctionDecl &FD, const ApiIndex &Index,
                        ASTContext &Ctx) {
  std::vector<ReplicaSourceCandidate> Out;
  llvm::SmallVector<const CallExpr *, 32> Calls;
  collectCalls(FD.getBody(), Calls);
  const SourceManager &SM = Ctx.getSourceManager();
  for (const CallExpr *Call : Calls) {
    ReplicaSourceCandidate C;
    if (!unverifiedReplicate(*Call, Index, Ctx, C.VerifyArg, C.VerifyIndex))
      continue;
    C.Call = Call;
    C.Local = Call->getArg(0);
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCopies(C.Local));
    // `auto [x_local, y_local] = make_shard(x, y, rank, world);`: each
    // argument of the call that is no tensor (the rank, a seed).
    if (const auto *Binding =
            Ref ? dyn_cast<BindingDecl>(Ref->getDecl()) : nullptr) {
      const auto *Whole =
          dyn_cast_or_null<VarDecl>(Binding->getDecomposedDecl());
      const auto *Made = dyn_cast_or_null<CallExpr>(
          Whole && Whole->getInit() ? stripCopies(Whole->getInit()) : nullptr);
      if (!Made)
        continue;
      llvm::ArrayRef<const Expr *> Args(Made->getArgs(), Made->getNumArgs());
      for (unsigned I = 0; I < Args.size(); ++I)
        if (!Index.isTensorType(Args[I]->getType()) &&
            Args[I]->getType()->isScalarType()) {
          C.What = ReplicaSourceCandidate::Kind::Binding;
          C.Probe = Made;
          C.ProbeArg = I;
          Out.push_back(C);
        }
      continue;
    }
    const CallExpr *Random = randomSource(C.Local);
    if (!Random)
      continue;
    // Given a generator: whether it differs per rank.
    bool Given = false;
    for (unsigned I = 0; I < Random->getNumArgs(); ++I)
      if (isGeneratorType(Random->getArg(I)->getType())) {
        C.What = ReplicaSourceCandidate::Kind::Generator;
        C.Probe = Random;
        C.ProbeArg = I;
        Out.push_back(C);
        Given = true;
      }
    if (Given)
      continue;
    // The default generator: the last manual_seed before the draw.
    const CallExpr *Seed = nullptr;
    for (const CallExpr *S : Calls)
      if (isSeedCall(*S) && !isa<CXXMemberCallExpr>(S) &&
          SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                       Random->getBeginLoc()) &&
          (!Seed ||
           SM.isBeforeInTranslationUnit(Seed->getBeginLoc(), S->getBeginLoc())))
        Seed = S;
    if (Seed) {
      C.What = ReplicaSourceCandidate::Kind::Seeded;
      C.Probe = Seed;
      C.ProbeArg = 0;
      Out.push_back(C);
    }
  }
  styleInputCandidates(FD, Calls, Index, Ctx, Out);
  if (Out.size() > 1)
    llvm::stable_sort(Out, [&](const ReplicaSourceCandidate &A,
                               const ReplicaSourceCandidate &B) {
      return SM.isBeforeInTranslationUnit(A.Call->getBeginLoc(),
                                          B.Call->getBeginLoc());
    });
  return Out;
}

} // namespace analysis
} // namespace meshguard
