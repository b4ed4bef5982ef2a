//===--- CollectiveSinkFacts.cpp - "sinks", "pg": reaching a collective ---===//
//
// Two kinds that differ only in the collective they reach, so one template:
//   "sinks": a parameter that alone decides whether a mesh-inferred
//            collective has a DeviceMesh (dtensor-collective-without-mesh);
//   "pg":    a parameter that alone hands a DTensor to a raw process-group
//            collective (dtensor-process-group-misuse).
// Module parameters' facts come from their own runs
// (SummaryProvider::addModuleParameterFacts); the collectors here find
// those of tensor and container inputs. Each fact: {"p": parameter, "entry":
// the model entry's qualified function name, "module": true for a module
// parameter, "at": the collective}.
//
//===----------------------------------------------------------------------===//

#include "Summaries/ArgumentReadings.h"
#include "Summaries/FactKind.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// (input, site) pairs already recorded.
using SeenSinks = llvm::DenseSet<std::pair<unsigned, const void *>>;

/// A tensor input is a sink of a collective when "the input is plain"
/// implies "every tensor argument of the collective is plain", and the
/// collective can be reached with it plain (not behind `if
/// (is_dtensor(g))`).
class MeshSinkCollector final : public SummaryCollector {
public:
  explicit MeshSinkCollector(const SummaryInputs &In) : In(In) {}

  void visit(const Stmt &S, const Environment &Env, const OriginTable &Origins,
             FunctionSummary &Out) override {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    In.Provider.forEachCollectiveArgument(
        *Call, [&](const SinkFact &Site, const Expr *Arg) {
          if (const Formula *Target = allPlainAndKnown(
                  Arg, Site.IsModule, In.Provider.index(), Env, Origins))
            add(*Target, Site, Env, Out);
        });
  }

private:
  void add(const Formula &Target, const SinkFact &Site, const Environment &Env,
           FunctionSummary &Out) {
    if (Env.proves(Target))
      return; // Plain anyway: the direct diagnostic covers it.
    Arena &A = Env.arena();
    for (const TensorInputAtoms &P : In.Tensors) {
      const Formula &ParamPlain = A.makeAnd(*P.Plain, *P.Known);
      if (Env.proves(A.makeImplies(ParamPlain, Target)) &&
          Env.allows(ParamPlain) && Seen.insert({P.Index, Site.key()}).second)
        Out.Sinks.push_back(
            {P.Index, Site.Collective, Site.Entry, false, Site.Elsewhere});
    }
  }

  SummaryInputs In;
  SeenSinks Seen;
};

/// A tensor or container input is a process-group sink when "the input is
/// (holds) a DTensor" implies "the collective is given a DTensor", and can
/// hold there.
class ProcessGroupSinkCollector final : public SummaryCollector {
public:
  explicit ProcessGroupSinkCollector(const SummaryInputs &In) : In(In) {}

  void visit(const Stmt &S, const Environment &Env, const OriginTable &Origins,
             FunctionSummary &Out) override {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    In.Provider.forEachProcessGroupArgument(
        *Call, [&](const ProcessGroupSinkFact &Site, const Expr *Arg) {
          if (const Formula *Target = anyDTensor(
                  Arg, Site.IsModule, In.Provider.index(), Env, Origins))
            add(*Target, Site, Env, Out);
        });
  }

private:
  void add(const Formula &Target, const ProcessGroupSinkFact &Site,
           const Environment &Env, FunctionSummary &Out) {
    if (Env.proves(Target))
      return; // A DTensor anyway: the direct diagnostic covers it.
    Arena &A = Env.arena();
    for (const DTensorInput &P : In.DTensors)
      if (Env.proves(A.makeImplies(*P.IsDTensor, Target)) &&
          Env.allows(*P.IsDTensor) && Seen.insert({P.Index, Site.key()}).second)
        Out.ProcessGroupSinks.push_back(
            {P.Index, Site.Collective, Site.Entry, false, Site.Elsewhere});
  }

  SummaryInputs In;
  SeenSinks Seen;
};

