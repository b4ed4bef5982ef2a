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
