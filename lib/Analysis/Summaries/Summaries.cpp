//===--- Summaries.cpp - Interprocedural facts for functions in the TU ----===//

#include "meshguard/Analysis/Summaries/Summaries.h"
#include "Summaries/ArgumentReadings.h"
#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Basic/SourceManager.h"
#include <tuple>

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

SummaryProvider::~SummaryProvider() = default;

const FunctionSummary *SummaryProvider::get(const FunctionDecl *FD) {
  return get(FD, {});
}

const FunctionSummary *SummaryProvider::get(const FunctionDecl *FD,
                                            llvm::ArrayRef<ParamLambda> Bound) {
  if (FD && Database && !FD->hasBody())
    return Bound.empty() ? imported(*FD) : nullptr; // Defined elsewhere.
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || Def->isDependentContext() ||
      Def->isInvalidDecl() ||
      Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return nullptr;
  std::vector<std::pair<unsigned, const void *>> Key(Bound.begin(),
                                                     Bound.end());
  if (Bound.empty()) {
    if (auto It = Cache.find(Def); It != Cache.end())
      return It->second.get();
  } else if (auto It = BoundCache.find({Def, Key}); It != BoundCache.end()) {
    return It->second.get();
  }
  if (InProgress.contains(Def) || Depth >= MaxDepth)
    return nullptr; // Recursion or too deep: unknown (not cached).
  // The body names the definition's parameters.
  Frame F{Def, {}};
  // A parameter the body changes may call something else.
  for (const auto &[Param, Lambda] : Bound)
    if (Param < Def->getNumParams() &&
        Callables->neverChanged(*Def->getParamDecl(Param)))
      F.Bound.push_back({Def->getParamDecl(Param), Lambda});
  InProgress.insert(Def);
  Frames.push_back(std::move(F));
  ++Depth;
  std::unique_ptr<FunctionSummary> Summary = compute(*Def);
  --Depth;
  Frames.pop_back();
  InProgress.erase(Def);
  const FunctionSummary *Result = Summary.get();
  if (Bound.empty())
    Cache[Def] = std::move(Summary);
  else
    BoundCache[{Def, std::move(Key)}] = std::move(Summary);
  return Result;
}

namespace {

/// The type of the object input \p P gives the function: its own type, or
/// for a pointer parameter (`at::Tensor *t`, `Model *m`) the pointee's.
QualType objectType(const VarDecl &P) {
  QualType T = P.getType();
  if (const auto *Ptr = T->getAs<PointerType>())
    return Ptr->getPointeeType();
  return T;
}

/// Where the object of input \p P is on entry: the parameter (or captured
/// variable) itself, or what a pointer parameter points to.
RecordStorageLocation *parameterObject(const VarDecl &P,
                                       const Environment &Env) {
  if (P.getType()->isPointerType()) {
    auto *Ptr = Env.get<PointerValue>(P);
    return Ptr ? dyn_cast<RecordStorageLocation>(&Ptr->getPointeeLoc())
               : nullptr;
  }
  return dyn_cast_or_null<RecordStorageLocation>(Env.getStorageLocation(P));
}

/// The function whose summary says what \p Call's arguments reach: the
/// callee of a plain call, or the operator() of a lambda or function object
/// called directly (`sync(w)`), or of the lambda a std::function surely
/// holds (`fn(w)`); none for the other operator calls (tensor arithmetic is
/// the API's).
const FunctionDecl *summarisedCallee(const CallExpr &Call,
                                     CallableTargets &Callables,
                                     llvm::ArrayRef<CallableBinding> Bound) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (Op && Op->getOperator() != OO_Call)
    return nullptr;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  if (!Op || !MD || !isStdFunction(MD->getParent()))
    return Call.getDirectCallee();
  const LambdaExpr *Lambda = Callables.heldLambda(Call.getArg(0), Bound);
  const CXXMethodDecl *Target = Lambda ? Lambda->getCallOperator() : nullptr;
  if (!Target || Target->getNumParams() != parameterArguments(Call).size())
    return nullptr;
  return Target;
}

/// The lambda expression of a lambda's call operator \p FD, or null.
const LambdaExpr *lambdaOf(const FunctionDecl &FD,
                           LambdaCaptureMemo &Captures) {
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  if (!MD || !MD->getParent() || !MD->getParent()->isLambda())
    return nullptr;
  return Captures.lambdaExpr(*MD->getParent());
}

