//===--- PlacementTransfer.cpp - Placements through one statement ---------===//
//
// What a statement does to the placement facts of the function's local
// variables: the calls that set placements (from_local, distribute_tensor,
// redistribute), to_local of a maybe-Partial DTensor, op results by the
// runtime's rule table (OperatorRules.def), helpers' summaries, and
// assignments and in-place ops.
//
//===----------------------------------------------------------------------===//

#include "Placements/ModuleFacts.h"
#include "Placements/OperatorRules.h"
#include "Placements/PlacementFacts.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;

namespace meshguard {
namespace analysis {

static StringRef operatorName(OverloadedOperatorKind K, unsigned Args) {
  switch (K) {
  case OO_Plus:
    return Args == 1 ? "" : "add";
  case OO_Minus:
    return Args == 1 ? "neg" : "sub";
  case OO_Star:
    return "mul";
  case OO_Slash:
    return "div";
  case OO_PlusEqual:
    return "add_";
  case OO_MinusEqual:
    return "sub_";
  case OO_StarEqual:
    return "mul_";
  case OO_SlashEqual:
    return "div_";
  case OO_Less:
    return "lt";
  case OO_Greater:
    return "gt";
  case OO_LessEqual:
    return "le";
  case OO_GreaterEqual:
    return "ge";
  case OO_EqualEqual:
    return "eq";
  case OO_ExclaimEqual:
    return "ne";
  default:
    return "";
  }
}

std::optional<TensorOpCall> readTensorOp(const CallExpr &Call,
                                         const ApiIndex &Index) {
  TensorOpCall Op;
  auto AddArgs = [&](llvm::ArrayRef<const Expr *> Args) {
    for (const Expr *A : Args)
      (Index.isTensorType(A->getType()) ? Op.Operands : Op.Others).push_back(A);
  };
  llvm::SmallVector<const Expr *, 4> Args(Call.arguments());
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    Op.Name = operatorName(OC->getOperator(), OC->getNumArgs()).str();
    AddArgs(Args);
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const Expr *Object = MC->getImplicitObjectArgument();
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!Object || !MD || !MD->getIdentifier() ||
        !Index.isTensorType(Object->getType()) ||
        !Index.isTensorType(MD->getReturnType()))
      return std::nullopt;
    Op.Name = MD->getName().str();
    Op.Operands.push_back(Object);
    AddArgs(Args);
  } else if (const FunctionDecl *FD = Call.getDirectCallee();
             FD && FD->getIdentifier() && Index.isOpFunction(FD)) {
    Op.Name = FD->getName().str();
    AddArgs(Args);
  }
  if (Op.Name.empty() || Op.Operands.empty())
    return std::nullopt;
  return Op;
}

std::optional<std::uint8_t>
PlacementTransfer::reducedDims(llvm::ArrayRef<const Expr *> Others) const {
  constexpr std::uint8_t AnyDim = 0x7f | PlacementState::UnknownDim;
  for (const Expr *Arg : Others) {
    QualType T = Arg->getType().getNonReferenceType();
    if (T->isBooleanType() || T->isEnumeralType() || T->isFloatingType())
      continue; // keepdim, a dtype, a scalar
    if (T->isIntegerType()) {
      std::optional<llvm::APSInt> D = Arg->getIntegerConstantExpr(Ctx);
      return D && *D >= 0 && *D < 7 ? std::uint8_t(1u << D->getExtValue())
                                    : AnyDim;
    }
    // A dim list: {0, 1}, read when every element is a constant; or one
    // dim made into a list (IntArrayRef from `1`).
    const InitListExpr *List = bracedList(Arg);
    if (!List) {
      const Expr *One = findSubExpr(Arg, [&](const Expr *E) {
        return E->getType()->isIntegerType() &&
               !E->getType()->isBooleanType() && !E->isValueDependent() &&
               E->getIntegerConstantExpr(Ctx);
      });
      std::optional<llvm::APSInt> D =
          One ? One->getIntegerConstantExpr(Ctx) : std::nullopt;
      return D && *D >= 0 && *D < 7 ? std::uint8_t(1u << D->getExtValue())
                                    : AnyDim;
    }
    std::uint8_t Mask = 0;
    for (const Expr *Element : List->inits()) {
      std::optional<llvm::APSInt> D = Element->getIntegerConstantExpr(Ctx);
      if (!D || *D < 0 || *D >= 7)
        return AnyDim;
      Mask |= std::uint8_t(1u << D->getExtValue());
    }
    return Mask;
  }
  return std::nullopt;
}

