//===--- CollectiveSinkFacts.cpp - "sinks", "pg": reaching a collective ---===//
//
// Two kinds that differ only in the collective they reach, so one template:
//   "sinks": a parameter that alone decides whether a mesh-inferred
//            collective has a DeviceMesh (dtensor-collective-without-mesh);
//   "pg":    a parameter that alone hands a DTensor to a raw process-group
//            collective (dtensor-process-group-misuse).
// Each fact: {"p": parameter, "entry": the model entry's qualified function
// name, "module": true for a module parameter, "at": the collective}.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

namespace {

template <typename EntryT, typename SummaryFacts>
class CollectiveSinkKind final : public FactKind {
public:
  CollectiveSinkKind(llvm::StringLiteral Key, SummaryFactKind Kind,
                     SummaryFacts FunctionSummary::*Facts,
                     std::vector<StoredSink> StoredSummary::*Stored,
                     const std::vector<EntryT> ApiModel::*Entries)
      : Key(Key), Kind(Kind), Facts(Facts), Stored(Stored), Entries(Entries) {
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
            const PlaceReader &Places,
            StoredSummary &Out) const override {
    const llvm::json::Array *A = V.getAsArray();
    if (!A) {
      P.report("expected an array");
      return false;
    }
    for (size_t I = 0; I < A->size(); ++I) {
      llvm::json::Path FactPath = P.index(I);
      llvm::json::ObjectMapper O((*A)[I], FactPath);
      StoredSink S;
      if (!O || !O.map("entry", S.Entry) ||
          !O.mapOptional("module", S.IsModule))
        return false;
      const llvm::json::Object &Fields = *(*A)[I].getAsObject();
      if (!readParam(Fields.get("p"), FactPath.field("p"), S.Param) ||
          !Places.read(Fields.get("at"), FactPath.field("at"), S.At))
        return false;
      (Out.*Stored).push_back(std::move(S));
    }
    return true;
  }

  bool has(const StoredSummary &S) const override {
    return !(S.*Stored).empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (const StoredSink &S : F.Stored.*Stored)
      if (S.Param < F.Params)
        if (const EntryT *E = entryNamed(F.Model, S.Entry))
          (Out.*Facts).push_back(
              {S.Param, nullptr, E, S.IsModule, F.Place(S.At)});
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
};

} // namespace

const FactKind &meshSinkFacts() {
  static const CollectiveSinkKind Kind(
      "sinks", SummaryFactKind::MeshSinks, &FunctionSummary::Sinks,
      &StoredSummary::Sinks, &ApiModel::MeshCollectives);
  return Kind;
}

const FactKind &processGroupSinkFacts() {
  static const CollectiveSinkKind Kind(
      "pg", SummaryFactKind::ProcessGroupSinks,
      &FunctionSummary::ProcessGroupSinks, &StoredSummary::ProcessGroupSinks,
      &ApiModel::ProcessGroupCollectives);
  return Kind;
}

} // namespace analysis
} // namespace meshguard
