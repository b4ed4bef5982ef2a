//===--- CheckpointSites.cpp - libtorch serialization of DTensors ---------===//

#include "meshguard/Analysis/Facts/CheckpointSites.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include <optional>

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// \p E without parentheses, implicit casts, temporaries and copies.
const Expr *stripCopies(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const Expr *Source = copySource(E))
      E = Source;
    else
      return E;
  }
  return E;
}

class CheckpointCollector : public SiteList<CheckpointSite> {
public:
  CheckpointCollector(const ApiIndex &Index, SummaryProvider *Summaries,
                      std::vector<CheckpointSite> &Sites)
      : SiteList(Sites), Index(Index), Summaries(Summaries) {}

  void onCall(const CallExpr &Call, const Environment &Env,
              const OriginTable &Origins) override {
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (isToLocal(&Call)) {
      noteToLocal(Call, Env, Origins);
      return;
    }
    std::optional<std::pair<CheckpointCall, unsigned>> Kind =
        checkpointCall(Callee);
    if (!Kind) {
      if (Summaries)
        Summaries->forEachCheckpointSinkArgument(
            Call, [&](const CheckpointSinkFact &Sink, const Expr *Arg) {
              callThrough(Call, Sink, Arg, Env, Origins);
            });
      return;
    }
    if (Kind->second >= Call.getNumArgs())
      return;
    CheckpointSite Site;
    Site.Call = &Call;
    Site.Kind = Kind->first;
    Site.Value = Call.getArg(Kind->second);
    if (Index.isModuleType(Site.Value->getType())) {
      Site.What = CheckpointValue::Module;
      if (std::optional<OperandReading> R =
              readModuleOperand(Site.Value, Env, Index)) {
        Site.Distributed = dtensorPresence(*R, Env) == DTensorPresence::Surely;
        Site.Origin = R->Fact.Origin;
      }
      Site.Operand = Site.Value;
      Sites.push_back(Site);
      return;
    }
    for (const TensorOperand &Op : tensorOperands(Site.Value, Index).Items) {
      std::optional<OperandReading> R = readOperand(Op, Env, Origins);
      if (!R)
        continue;
      Site.Operand = Op.E;
      Site.IsContainer = Op.IsContainer;
      if (dtensorPresence(*R, Env) == DTensorPresence::Surely) {
        Site.What = CheckpointValue::DTensor;
        Site.Origin = R->Fact.Origin;
        Sites.push_back(Site);
        return;
      }
      if (Op.IsContainer)
        continue;
      // The to_local() call itself, or the one the variable comes from.
      const auto *ToLocal = dyn_cast_or_null<CallExpr>(stripCopies(Op.E));
      if (!isToLocal(ToLocal))
        ToLocal = dyn_cast_or_null<CallExpr>(R->Fact.Origin);
      if (ToLocal && DTensorLocals.contains(ToLocal)) {
        Site.What = CheckpointValue::LocalShard;
        Site.Origin = ToLocal;
        Sites.push_back(Site);
        return;
      }
    }
  }

private:
  /// A call of a helper that saves (loads into) \p Arg: a site when the
  /// argument is surely a DTensor (or holds one).
  void callThrough(const CallExpr &Call, const CheckpointSinkFact &Sink,
                   const Expr *Arg, const Environment &Env,
                   const OriginTable &Origins) {
    for (const TensorOperand &Op : tensorOperands(Arg, Index).Items) {
      std::optional<OperandReading> R = readOperand(Op, Env, Origins);
      if (!R || dtensorPresence(*R, Env) != DTensorPresence::Surely)
        continue;
      CheckpointSite Site;
      Site.Call = &Call;
      Site.Kind = Sink.Load ? CheckpointCall::Load : CheckpointCall::Save;
      Site.Value = Arg;
      Site.Operand = Op.E;
      Site.IsContainer = Op.IsContainer;
      Site.Origin = R->Fact.Origin;
      Site.Inner = Sink.Call;
      Site.InnerElsewhere = Sink.Elsewhere;
      Sites.push_back(Site);
      return;
    }
  }

  bool isToLocal(const CallExpr *Call) const {
    const PlacementCallEntry *E =
        Call ? Index.placementCall(Call->getDirectCallee()) : nullptr;
    return E && E->Role == PlacementRole::LocalTensor && Call->getNumArgs();
  }

  /// Remembers a to_local() of a tensor that is surely a DTensor.
  void noteToLocal(const CallExpr &Call, const Environment &Env,
                   const OriginTable &Origins) {
    std::optional<OperandReading> R =
        readOperand({Call.getArg(0), false}, Env, Origins);
    if (R && dtensorPresence(*R, Env) == DTensorPresence::Surely)
      DTensorLocals.insert(&Call);
  }

  const ApiIndex &Index;
  SummaryProvider *Summaries;
  llvm::DenseSet<const CallExpr *> DTensorLocals;
};

} // namespace

std::optional<std::pair<CheckpointCall, unsigned>>
checkpointCall(const FunctionDecl *FD) {
  // Every call of every analysed function comes here: the short name
  // first, the qualified one only for these three.
  if (!FD || !FD->getDeclName().isIdentifier() ||
      !llvm::is_contained({"save", "load", "write"}, FD->getName()))
    return std::nullopt;
  std::string Name = FD->getQualifiedNameAsString();
  if (Name == "torch::save")
    return std::make_pair(CheckpointCall::Save, 0u);
  if (Name == "torch::load")
    return std::make_pair(CheckpointCall::Load, 0u);
  // write(key, tensor, is_buffer); the other overloads take no tensor.
  if (Name == "torch::serialize::OutputArchive::write")
    return std::make_pair(CheckpointCall::ArchiveWrite, 1u);
  return std::nullopt;
}

std::unique_ptr<SiteCollector>
collectCheckpointCalls(const ApiIndex &Index, SummaryProvider *Summaries,
                       std::vector<CheckpointSite> &Sites) {
  return std::make_unique<CheckpointCollector>(Index, Summaries, Sites);
}

} // namespace analysis
} // namespace meshguard