/// The `x` of a pointer argument `&x`, or of a local pointer variable
/// initialised with `&x` (or with another such variable) that its function
/// never changes; null for any other pointer.
const Expr *addressTaken(const Expr *Arg, CallableTargets &Callables) {
  for (unsigned Depth = 0; Arg && Depth < 4; ++Depth) {
    Arg = Arg->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(Arg);
        U && U->getOpcode() == UO_AddrOf)
      return U->getSubExpr();
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg);
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!VD || !VD->isLocalVarDecl() || !VD->getType()->isPointerType() ||
        !VD->getInit() || !Callables.neverChanged(*VD))
      return nullptr;
    Arg = VD->getInit();
  }
  return nullptr;
}

/// The object \p Call gives input \p Param of \p Callee: the argument, or
/// for a pointer parameter the `x` of `&x` or of an unchanged pointer
/// variable initialised with it (a module pointer also takes `holder.get()`,
/// which ModuleNavigation reads); for a lambda's variable captured by
/// reference (inputs after the parameters), the variable as the capture
/// names it, read where the call is. Null when it is none of these (another
/// pointer: unknown, never a finding).
const Expr *argumentForParameter(const CallExpr &Call,
                                 const FunctionDecl &Callee, unsigned Param,
                                 const ApiIndex &Index,
                                 CallableTargets &Callables,
                                 LambdaCaptureMemo &Captures) {
  if (Param >= Callee.getNumParams()) {
    const LambdaExpr *Lambda = lambdaOf(Callee, Captures);
    unsigned Capture = Param - Callee.getNumParams();
    if (!Lambda || Capture >= Lambda->capture_size())
      return nullptr;
    return Lambda->capture_inits().begin()[Capture];
  }
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  if (Param >= Args.size())
    return nullptr;
  const Expr *Arg = Args[Param];
  const ParmVarDecl &P = *Callee.getParamDecl(Param);
  if (!P.getType()->isPointerType())
    return Arg;
  if (const Expr *Pointee = addressTaken(Arg, Callables))
    return Pointee;
  return Index.isModuleType(objectType(P)) ? Arg : nullptr;
}

/// A parameter, or a variable a lambda captures by reference, and its
/// number in the summary's facts.
struct Input {
  const VarDecl *Var;
  unsigned Index;
};

} // namespace

/// Collects one function's summary from one analysis run: each kind of
/// fact with its own collector (FactKind.h).
class SummaryProvider::SummaryBuilder {
public:
  SummaryBuilder(SummaryProvider &Provider, FunctionSummary &Summary,
                 bool ReturnsTensor, llvm::ArrayRef<Input> TensorParams,
                 llvm::ArrayRef<Input> ContainerParams)
      : Provider(Provider), Summary(Summary), ReturnsTensor(ReturnsTensor),
        TensorParams(TensorParams), ContainerParams(ContainerParams) {}

  /// The inputs' initial provenance, as atoms; then the collectors.
  void onEntry(const Environment &Env) {
    for (const Input &P : TensorParams)
      if (RecordStorageLocation *L = parameterObject(*P.Var, Env)) {
        TensorFacts F = readTensor(*L, Env, nullptr);
        Tensors.push_back({P.Index, F.Plain, F.Known});
        DTensors.push_back({P.Index, &F.isDTensor(Env.arena())});
      }
    for (const Input &P : ContainerParams)
      if (RecordStorageLocation *L = parameterObject(*P.Var, Env))
        DTensors.push_back({P.Index, readContainer(*L, Env).AnyDTensor});
    SummaryInputs In{Provider, ReturnsTensor, Tensors, DTensors};
    for (const FactKind *Kind : factKinds())
      if (std::unique_ptr<SummaryCollector> C = Kind->collector(In))
        Collectors.push_back(std::move(C));
  }

  void visit(const CFGElement &Elt, const Environment &Env,
             const OriginTable &Origins) {
    if (auto S = Elt.getAs<CFGStmt>())
      for (const std::unique_ptr<SummaryCollector> &C : Collectors)
        C->visit(*S->getStmt(), Env, Origins, Summary);
  }

  void finish() {
    for (const std::unique_ptr<SummaryCollector> &C : Collectors)
      C->finish(Summary);
  }

private:
  SummaryProvider &Provider;
  FunctionSummary &Summary;
  const bool ReturnsTensor;
  llvm::ArrayRef<Input> TensorParams, ContainerParams;
  llvm::SmallVector<TensorInputAtoms, 4> Tensors;
  llvm::SmallVector<DTensorInput, 4> DTensors;
  std::vector<std::unique_ptr<SummaryCollector>> Collectors;
};

