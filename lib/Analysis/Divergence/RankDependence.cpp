//===--- RankDependence.cpp - Values that differ per rank -----------------===//

#include "Divergence/RankDependence.h"
#include "Divergence/MeshGroups.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

RankDependenceTU::RankDependenceTU(ASTContext &Ctx, const ApiIndex &Index)
    : Ctx(Ctx), Index(Index) {
  summarise();
}

bool RankDependenceTU::isLocalOf(const VarDecl *V,
                                 const FunctionDecl *Fn) const {
  return Fn && V->isLocalVarDeclOrParm() && !V->isStaticLocal() &&
         V->getParentFunctionOrMethod() == Fn;
}

const Expr *RankDependenceTU::sourceCall(const CallExpr &Call) const {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return nullptr;
  if (Index.isRankSource(Callee))
    return &Call;
  const IdentifierInfo *Id = Callee->getIdentifier();
  if (Id && (Id->getName() == "getenv" || Id->getName() == "secure_getenv") &&
      Call.getNumArgs() == 1)
    if (const auto *Lit =
            dyn_cast<StringLiteral>(Call.getArg(0)->IgnoreParenImpCasts()))
      if (Index.isRankEnvironment(Lit->getString()))
        return &Call;
  return nullptr;
}

/// The class a value of type \p T stands for, through references, pointers
/// and smart pointers (`c10::intrusive_ptr<c10d::ProcessGroupGloo>`).
static const CXXRecordDecl *heldClass(QualType T) {
  for (int Depth = 0; Depth < 4 && !T.isNull(); ++Depth) {
    T = T.getNonReferenceType();
    if (T->isPointerType()) {
      T = T->getPointeeType();
      continue;
    }
    const auto *RD = T->getAsCXXRecordDecl();
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
    if (Spec && Spec->getIdentifier() &&
        llvm::is_contained({"intrusive_ptr", "weak_intrusive_ptr", "shared_ptr",
                            "unique_ptr", "weak_ptr"},
                           Spec->getName()) &&
        Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
      T = Spec->getTemplateArgs()[0].getAsType();
      continue;
    }
    return RD;
  }
  return nullptr;
}

/// Whether \p RD is, or derives from, a class named in \p Names.
static bool isOrDerives(const CXXRecordDecl *RD,
                        llvm::ArrayRef<llvm::StringRef> Names,
                        unsigned Depth = 0) {
  if (!RD || Depth > 8)
    return false;
  // The simple name first: qualified names are built only for a candidate.
  if (const IdentifierInfo *Id = RD->getIdentifier())
    for (llvm::StringRef N : Names)
      if (N.ends_with("::" + Id->getName().str()) &&
          RD->getQualifiedNameAsString() == N)
        return true;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (isOrDerives(Base.getType()->getAsCXXRecordDecl(), Names, Depth + 1))
      return true;
  return false;
}

/// Objects that a rank argument configures but whose identity and schedule
/// are the same on every rank: a process group, backend or store built with
/// the rank (`ProcessGroupGloo(store, rank, size, opts)`, `TCPStore(host,
/// port, world, rank == 0)`) is valid everywhere, a collective's Work
/// handle exists everywhere, and a distributed sampler floors or pads each
/// rank's share to one length (the same trip count on every rank).
static bool isUniformHandle(const CXXRecordDecl *RD) {
  static const llvm::StringRef Names[] = {
      "c10d::ProcessGroup",
      "c10d::Backend",
      "c10d::Store",
      "c10d::Work",
      "torch::data::samplers::DistributedSampler",
      "torch::data::samplers::DistributedRandomSampler",
      "torch::data::samplers::DistributedSequentialSampler"};
  return isOrDerives(RD, Names);
}

/// A call that gives non-members a null group (`pg->splitGroup(ranks)`):
/// whether its result is null differs per rank.
static bool isMembershipCall(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const IdentifierInfo *Id = Callee ? Callee->getIdentifier() : nullptr;
  return Id &&
         llvm::is_contained({"splitGroup", "split_group", "new_group"},
                            Id->getName()) &&
         isUniformHandle(heldClass(Call.getType()));
}