/// Where the first sharded or Partial operand got its placements.
static NotePlace firstPlacedAt(llvm::ArrayRef<PlacementState> Operands) {
  for (const PlacementState &S : Operands)
    if (S.maySplit() && S.PlacedAt)
      return S.PlacedAt;
  return {};
}

/// What to_local gives of a DTensor with facts \p D at \p At (the
/// to_local call, or the call of a helper that wraps one): one rank's
/// partial contribution, or one rank's shard of known dims.
static std::optional<PlacementState> localOf(const PlacementState &D,
                                             const CallExpr &At) {
  if (!D.isDTensor())
    return std::nullopt;
  PlacementState L;
  L.ToLocal = &At;
  if (D.MayPartial) {
    L.What = PlacementState::Kind::PartialLocal;
    L.PartialOrigin = D.PartialOrigin;
    return L;
  }
  if (D.ShardDims && !(D.ShardDims & PlacementState::UnknownDim)) {
    L.What = PlacementState::Kind::ShardLocal;
    L.ShardDims = D.ShardDims;
    L.PlacedAt = D.PlacedAt;
    return L;
  }
  return std::nullopt;
}

std::optional<PlacementState>
PlacementTransfer::shardLocalOp(const TensorOpCall &Op, const CallExpr &Call,
                                llvm::ArrayRef<PlacementState> Facts,
                                const OperatorRule *Rule) const {
  const PlacementState *Shard = nullptr;
  for (const PlacementState &S : Facts)
    if (S.isShardLocal()) {
      Shard = &S;
      break;
    }
  if (!Shard || !Rule || Rule->Policy != ShardedPolicy::Rule)
    return std::nullopt;
  if (Rule->Family == "pointwise")
    return *Shard; // rows stay rows
  if (Rule->Family != "reduction" || !Rule->PartialFromShard)
    return std::nullopt;
  // A reduction over a sharded dim of one rank's shard: what the runtime
  // would make Partial, here one rank's contribution, as a plain tensor.
  std::optional<std::uint8_t> Reduced = reducedDims(Op.Others);
  if (Reduced && !(*Reduced & Shard->ShardDims))
    return std::nullopt; // the rows' own values, renumbered: not followed
  PlacementState L;
  L.What = PlacementState::Kind::PartialLocal;
  L.ToLocal = Shard->ToLocal;
  L.PartialOrigin = &Call;
  L.FromShard = true;
  return L;
}

/// In a helper's summary run, an op on the to_local of a parameter's
/// argument: a linear op keeps it (below), a non-linear pointwise one marks
/// it (a shard's rows stay rows; of a Partial's share the call gives
/// nothing), a reduction over every dim marks it reduced.
std::optional<PlacementState>
PlacementTransfer::localOfParamOp(const TensorOpCall &Op,
                                  const PlacementState &Local,
                                  const OperatorRule *Rule) const {
  if (!Rule || Rule->Policy != ShardedPolicy::Rule || Op.Operands.size() != 1)
    return std::nullopt;
  using AfterLocal = PlacementState::AfterLocal;
  PlacementState R = Local;
  if (Rule->Family == "pointwise") {
    if (!Rule->KeepsPartial)
      R.Then = AfterLocal::Pointwise;
    return R;
  }
  if (Rule->Family != "reduction" || !Rule->PartialFromShard ||
      reducedDims(Op.Others))
    return std::nullopt;
  R.Then = R.Then == AfterLocal::Pointwise ? AfterLocal::PointwiseReduced
                                           : AfterLocal::Reduced;
  return R;
}