std::unique_ptr<FunctionSummary>
SummaryProvider::compute(const FunctionDecl &FD) {
  auto Summary = std::make_unique<FunctionSummary>();
  bool ReturnsTensor = Index.isTensorType(FD.getReturnType());
  // The inputs: the parameters, then a lambda's variables captured by
  // reference (numbered after the parameters), which the caller reads where
  // it calls the lambda. A capture that keeps a known value from the
  // lambda's creation is seeded by LambdaCaptures and is no sink.
  llvm::SmallVector<Input, 4> Inputs;
  for (const ParmVarDecl *P : FD.parameters())
    Inputs.push_back({P, P->getFunctionScopeIndex()});
  if (const LambdaExpr *Lambda = lambdaOf(FD, *Captures)) {
    unsigned I = FD.getNumParams();
    for (const LambdaCapture &C : Lambda->captures()) {
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar());
            VD && Captures->changedOnlyInPlace(*VD))
          Inputs.push_back({VD, I});
      ++I;
    }
  }
  llvm::SmallVector<Input, 4> TensorParams, ContainerParams;
  for (const Input &In : Inputs) {
    QualType T = objectType(*In.Var);
    if (Index.isTensorType(T))
      TensorParams.push_back(In);
    else if (Index.isTensorContainerType(T))
      ContainerParams.push_back(In);
    else if (Index.isModuleType(T) &&
             !addModuleParameterFacts(FD, *In.Var, In.Index, *Summary))
      return nullptr;
  }
  if (!ReturnsTensor && TensorParams.empty() && ContainerParams.empty())
    return Summary;

  SummaryBuilder Builder(*this, *Summary, ReturnsTensor, TensorParams,
                         ContainerParams);
  auto OnEntry = [&](const Environment &Env) { Builder.onEntry(Env); };
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    Builder.visit(Elt, Env, Origins);
  };
  AnalysisResult Result = analyzeFunction(FD, Ctx, Index, Limits, Visit,
                                          {this, Captures.get()}, OnEntry);
  if (!Result.ok())
    return nullptr;
  Builder.finish();
  return Summary;
}

std::pair<const FunctionDecl *, const FunctionSummary *>
SummaryProvider::summaryAt(const CallExpr &Call) {
  llvm::ArrayRef<CallableBinding> Bound;
  if (!Frames.empty())
    Bound = Frames.back().Bound;
  const FunctionDecl *Callee = summarisedCallee(Call, *Callables, Bound);
  if (!Callee || Index.source(Callee))
    return {nullptr, nullptr};
  // std::function parameters given a lambda it surely holds: the callee's
  // summary for this call, with calls through them calling the lambda.
  llvm::SmallVector<ParamLambda, 1> Lambdas;
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  for (unsigned I = 0,
                N = std::min<size_t>(Args.size(), Callee->getNumParams());
       I < N; ++I)
    if (isStdFunctionType(Callee->getParamDecl(I)->getType()))
      if (const LambdaExpr *L = Callables->heldLambda(Args[I], Bound))
        Lambdas.push_back({I, L});
  return {Callee, get(Callee, Lambdas)};
}

template <typename Facts, typename Fact>
void SummaryProvider::forEachSummaryFactArgument(
    const CallExpr &Call, Facts FunctionSummary::*Member,
    llvm::function_ref<void(const Fact &, const Expr *)> Fn) {
  auto [Callee, Inner] = summaryAt(Call);
  if (Inner)
    for (const Fact &F : Inner->*Member)
      if (const Expr *Arg = argumentForParameter(Call, *Callee, F.Param, Index,
                                                 *Callables, *Captures))
        Fn(F, Arg);
}

void SummaryProvider::forEachCollectiveArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const SinkFact &, const Expr *)> Fn) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (const MeshCollectiveEntry *Entry = Index.meshCollective(Callee)) {
    if (Entry->TensorArg < Call.getNumArgs())
      Fn({Entry->TensorArg, &Call, Entry}, Call.getArg(Entry->TensorArg));
    return;
  }
  forEachSinkArgument(Call, Fn);
}

void SummaryProvider::forEachSinkArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const SinkFact &, const Expr *)> Fn) {
  forEachSummaryFactArgument(Call, &FunctionSummary::Sinks, Fn);
}

void SummaryProvider::forEachProcessGroupArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const ProcessGroupSinkFact &, const Expr *)> Fn) {
  if (const ProcessGroupCollectiveEntry *Entry =
          Index.processGroupCollective(Call.getDirectCallee())) {
    for (unsigned Arg : Entry->TensorArgs)
      if (Arg < Call.getNumArgs())
        Fn({Arg, &Call, Entry}, Call.getArg(Arg));
    return;
  }
  forEachProcessGroupSinkArgument(Call, Fn);
}

void SummaryProvider::forEachMixedOpSinkArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const MixedOpSinkFact &, const Expr *)> Fn) {
  forEachSummaryFactArgument(Call, &FunctionSummary::MixedOpSinks, Fn);
}