static bool isTensorClass(QualType T) {
  const CXXRecordDecl *RD = heldClass(T);
  const IdentifierInfo *Id = RD ? RD->getIdentifier() : nullptr;
  return Id && Id->getName() == "Tensor" &&
         RD->getQualifiedNameAsString() == "at::Tensor";
}

/// What a tensor or module *is* rather than what it holds: defined, its
/// shape, its type; how many tensors a container holds; whether a module
/// trains. Tensor values differ per rank by design (gradients, local
/// shards, losses before their reduction); these do not.
static bool isTensorStructure(const CallExpr &Call) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  if (!MD || !MD->getIdentifier())
    return false;
  llvm::StringRef Name = MD->getName();
  if (Name == "size" || Name == "empty" || Name == "is_empty")
    if (const auto *Spec =
            dyn_cast<ClassTemplateSpecializationDecl>(MD->getParent()))
      for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
        if (Arg.getKind() == TemplateArgument::Type &&
            isTensorClass(Arg.getAsType()))
          return true;
  if (Name == "is_training")
    return isOrDerives(MD->getParent(), {"torch::nn::Module"});
  if (!llvm::is_contained({"defined", "dim", "ndimension", "numel", "size",
                           "sizes", "scalar_type", "dtype", "device", "options",
                           "requires_grad", "is_contiguous", "layout",
                           "is_cuda", "is_sparse"},
                          MD->getName()))
    return false;
  std::string Class = MD->getParent()->getQualifiedNameAsString();
  return Class == "at::Tensor" || Class == "at::TensorBase";
}

/// A value that is the same on every rank whatever its arguments: a
/// constructed (or returned) handle of isUniformHandle, a Work's result
/// (a collective's failure fails the job: no rank skips it on purpose), a
/// tensor's structure.
static bool isUniformObject(const Expr *E) {
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isTensorStructure(*Call))
      return true;
    if (const auto *MD =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
      if (isOrDerives(MD->getParent(), {"c10d::Work"}))
        return true;
  }
  if (!isUniformHandle(heldClass(E->getType())))
    return false;
  // Built here (not a copy of another handle, which keeps its facts).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return !Construct->getConstructor()->isCopyOrMoveConstructor();
  if (isa<CXXNewExpr>(E))
    return true;
  // Made by a factory, or returned by a handle's own method (a collective's
  // Work); not picked from a container (`groups[rank % 2]`).
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXOperatorCallExpr>(Call))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee))
    if (isUniformHandle(MD->getParent()))
      return true;
  const IdentifierInfo *Id = Callee->getIdentifier();
  return Id && llvm::is_contained(
                   {"make_intrusive", "make_shared", "make_unique", "create"},
                   Id->getName());
}

/// `DistInfo info(rank, world)` with a constructor of the main file: the
/// summary follows the arguments into the constructor's parameters and from
/// there into the fields it initialises or assigns (`info.world` stays
/// uniform). Copies and moves are the copied object.
bool RankDependenceTU::summarisedConstruction(const Expr *E) const {
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  const CXXConstructorDecl *Ctor = CE ? CE->getConstructor() : nullptr;
  if (!Ctor || Ctor->isCopyOrMoveConstructor() || !Ctor->isUserProvided())
    return false;
  const FunctionDecl *Def = Ctor->getDefinition();
  const CXXRecordDecl *Class = Ctor->getParent();
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Def || Class->getNumBases() > 0 ||
      !SM.isInMainFile(SM.getExpansionLoc(Class->getLocation())) ||
      !SM.isInMainFile(SM.getExpansionLoc(Def->getLocation())))
    return false;
  // Every argument reaches a parameter the summary tracks.
  return CE->getNumArgs() <= Def->getNumParams();
}

/// The aggregate initialisation \p E is (`DistInfo{rank, world}`, `{r, w}`),
/// if any: its fields carry their own facts.
static const InitListExpr *recordInitList(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else
      break;
  }
  const auto *ILE = dyn_cast_or_null<InitListExpr>(E);
  if (!ILE || !ILE->getType()->isRecordType() || ILE->getType()->isUnionType())
    return nullptr;
  // Bases come first in a C++17 aggregate's initialisers: not told apart.
  if (const CXXRecordDecl *RD = ILE->getType()->getAsCXXRecordDecl();
      RD && RD->getNumBases() > 0)
    return nullptr;
  return ILE;
}