std::optional<PlacementState>
PlacementTransfer::applyOp(const TensorOpCall &Op, const CallExpr &Call,
                           const PlacementVars &Vars) const {
  const PlacementState *FirstLocal = nullptr, *FirstPartial = nullptr;
  llvm::SmallVector<PlacementState, 3> DTensors;
  llvm::SmallVector<PlacementState, 3> Facts;
  for (const Expr *Operand : Op.Operands)
    if (std::optional<PlacementState> S = evaluate(Operand, Vars))
      Facts.push_back(*S);
  for (const PlacementState &S : Facts) {
    if (S.isPartialLocal()) {
      FirstLocal = FirstLocal ? FirstLocal : &S;
      continue;
    }
    if (S.isDTensor())
      DTensors.push_back(S);
  }
  const OperatorRule *Rule = findResultRule(Op.Name);
  using AfterLocal = PlacementState::AfterLocal;
  if (DTensors.empty() && FirstLocal && FirstLocal->Param &&
      FirstLocal->LocalOfParam &&
      (FirstLocal->Then == AfterLocal::None ||
       FirstLocal->Then == AfterLocal::Pointwise))
    if (std::optional<PlacementState> R = localOfParamOp(Op, *FirstLocal, Rule))
      return R;
  if (DTensors.empty()) {
    // A plain op on one rank's partial contribution: still one if the op
    // is linear (its rule keeps Partial) or decomposes (contiguous, to);
    // the non-linear ones are uses (PlacementScan.cpp).
    if (FirstLocal && (!Rule || Rule->Policy == ShardedPolicy::Decomposes ||
                       Rule->KeepsPartial))
      return *FirstLocal;
    if (FirstLocal)
      return std::nullopt;
    return shardLocalOp(Op, Call, Facts, Rule);
  }
  PlacementState R;
  R.MeshDims = DTensors.front().MeshDims;
  R.MeshMadeBy = DTensors.front().MeshMadeBy;
  R.MeshAt = DTensors.front().MeshAt;
  std::uint8_t Union = 0;
  unsigned Sharded = 0;
  for (const PlacementState &S : DTensors) {
    Union |= S.ShardDims;
    Sharded += S.ShardDims != 0;
    if (S.MayPartial && !FirstPartial)
      FirstPartial = &S;
    if (S.MeshDims != R.MeshDims)
      R.MeshDims = 0;
  }
  if (!Rule || Rule->Policy != ShardedPolicy::Rule) {
    // Decomposed or refused: the pieces' placements are not followed.
    R.ShardDims = Union ? PlacementState::UnknownDim : 0;
    R.PlacedAt = R.ShardDims ? firstPlacedAt(DTensors) : NotePlace();
    return R;
  }
  bool ShardGivesPartial = false;
  if (Rule->Family == "pointwise") {
    R.ShardDims = Union;
  } else if (Rule->Family == "reduction") {
    std::optional<std::uint8_t> Reduced = reducedDims(Op.Others);
    if (!Reduced) { // every dim: a scalar
      ShardGivesPartial = Union != 0;
    } else {
      ShardGivesPartial = Union & (*Reduced | PlacementState::UnknownDim);
      std::uint8_t Kept = Union & ~*Reduced;
      // Dims after a reduced one are renumbered (unless keepdim).
      R.ShardDims = Kept ? PlacementState::UnknownDim : 0;
    }
  } else {
    R.ShardDims = Union ? PlacementState::UnknownDim : 0;
    // mm: S(1) x S(0); the other families (nn: a row-wise embedding, a loss
    // over a sharded batch): one sharded operand.
    ShardGivesPartial = Rule->Family == "matrix" ? Sharded >= 2 : Sharded >= 1;
  }
  bool FromShard = Rule->PartialFromShard && ShardGivesPartial;
  bool Kept = Rule->KeepsPartial && FirstPartial;
  R.MayPartial = FromShard || Kept;
  R.PartialOrigin = Kept        ? FirstPartial->PartialOrigin
                    : FromShard ? NotePlace(&Call)
                                : NotePlace();
  R.PlacedAt = FromShard ? NotePlace(&Call) : firstPlacedAt(DTensors);
  return R;
}

