//===--- CheckpointSinkFacts.cpp - "ckpt": parameters libtorch saves ------===//
//
// A tensor or container parameter that alone makes a libtorch serialization
// call inside the function (torch::save, OutputArchive::write, torch::load)
// be given a DTensor (dtensor-unsharded-checkpoint): {"p": parameter,
// "load": true for torch::load, "at": the call}. Through helpers too (a
// parameter handed on to a helper's sink).
//
//===----------------------------------------------------------------------===//

#include "Summaries/ArgumentReadings.h"
#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Facts/CheckpointSites.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// An input is a checkpoint sink when "the input is (holds) a DTensor"
/// implies "the call is given a DTensor", and can hold there.
class CheckpointSinkCollector final : public SummaryCollector {
public:
  explicit CheckpointSinkCollector(const SummaryInputs &In) : In(In) {}

  void visit(const Stmt &S, const Environment &Env, const OriginTable &Origins,
             FunctionSummary &Out) override {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    const ApiIndex &Index = In.Provider.index();
    if (std::optional<std::pair<CheckpointCall, unsigned>> Kind =
            checkpointCall(Call->getDirectCallee())) {
      const Expr *Arg = Kind->second < Call->getNumArgs()
                            ? Call->getArg(Kind->second)
                            : nullptr;
      // Modules' facts would need their own runs (as the collective sinks'
      // do): not summarised.
      if (Arg && !Index.isModuleType(Arg->getType()))
        if (const Formula *Target = anyDTensor(Arg, false, Index, Env, Origins))
          add(*Target, {0, Call, Kind->first == CheckpointCall::Load, nullptr},
              Env, Out);
      return;
    }
    In.Provider.forEachCheckpointSinkArgument(
        *Call, [&](const CheckpointSinkFact &Inner, const Expr *Arg) {
          if (const Formula *Target =
                  anyDTensor(Arg, false, Index, Env, Origins))
            add(*Target, Inner, Env, Out);
        });
  }

private:
  void add(const Formula &Target, const CheckpointSinkFact &Site,
           const Environment &Env, FunctionSummary &Out) {
    if (Env.proves(Target))
      return; // A DTensor anyway: the function's own finding.
    Arena &A = Env.arena();
    for (const DTensorInput &P : In.DTensors)
      if (Env.proves(A.makeImplies(*P.IsDTensor, Target)) &&
          Env.allows(*P.IsDTensor) && Seen.insert({P.Index, Site.key()}).second)
        Out.CheckpointSinks.push_back(
            {P.Index, Site.Call, Site.Load, Site.Elsewhere});
  }

  SummaryInputs In;
  /// (input, call or place) pairs already recorded.
  llvm::DenseSet<std::pair<unsigned, const void *>> Seen;
};

class CheckpointSinkKind final : public FactKind {
public:
  std::unique_ptr<SummaryCollector>
  collector(const SummaryInputs &In) const override {
    if (In.DTensors.empty())
      return nullptr;
    return std::make_unique<CheckpointSinkCollector>(In);
  }

  llvm::StringLiteral key() const override { return "ckpt"; }
  std::optional<SummaryFactKind> checkKind() const override {
    return SummaryFactKind::CheckpointSinks;
  }

  llvm::json::Value write(const ExportedFunction &F) const override {
    llvm::json::Array A;
    for (const CheckpointSinkFact &Fact : F.Summary.CheckpointSinks) {
      llvm::json::Value At = F.Places.place(Fact.Call, Fact.Elsewhere);
      if (At.kind() != llvm::json::Value::Null)
        A.push_back(llvm::json::Object{
            {"p", Fact.Param}, {"load", Fact.Load}, {"at", std::move(At)}});
    }
    return A.empty() ? llvm::json::Value(nullptr) : std::move(A);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    return readFactArray(
        V, P, [&](const llvm::json::Value &Fact, llvm::json::Path FactPath) {
          llvm::json::ObjectMapper O(Fact, FactPath);
          StoredCheckpointSink S;
          if (!O || !O.mapOptional("load", S.Load))
            return false;
          const llvm::json::Object &Fields = *Fact.getAsObject();
          if (!readParam(Fields.get("p"), FactPath.field("p"), S.Param) ||
              !Places.read(Fields.get("at"), FactPath.field("at"), S.At))
            return false;
          Out.CheckpointSinks.push_back(std::move(S));
          return true;
        });
  }

  bool has(const StoredSummary &S) const override {
    return !S.CheckpointSinks.empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (const StoredCheckpointSink &S : F.Stored.CheckpointSinks)
      if (S.Param < F.Params)
        Out.CheckpointSinks.push_back(
            {S.Param, nullptr, S.Load, F.Place(S.At)});
  }
};
} // namespace

const FactKind &checkpointSinkFacts() {
  static const CheckpointSinkKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
