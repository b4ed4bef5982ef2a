//===--- ReturnFacts.cpp - "ret": what a function returns -----------------===//
//
// "plain" or "dtensor" when every return of the function gives one; absent
// when they differ or are unknown.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

namespace {
class ReturnKind final : public FactKind {
public:
  llvm::StringLiteral key() const override { return "ret"; }

  llvm::json::Value write(const ExportedFunction &F) const override {
    switch (F.Summary.Return) {
    case Provenance::Plain:
      return "plain";
    case Provenance::DTensor:
      return "dtensor";
    default:
      return nullptr;
    }
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &, StoredSummary &Out) const override {
    std::optional<llvm::StringRef> Ret = V.getAsString();
    if (Ret && *Ret == "plain")
      Out.Return = Provenance::Plain;
    else if (Ret && *Ret == "dtensor")
      Out.Return = Provenance::DTensor;
    else
      P.report("expected \"plain\" or \"dtensor\"");
    return Ret && (*Ret == "plain" || *Ret == "dtensor");
  }

  bool has(const StoredSummary &S) const override {
    return S.Return != Provenance::Unknown;
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    if (F.Stored.Return == Provenance::Plain ||
        F.Stored.Return == Provenance::DTensor)
      Out.Return = F.Stored.Return;
  }
};
} // namespace

const FactKind &returnFacts() {
  static const ReturnKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