void SummaryProvider::forEachCheckpointSinkArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const CheckpointSinkFact &, const Expr *)> Fn) {
  forEachSummaryFactArgument(Call, &FunctionSummary::CheckpointSinks, Fn);
}

void SummaryProvider::forEachProcessGroupSinkArgument(
    const CallExpr &Call,
    llvm::function_ref<void(const ProcessGroupSinkFact &, const Expr *)> Fn) {
  forEachSummaryFactArgument(Call, &FunctionSummary::ProcessGroupSinks, Fn);
}

// A module parameter is analysed twice, assuming it was never distributed
// and assuming it was, with literal facts: a symbolic "distributed" atom
// would not survive the widening at loop heads, and gradient-sync loops are
// the usual way a module's parameters reach a collective. A collective is a
// sink when only the first assumption leaves it without a mesh.
bool SummaryProvider::addModuleParameterFacts(const FunctionDecl &FD,
                                              const VarDecl &P, unsigned Param,
                                              FunctionSummary &Summary) {
  PlainCollectives WhenPlain, WhenDistributed;
  DTensorProcessGroupCalls RawWhenPlain, RawWhenDistributed;
  bool Kept = false;
  if (!collectivesWithModule(FD, P, /*Distributed=*/false, WhenPlain,
                             RawWhenPlain, &Kept) ||
      !collectivesWithModule(FD, P, /*Distributed=*/true, WhenDistributed,
                             RawWhenDistributed, nullptr))
    return false;
  for (const auto &[Key, Site] : WhenPlain)
    if (!WhenDistributed.count(Key))
      Summary.Sinks.push_back({Param, Site.Collective, Site.Entry,
                               /*IsModule=*/true, Site.Elsewhere});
  // Given DTensors only when the module was distributed (in source order;
  // those in other files last, by place).
  llvm::SmallVector<ProcessGroupSinkFact, 2> Raw;
  for (const auto &[Key, Site] : RawWhenDistributed)
    if (!RawWhenPlain.count(Key))
      Raw.push_back({Param, Site.Collective, Site.Entry, /*IsModule=*/true,
                     Site.Elsewhere});
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::sort(Raw, [&](const ProcessGroupSinkFact &A,
                      const ProcessGroupSinkFact &B) {
    if (!A.Collective || !B.Collective)
      return B.Collective   ? false
             : A.Collective ? true
                            : std::tie(A.Elsewhere->File, A.Elsewhere->Line,
                                       A.Elsewhere->Column) <
                                  std::tie(B.Elsewhere->File, B.Elsewhere->Line,
                                           B.Elsewhere->Column);
    return SM.isBeforeInTranslationUnit(A.Collective->getBeginLoc(),
                                        B.Collective->getBeginLoc());
  });
  Summary.ProcessGroupSinks.append(Raw.begin(), Raw.end());
  if (Kept)
    Summary.KeptModules.push_back(Param);
  return true;
}

bool SummaryProvider::collectivesWithModule(
    const FunctionDecl &FD, const VarDecl &P, bool Distributed,
    PlainCollectives &Plain, DTensorProcessGroupCalls &DTensorCalls,
    bool *Kept) {
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    auto S = Elt.getAs<CFGStmt>();
    const auto *Call = S ? dyn_cast<CallExpr>(S->getStmt()) : nullptr;
    if (!Call)
      return;
    forEachCollectiveArgument(
        *Call, [&](const SinkFact &Site, const Expr *Arg) {
          const Formula *Target =
              allPlainAndKnown(Arg, Site.IsModule, Index, Env, Origins);
          if (Target && surely(*Target, Env))
            Plain.insert({Site.key(), Site});
        });
    forEachProcessGroupArgument(
        *Call, [&](const ProcessGroupSinkFact &Site, const Expr *Arg) {
          const Formula *Target =
              everyDTensor(Arg, Site.IsModule, Index, Env, Origins);
          if ((Target && surely(*Target, Env)) ||
              knownNotAllPlain(Arg, Site.IsModule, Index, Env, Origins))
            DTensorCalls.insert({Site.key(), Site});
        });
  };
  auto Assume = [&](Environment &Env) {
    if (RecordStorageLocation *L = parameterObject(P, Env))
      writeModule(*L, Distributed, Env);
  };
  // Kept: still surely not distributed wherever the function returns.
  auto OnExit = [&](const Environment &Env) {
    RecordStorageLocation *L = parameterObject(P, Env);
    if (Kept && L && classify(readModule(*L, Env), Env) == Provenance::Plain)
      *Kept = true;
  };
  return analyzeFunction(FD, Ctx, Index, Limits, Visit, {this, Captures.get()},
                         nullptr, OnExit, Assume)
      .ok();
}

} // namespace analysis
} // namespace meshguard
