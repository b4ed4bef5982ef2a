//===--- MixedOpSinkFacts.cpp - "mixed": parameters that make an op mix ---===//
//
// A tensor parameter that alone makes a tensor op inside the function mix a
// DTensor with a plain tensor (dtensor-mixed-tensor-op): {"p": parameter,
// "dtensor": true when it mixes given a DTensor (false: given a plain
// tensor), "at": the op}.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

namespace {
class MixedOpSinkKind final : public FactKind {
public:
  llvm::StringLiteral key() const override { return "mixed"; }
  std::optional<SummaryFactKind> checkKind() const override {
    return SummaryFactKind::MixedOpSinks;
  }

  llvm::json::Value write(const ExportedFunction &F) const override {
    llvm::json::Array A;
    for (const MixedOpSinkFact &Fact : F.Summary.MixedOpSinks) {
      llvm::json::Value At = F.Places.place(Fact.Op, Fact.Elsewhere);
      if (At.kind() != llvm::json::Value::Null)
        A.push_back(llvm::json::Object{{"p", Fact.Param},
                                       {"dtensor", Fact.AsDTensor},
                                       {"at", std::move(At)}});
    }
    return A.empty() ? llvm::json::Value(nullptr) : std::move(A);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    const llvm::json::Array *A = V.getAsArray();
    if (!A) {
      P.report("expected an array");
      return false;
    }
    for (size_t I = 0; I < A->size(); ++I) {
      llvm::json::Path FactPath = P.index(I);
      llvm::json::ObjectMapper O((*A)[I], FactPath);
      StoredMixedOpSink S;
      if (!O || !O.mapOptional("dtensor", S.AsDTensor))
        return false;
      const llvm::json::Object &Fields = *(*A)[I].getAsObject();
      if (!readParam(Fields.get("p"), FactPath.field("p"), S.Param) ||
          !Places.read(Fields.get("at"), FactPath.field("at"), S.At))
        return false;
      Out.MixedOpSinks.push_back(std::move(S));
    }
    return true;
  }

  bool has(const StoredSummary &S) const override {
    return !S.MixedOpSinks.empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (const StoredMixedOpSink &S : F.Stored.MixedOpSinks)
      if (S.Param < F.Params)
        Out.MixedOpSinks.push_back(
            {S.Param, nullptr, S.AsDTensor, F.Place(S.At)});
  }
};
} // namespace

const FactKind &mixedOpSinkFacts() {
  static const MixedOpSinkKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