/// `v[i]` on an array or through operator[]: base and index.
static bool asSubscript(const Expr *E, const Expr *&Base, const Expr *&Idx) {
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Base = AS->getBase();
    Idx = AS->getIdx();
    return true;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Base = Op->getArg(0);
    Idx = Op->getArg(1);
    return true;
  }
  return false;
}

std::optional<RankPlace>
RankDependenceTU::localPlace(const Expr *E, const FunctionDecl *Fn,
                             const Expr *&Index) const {
  Index = nullptr;
  RankPlace P;
  for (const Expr *Cur = E; Cur;) {
    Cur = Cur->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Cur)) {
      P.Var = dyn_cast<VarDecl>(DRE->getDecl());
      if (!P.Var || !isLocalOf(P.Var, Fn))
        return std::nullopt;
      return P;
    }
    const Expr *Base = nullptr, *Idx = nullptr;
    if (const auto *ME = dyn_cast<MemberExpr>(Cur);
        ME && !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl())) {
      P.Field = ME->getMemberDecl();
      P.Element = -1;
      Cur = ME->getBase();
    } else if (asSubscript(Cur, Base, Idx)) {
      // Through a pointer, the element is not the variable's own.
      if (Base->IgnoreParenImpCasts()->getType()->isPointerType())
        return std::nullopt;
      P.Field = nullptr;
      P.Element = -1;
      if (std::optional<llvm::APSInt> K = Idx->getIntegerConstantExpr(Ctx);
          K && K->isNonNegative())
        P.Element = K->getExtValue();
      else if (!Index)
        Index = Idx;
      Cur = Base;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Forgets everything known about \p V and its parts.
static void forget(RankVars &Vars, const VarDecl *V) {
  llvm::SmallVector<RankPlace, 4> Parts;
  for (const auto &KV : Vars)
    if (KV.first.Var == V)
      Parts.push_back(KV.first);
  for (const RankPlace &P : Parts)
    Vars.erase(P);
}

const Expr *RankDependenceTU::placeOrigin(const RankPlace &P, const Expr *Index,
                                          const RankVars &Locals,
                                          const FunctionDecl *Fn) const {
  if (Index)
    if (const Expr *O = origin(Index, Locals, Fn))
      return O; // a[rank]
  if (Summarising) {
    // Flow-insensitive: a local's parts are not told apart.
    if (P.Field)
      if (const Expr *O = Summary.lookup(P.Field))
        return O;
    return Summary.lookup(P.Var);
  }
  if (const Expr *O = Locals.lookup(P))
    return O;
  if (!P.isWhole() && !Index)
    return Locals.lookup(RankPlace{P.Var});
  // The whole variable, or an element the index does not name: any part.
  for (const auto &[Place, O] : Locals)
    if (Place.Var == P.Var &&
        (!P.Field || Place.Field == P.Field || Place.isWhole()))
      return O;
  return nullptr;
}

const Expr *RankDependenceTU::origin(const Expr *E, const RankVars &Locals,
                                     const FunctionDecl *Fn) const {
  if (!E || isa<LambdaExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E))
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const Expr *S = sourceCall(*Call))
      return S;
    if (isMembershipCall(*Call))
      return Call;
  }
  // Control, not data: what is the same on every rank whatever it was
  // built from; an aggregate's fields carry their own facts, and so do
  // those of an object of the file's own class built by its constructor.
  if (isUniformObject(E) || recordInitList(E) || summarisedConstruction(E))
    return nullptr;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (const Expr *O = Summary.lookup(ME->getMemberDecl()))
      return O;
  const Expr *Base = nullptr, *Idx = nullptr;
  if (isa<DeclRefExpr, MemberExpr>(E) || asSubscript(E, Base, Idx)) {
    const Expr *Index = nullptr;
    if (std::optional<RankPlace> P = localPlace(E, Fn, Index))
      return placeOrigin(*P, Index, Locals, Fn);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    return V ? Summary.lookup(V) : nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const Expr *S = sourceCall(*Call))
      return S;
    if (const FunctionDecl *Callee = Call->getDirectCallee()) {
      // What all-reduce, broadcast or full_tensor return is the same on
      // every rank (not what redistribute or from_local return: shards).
      if (Index.makesUniform(Callee))
        return nullptr;
      if (Summary.lookup(Callee->getCanonicalDecl()))
        return Call;
    }
  }
  // The first operand's origin names the value, but a mesh coordinate
  // (which MeshGroups.h may exempt) only when nothing else is mixed in: a
  // rank besides it names the value, two coordinates make `E` the origin.
  const Expr *Coordinate = nullptr;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      if (const Expr *O = origin(CE, Locals, Fn)) {
        if (!isCoordinateCall(O))
          return O;
        if (Coordinate && O != Coordinate)
          return E;
        Coordinate = O;
      }
  return Coordinate;
}