template <typename EntryT, typename SummaryFacts>
class CollectiveSinkKind final : public FactKind {
public:
  /// \p Collect: the kind's collector, for a function with inputs it can
  /// be about (null: none).
  using CollectorFactory =
      std::unique_ptr<SummaryCollector> (*)(const SummaryInputs &);
  CollectiveSinkKind(llvm::StringLiteral Key, SummaryFactKind Kind,
                     SummaryFacts FunctionSummary::*Facts,
                     std::vector<StoredSink> StoredSummary::*Stored,
                     const std::vector<EntryT> ApiModel::*Entries,
                     CollectorFactory Collect)
      : Key(Key), Kind(Kind), Facts(Facts), Stored(Stored), Entries(Entries),
        Collect(Collect) {}

  std::unique_ptr<SummaryCollector>
  collector(const SummaryInputs &In) const override {
    return Collect(In);
  }

  llvm::StringLiteral key() const override { return Key; }
  std::optional<SummaryFactKind> checkKind() const override { return Kind; }

  llvm::json::Value write(const ExportedFunction &F) const override {
    llvm::json::Array A;
    for (const auto &Fact : F.Summary.*Facts) {
      llvm::json::Value At = F.Places.place(Fact.Collective, Fact.Elsewhere);
      if (At.kind() == llvm::json::Value::Null)
        continue;
      llvm::json::Object O{{"p", Fact.Param},
                           {"entry", Fact.Entry->Function},
                           {"at", std::move(At)}};
      if (Fact.IsModule)
        O["module"] = true;
      A.push_back(std::move(O));
    }
    return A.empty() ? llvm::json::Value(nullptr) : std::move(A);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    return readFactArray(
        V, P, [&](const llvm::json::Value &Fact, llvm::json::Path FactPath) {
          llvm::json::ObjectMapper O(Fact, FactPath);
          StoredSink S;
          if (!O || !O.map("entry", S.Entry) ||
              !O.mapOptional("module", S.IsModule))
            return false;
          const llvm::json::Object &Fields = *Fact.getAsObject();
          if (!readParam(Fields.get("p"), FactPath.field("p"), S.Param) ||
              !Places.read(Fields.get("at"), FactPath.field("at"), S.At))
            return false;
          (Out.*Stored).push_back(std::move(S));
          return true;
        });
  }

  bool has(const StoredSummary &S) const override {
    return !(S.*Stored).empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (const StoredSink &S : F.Stored.*Stored)
      if (S.Param < F.Params)
        if (const EntryT *E = entryNamed(F.Model, S.Entry))
          (Out.*Facts)
              .push_back({S.Param, nullptr, E, S.IsModule, F.Place(S.At)});
  }

private:
  /// The model's entry for \p Name (null: the model no longer has it).
  const EntryT *entryNamed(const ApiModel &Model, llvm::StringRef Name) const {
    for (const EntryT &E : Model.*Entries)
      if (E.Function == Name)
        return &E;
    return nullptr;
  }

  llvm::StringLiteral Key;
  SummaryFactKind Kind;
  SummaryFacts FunctionSummary::*Facts;
  std::vector<StoredSink> StoredSummary::*Stored;
  const std::vector<EntryT> ApiModel::*Entries;
  CollectorFactory Collect;
};

} // namespace

const FactKind &meshSinkFacts() {
  static const CollectiveSinkKind Kind(
      "sinks", SummaryFactKind::MeshSinks, &FunctionSummary::Sinks,
      &StoredSummary::Sinks, &ApiModel::MeshCollectives,
      [](const SummaryInputs &In) -> std::unique_ptr<SummaryCollector> {
        if (In.Tensors.empty())
          return nullptr;
        return std::make_unique<MeshSinkCollector>(In);
      });
  return Kind;
}

const FactKind &processGroupSinkFacts() {
  static const CollectiveSinkKind Kind(
      "pg", SummaryFactKind::ProcessGroupSinks,
      &FunctionSummary::ProcessGroupSinks, &StoredSummary::ProcessGroupSinks,
      &ApiModel::ProcessGroupCollectives,
      [](const SummaryInputs &In) -> std::unique_ptr<SummaryCollector> {
        if (In.DTensors.empty())
          return nullptr;
        return std::make_unique<ProcessGroupSinkCollector>(In);
      });
  return Kind;
}

} // namespace analysis
} // namespace meshguard