std::optional<PlacementState>
PlacementTransfer::evaluateCall(const CallExpr &Call,
                                const PlacementVars &Vars) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return std::nullopt;
  if (const PlacementCallEntry *P = Index.placementCall(FD)) {
    switch (P->Role) {
    case PlacementRole::SetsPlacements: {
      if (P->PlacementsArg < 0 ||
          unsigned(P->PlacementsArg) >= Call.getNumArgs())
        return std::nullopt;
      PlacementState S = readPlacements(Call.getArg(P->PlacementsArg), Ctx);
      S.PartialOrigin = S.MayPartial ? NotePlace(&Call) : NotePlace();
      S.PlacedAt = S.maySplit() ? NotePlace(&Call) : NotePlace();
      if (P->MeshArg >= 0 && unsigned(P->MeshArg) < Call.getNumArgs()) {
        S.MeshMadeBy = meshMadeBy(Call.getArg(P->MeshArg), Index);
        S.MeshAt = &Call;
      } else if (std::optional<PlacementState> Operand =
                     Call.getNumArgs() ? evaluate(Call.getArg(0), Vars)
                                       : std::nullopt;
                 Operand && Operand->isDTensor()) {
        S.MeshMadeBy = Operand->MeshMadeBy; // redistribute: the same mesh
        S.MeshAt = Operand->MeshAt;
      }
      return S;
    }
    case PlacementRole::LocalTensor: {
      std::optional<PlacementState> D =
          Call.getNumArgs() ? evaluate(Call.getArg(0), Vars) : std::nullopt;
      if (!D)
        return std::nullopt;
      // A helper's summary run: the to_local of its parameter's argument.
      if (D->isPartialLocal() && D->Param && !D->ToLocal && !D->LocalOfParam) {
        PlacementState L = *D;
        L.LocalOfParam = true;
        L.ToLocal = &Call;
        return L;
      }
      return localOf(*D, Call);
    }
    case PlacementRole::FullTensor:
    case PlacementRole::MakesMesh:
    case PlacementRole::ShardsModule:
    case PlacementRole::ParallelizesModule:
      return std::nullopt;
    }
  }
  // A parameter's gradient is sharded like the parameter (fully_shard,
  // distribute_module: the runtime's grads keep the parameter's
  // placements).
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Object = MC->getImplicitObjectArgument();
    if (MD && MD->getIdentifier() && Object &&
        Index.isTensorType(Object->getType()) &&
        (MD->getName() == "grad" || MD->getName() == "mutable_grad")) {
      std::optional<PlacementState> P = evaluate(Object, Vars);
      return P && P->isDTensor() ? P : std::nullopt;
    }
  }
  if (std::optional<TensorOpCall> Op = readTensorOp(Call, Index))
    return applyOp(*Op, Call, Vars);
  if (!Index.isTensorType(FD->getReturnType()))
    return std::nullopt;
  const HelperPlacements *H = helperOf(*FD);
  if (!H || !H->Returns) {
    // A module's forward: its output is on its input's mesh, with its
    // input's placements (the runtime runs the module's ops on it).
    if (const Expr *Input = moduleInput(Call, Index)) {
      std::optional<PlacementState> In = evaluate(Input, Vars);
      return In && In->isDTensor() ? In : std::nullopt;
    }
    return std::nullopt;
  }
  if (const ParmVarDecl *P = H->Returns->Param) {
    unsigned I = P->getFunctionScopeIndex();
    llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
    // The argument's own facts, passed through; or its to_local.
    std::optional<PlacementState> A =
        I < Args.size() ? evaluate(Args[I], Vars) : std::nullopt;
    if (A && H->Returns->LocalOfParam) {
      std::optional<PlacementState> L = localOf(*A, Call);
      using AfterLocal = PlacementState::AfterLocal;
      AfterLocal Then = H->Returns->Then;
      if (!L || Then == AfterLocal::None)
        return L;
      if (Then == AfterLocal::Pointwise)
        return std::nullopt;
      // One rank's shard reduced over every dim: its part of the whole. A
      // Partial's share summed stays one; after non-linear ops: unknown.
      if (L->isPartialLocal() && Then == AfterLocal::Reduced)
        return L;
      if (!L->isShardLocal())
        return std::nullopt;
      PlacementState P;
      P.What = PlacementState::Kind::PartialLocal;
      P.ToLocal = &Call;
      P.PartialOrigin = &Call;
      P.FromShard = true;
      return P;
    }
    return A;
  }
  return H->Returns;
}