/// The variable written by an assignment to \p LHS (its base for `a[i]`,
/// `s.f`, `*p`), and whether the write replaces its whole value.
static const VarDecl *writtenVariable(const Expr *LHS, bool &Whole) {
  Whole = true;
  while (LHS) {
    LHS = LHS->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(LHS))
      return dyn_cast<VarDecl>(DRE->getDecl());
    Whole = false;
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS))
      LHS = AS->getBase();
    else if (const auto *ME = dyn_cast<MemberExpr>(LHS))
      LHS = ME->getBase();
    else if (const auto *UO = dyn_cast<UnaryOperator>(LHS))
      LHS = UO->getSubExpr();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS);
             Op && Op->getNumArgs() > 0)
      LHS = Op->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// The assignment \p S performs, if any: target and value.
static bool asAssignment(const Stmt *S, const Expr *&LHS, const Expr *&RHS,
                         bool &Plain) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S);
      BO && BO->isAssignmentOp()) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    Plain = BO->getOpcode() == BO_Assign;
    return true;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
    LHS = Op->getArg(0);
    RHS = Op->getArg(1);
    Plain = Op->getOperator() == OO_Equal;
    return true;
  }
  return false;
}

/// Local variables named in \p E (the tensors a collective is given).
static void namedVariables(const Stmt *S,
                           llvm::SmallVectorImpl<const VarDecl *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      Out.push_back(V);
  for (const Stmt *Child : S->children())
    namedVariables(Child, Out);
}

/// memcpy / memmove: the second argument's bytes go into the first's.
static bool isByteCopy(const FunctionDecl *Callee) {
  const IdentifierInfo *Id = Callee ? Callee->getIdentifier() : nullptr;
  return Id && llvm::is_contained({"memcpy", "memmove", "__builtin_memcpy",
                                   "__builtin_memmove"},
                                  Id->getName());
}

/// Whether a write to \p LHS (a parameter, through it) reaches the caller's
/// object: `*out = v`, `out[0] = v`, `out->f = v`, or `out = v` for a
/// reference.
static const ParmVarDecl *outParameter(const Expr *LHS) {
  bool Whole = true;
  const auto *P = dyn_cast_or_null<ParmVarDecl>(writtenVariable(LHS, Whole));
  if (!P)
    return nullptr;
  QualType T = P->getType();
  if (T->isReferenceType())
    return T.getNonReferenceType().isConstQualified() ? nullptr : P;
  return T->isPointerType() && !Whole ? P : nullptr;
}

/// The tensors \p Call writes in place: the object of a tensor method
/// named like libtorch's in-place ops (`copy_`, `fill_`, `add_`),
/// and tensors passed by non-const reference to a library function
/// (`torch::load(t, path)`).
static llvm::SmallVector<const Expr *, 2>
writtenTensors(const CallExpr &Call, const SourceManager &SM) {
  llvm::SmallVector<const Expr *, 2> Out;
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return Out;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    // libtorch declares its in-place methods const (`const Tensor &add_(...)
    // const`): the name says what they do. requires_grad_ changes a flag.
    if (MD && MD->getIdentifier() && MD->getName().ends_with("_") &&
        MD->getName() != "requires_grad_") {
      std::string Class = MD->getParent()->getQualifiedNameAsString();
      if (Class == "at::Tensor" || Class == "at::TensorBase")
        Out.push_back(MC->getImplicitObjectArgument());
    }
    return Out;
  }
  // The file's own functions are followed through their parameters.
  const FunctionDecl *Def = Callee->getDefinition();
  if (isa<CXXOperatorCallExpr>(Call) ||
      (Def && SM.isInMainFile(SM.getExpansionLoc(Def->getLocation()))))
    return Out;
  for (unsigned I = 0; I < Call.getNumArgs() && I < Callee->getNumParams();
       ++I) {
    QualType T = Callee->getParamDecl(I)->getType();
    if (T->isLValueReferenceType() &&
        !T.getNonReferenceType().isConstQualified() &&
        isTensorClass(T.getNonReferenceType()))
      Out.push_back(Call.getArg(I));
  }
  return Out;
}

template <typename Fn>
void RankDependenceTU::forEachOutArgument(const CallExpr &Call,
                                          Fn &&Visit) const {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
  if (!Def || OutParams.empty())
    return;
  unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Def) ? 1 : 0;
  for (unsigned I = Shift; I < Call.getNumArgs(); ++I)
    if (I - Shift < Def->getNumParams())
      if (const Expr *O = OutParams.lookup(Def->getParamDecl(I - Shift)))
        Visit(Call.getArg(I), O);
}

void RankDependenceTU::transfer(const Stmt *S, RankVars &Vars,
                                const FunctionDecl *Fn,
                                const Expr *Implicit) const {
  auto Origin = [&](const Expr *E) -> const Expr * {
    if (const Expr *O = origin(E, Vars, Fn))
      return O;
    return Implicit;
  };
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    // A variable declared under a rank-dependent condition is not seen
    // where the sides join: every rank that declares it gets the same
    // value (`for (int i = 0; ...)` inside `if (rank == 0)`).
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        forget(Vars, V);
        if (const Expr *O = origin(V->getInit(), Vars, Fn))
          Vars[RankPlace{V}] = O;
      }
    return;
  }
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Plain = false;
  if (asAssignment(S, LHS, RHS, Plain)) {
    const Expr *Index = nullptr;
    std::optional<RankPlace> P = localPlace(LHS, Fn, Index);
    if (!P) {
      // `p->f = rank` marks the field f (TU summary), not the pointer p:
      // `p->g` stays uniform.
      if (const auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
          ME && isa<FieldDecl>(ME->getMemberDecl()))
        return;
      // Through a pointer or a call: the variable as a whole.
      bool Whole = true;
      const VarDecl *V = writtenVariable(LHS, Whole);
      if (V && isLocalOf(V, Fn))
        if (const Expr *O = Origin(RHS))
          Vars[RankPlace{V}] = O;
      return;
    }
    const Expr *O = Origin(RHS);
    if (Index) {
      // a[i] = x: some element changes; at a rank-dependent index the
      // ranks change different ones.
      if (!O)
        O = origin(Index, Vars, Fn);
      if (O)
        Vars[RankPlace{P->Var}] = O;
      return;
    }
    if (O)
      Vars[*P] = O;
    else if (Plain && P->isWhole())
      forget(Vars, P->Var);
    else if (Plain)
      Vars.erase(*P);
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (Callee && Index.makesUniform(Callee)) {
    // After an all-reduce or broadcast its tensors agree on every rank.
    llvm::SmallVector<const VarDecl *, 4> Named;
    for (const Expr *Arg : Call->arguments())
      namedVariables(Arg, Named);
    // `std::vector<at::Tensor> ts = {w}; pg->broadcast(ts)`: the list holds
    // w's storage, so the tensor w is written too (not what built it:
    // `{at::full(n, rank)}` leaves rank as it is).
    for (unsigned I = 0, N = Named.size(); I < N; ++I)
      if (Named[I]->isLocalVarDecl() && !isTensorClass(Named[I]->getType())) {
        llvm::SmallVector<const VarDecl *, 4> Held;
        namedVariables(Named[I]->getInit(), Held);
        for (const VarDecl *V : Held)
          if (isTensorClass(V->getType()))
            Named.push_back(V);
      }
    for (const VarDecl *V : Named)
      forget(Vars, V);
    return;
  }
  // memcpy(&dst, &rank, n), or a helper writing the rank through a pointer
  // or reference parameter: the variable the argument names.
  auto WriteThrough = [&](const Expr *Arg, const Expr *O) {
    bool Whole = true;
    const VarDecl *V = writtenVariable(Arg, Whole);
    if (O && V && isLocalOf(V, Fn))
      Vars[RankPlace{V}] = O;
  };
  if (isByteCopy(Callee) && Call->getNumArgs() >= 2) {
    WriteThrough(Call->getArg(0), origin(Call->getArg(1), Vars, Fn));
    return;
  }
  forEachOutArgument(
      *Call, [&](const Expr *Arg, const Expr *) { WriteThrough(Arg, Call); });
  // A tensor written under a rank-dependent condition holds what that
  // condition decided: `if (rank == 0) full.copy_(w);`, `if (rank == 0)
  // torch::load(weight, path);`. Its content differs per rank until a
  // broadcast makes it uniform again.
  if (Implicit)
    for (const Expr *Written : writtenTensors(*Call, Ctx.getSourceManager()))
      WriteThrough(Written, Implicit);
  // v.push_back(rank): a container filled with rank-dependent values.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || MD->isConst())
      return;
    for (const Expr *Arg : MC->arguments())
      if (const Expr *O = origin(Arg, Vars, Fn)) {
        const Expr *Object = MC->getImplicitObjectArgument();
        const Expr *Index = nullptr;
        bool Whole = true;
        if (std::optional<RankPlace> P = localPlace(Object, Fn, Index))
          Vars[Index ? RankPlace{P->Var} : *P] = O;
        else if (const VarDecl *V = writtenVariable(Object, Whole);
                 V && isLocalOf(V, Fn))
          Vars[RankPlace{V}] = O;
        return;
      }
  }
}