std::optional<PlacementState>
PlacementTransfer::evaluate(const Expr *E, const PlacementVars &Vars) const {
  E = stripCopies(E);
  if (!E)
    return std::nullopt;
  if (std::optional<PlacementPlace> P = placeOf(E)) {
    if (auto It = Vars.find(*P); It != Vars.end())
      return It->second;
    if (!P->second)
      return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evaluateCall(*Call, Vars);
  // `is_dtensor(g) ? to_local(g) : g`: either side's facts, as at a join.
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
    std::optional<PlacementState> A = evaluate(C->getTrueExpr(), Vars);
    std::optional<PlacementState> B = evaluate(C->getFalseExpr(), Vars);
    if (A && B)
      A->join(*B);
    return A ? A : B;
  }
  if (const auto *Field = dyn_cast<MemberExpr>(E); Field && Modules)
    return Modules->parameter(*Field);
  return std::nullopt;
}

void PlacementTransfer::assign(const Expr *Target,
                               std::optional<PlacementState> S,
                               PlacementVars &Vars) const {
  std::optional<PlacementPlace> P = placeOf(Target);
  if (!P)
    return;
  if (S)
    Vars[*P] = *S;
  else
    Vars.erase(*P);
}

/// Forgets what was known of \p V's fields (\p V itself is given a new
/// value).
static void forgetFields(const VarDecl *V, PlacementVars &Vars) {
  llvm::SmallVector<PlacementPlace, 2> Fields;
  for (const auto &[P, S] : Vars)
    if (P.first == V && P.second)
      Fields.push_back(P);
  for (const PlacementPlace &P : Fields)
    Vars.erase(P);
}

void PlacementTransfer::transfer(const Stmt *S, PlacementVars &Vars) const {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      forgetFields(V, Vars); // a loop's variable, declared again
      if (!V->hasInit() || !Index.isTensorType(V->getType()))
        continue;
      std::optional<PlacementState> F = evaluate(V->getInit(), Vars);
      if (!F && Modules)
        F = Modules->loopParameter(*V); // for (auto &p : m->parameters())
      if (F)
        Vars[{V, nullptr}] = *F;
      else
        Vars.erase({V, nullptr});
    }
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;
  // An all-reduce (or broadcast) makes its tensors the same on every rank:
  // a share it reduced is the value now.
  if (Index.makesUniform(Call->getDirectCallee())) {
    for (const Expr *Arg : Call->arguments())
      for (const TensorOperand &Item : tensorOperands(Arg, Index).Items)
        if (std::optional<PlacementPlace> P = placeOf(Item.E))
          Vars.erase(*P);
    return;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call);
      OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2) {
    if (Index.isTensorType(OC->getArg(0)->getType()))
      assign(OC->getArg(0), evaluate(OC->getArg(1), Vars), Vars);
    else if (const VarDecl *V = namedVariable(OC->getArg(0)))
      forgetFields(V, Vars); // a struct assigned as a whole
    return;
  }
  // In place: `x += y`, `x.mul_(2)`: x takes the op's result.
  std::optional<TensorOpCall> Op = readTensorOp(*Call, Index);
  if (Op && StringRef(Op->Name).ends_with("_") && placeOf(Op->Operands[0]))
    assign(Op->Operands[0], applyOp(*Op, *Call, Vars), Vars);
}

} // namespace analysis
} // namespace meshguard