void RankDependenceTU::seedParameters(const FunctionDecl &FD,
                                      RankVars &Into) const {
  for (const ParmVarDecl *P : FD.parameters())
    if (const Expr *O = Summary.lookup(P))
      Into[RankPlace{P}] = O;
}

bool RankDependenceTU::mark(llvm::DenseMap<const void *, const Expr *> &M,
                            const void *Key, const Expr *Origin) {
  if (!Key || !Origin)
    return false;
  return M.try_emplace(Key, Origin).second;
}

const Expr *conditionOf(const Stmt *S) {
  if (const auto *If = dyn_cast<IfStmt>(S))
    return If->getCond();
  if (const auto *While = dyn_cast<WhileStmt>(S))
    return While->getCond();
  if (const auto *For = dyn_cast<ForStmt>(S))
    return For->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(S))
    return Do->getCond();
  if (const auto *Switch = dyn_cast<SwitchStmt>(S))
    return Switch->getCond();
  if (const auto *CO = dyn_cast<ConditionalOperator>(S))
    return CO->getCond();
  return nullptr;
}

/// Whether an implicit flow taints \p E: scalars (a flag, an offset), not
/// objects such as tensors, which a later broadcast may make uniform (the
/// summary does not see that order).
static bool isScalar(const Expr *E) {
  return E && E->getType().getNonReferenceType()->isScalarType();
}

void RankDependenceTU::scan(const Stmt *S, const FunctionDecl *Fn,
                            bool &Changed, const Expr *Implicit) {
  if (!S)
    return;
  static const RankVars NoLocals;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    scan(Lambda->getBody(), Lambda->getCallOperator(), Changed);
    return;
  }
  auto Origin = [&](const Expr *E) { return origin(E, NoLocals, Fn); };
  // What a statement assigns under a rank-dependent condition differs per
  // rank when it is a scalar.
  auto Assigned = [&](const Expr *Target, const Expr *Value) {
    if (const Expr *O = Origin(Value))
      return O;
    return isScalar(Target) ? Implicit : nullptr;
  };
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        Changed |= mark(Summary, V, Origin(V->getInit()));
  }
  // `DistInfo info{rank, world}`, `return {rank, world};`: each field gets
  // its initialiser's fact (in every object, as field writes do), so
  // `info.world` stays uniform.
  if (const auto *ILE = dyn_cast<InitListExpr>(S);
      ILE && recordInitList(ILE) == ILE) {
    const RecordDecl *RD = ILE->getType()->getAsRecordDecl();
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
      if (I >= ILE->getNumInits())
        break;
      const Expr *Init = ILE->getInit(I++);
      Changed |= mark(Summary, F, Assigned(Init, Init));
    }
  }
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Plain = false;
  if (asAssignment(S, LHS, RHS, Plain)) {
    if (const Expr *O = Assigned(LHS, RHS)) {
      const Expr *Target = LHS->IgnoreParenImpCasts();
      // A field write marks the field (in every object: fields are not
      // told apart by object), not its object: `c.mype = rank` leaves
      // `c.nproc` uniform.
      bool Whole = true;
      if (const auto *ME = dyn_cast<MemberExpr>(Target))
        Changed |= mark(Summary, ME->getMemberDecl(), O);
      else
        Changed |= mark(Summary, writtenVariable(LHS, Whole), O);
      if (const ParmVarDecl *Out = outParameter(LHS))
        Changed |= mark(OutParams, Out, O);
    }
  }
  if (const auto *Ret = dyn_cast<ReturnStmt>(S); Ret && Fn)
    Changed |= mark(Summary, Fn->getCanonicalDecl(),
                    Assigned(Ret->getRetValue(), Ret->getRetValue()));
  // A constructor of the file is followed like a helper: its parameters.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    if (const FunctionDecl *Def = CE->getConstructor()
                                      ? CE->getConstructor()->getDefinition()
                                      : nullptr)
      for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I)
        Changed |= mark(Summary, Def->getParamDecl(I), Origin(CE->getArg(I)));
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr) {
      unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Def) ? 1 : 0;
      for (unsigned I = Shift; I < Call->getNumArgs(); ++I)
        if (I - Shift < Def->getNumParams())
          Changed |= mark(Summary, Def->getParamDecl(I - Shift),
                          Origin(Call->getArg(I)));
    }
    auto WriteThrough = [&](const Expr *Arg, const Expr *O) {
      bool Whole = true;
      const VarDecl *V = writtenVariable(Arg, Whole);
      Changed |= mark(Summary, V, O);
      if (const ParmVarDecl *Out = outParameter(Arg))
        Changed |= mark(OutParams, Out, O);
    };
    if (isByteCopy(Callee) && Call->getNumArgs() >= 2)
      WriteThrough(Call->getArg(0), Origin(Call->getArg(1)));
    forEachOutArgument(
        *Call, [&](const Expr *Arg, const Expr *) { WriteThrough(Arg, Call); });
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (const CXXMethodDecl *MD = MC->getMethodDecl(); MD && !MD->isConst())
        for (const Expr *Arg : MC->arguments())
          if (const Expr *O = Origin(Arg)) {
            bool Whole = true;
            Changed |= mark(
                Summary,
                writtenVariable(MC->getImplicitObjectArgument(), Whole), O);
          }
  }
  const Expr *Guard = conditionOf(S);
  const Expr *Inside = Guard ? Origin(Guard) : nullptr;
  for (const Stmt *Child : S->children())
    scan(Child, Fn, Changed, Child != Guard && Inside ? Inside : Implicit);
}

void RankDependenceTU::summarise() {
  // Only the main file's functions: the summary is what this TU computes
  // from ranks; library headers do not (their accessors are modelled).
  llvm::SmallVector<const FunctionDecl *, 64> Functions;
  mainFileFunctions(Ctx, Functions, /*WithSpecializations=*/true);
  Summarising = true;
  bool Changed = true;
  // Each round marks at least one more declaration; a few suffice in
  // practice, the bound keeps pathological TUs cheap.
  for (unsigned Round = 0; Changed && Round < 16; ++Round) {
    Changed = false;
    for (const FunctionDecl *FD : Functions) {
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (const FieldDecl *F = Init->getMember())
            Changed |=
                mark(Summary, F, origin(Init->getInit(), RankVars(), FD));
      scan(FD->getBody(), FD, Changed);
    }
  }
  Summarising = false;
}

} // namespace analysis
} // namespace meshguard
