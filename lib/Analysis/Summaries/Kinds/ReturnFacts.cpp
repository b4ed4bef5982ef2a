//===--- ReturnFacts.cpp - "ret": what a function returns -----------------===//
//
// "plain" or "dtensor" when every return of the function gives one (with
// the call inside it that decided it, for notes, when they all agree);
// absent when they differ or are unknown.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
/// What every return of a function returning a tensor gives.
class ReturnCollector final : public SummaryCollector {
public:
  void visit(const Stmt &S, const Environment &Env, const OriginTable &Origins,
             FunctionSummary &) override {
    const auto *Ret = dyn_cast<ReturnStmt>(&S);
    const Expr *RV = Ret ? Ret->getRetValue() : nullptr;
    if (!RV)
      return;
    ++Returns;
    std::optional<OperandReading> R = readOperand({RV, false}, Env, Origins);
    Provenance P = R ? R->Fact.P : Provenance::Unknown;
    AllPlain &= P == Provenance::Plain;
    AllDTensor &= P == Provenance::DTensor;
    const Expr *Origin = R ? R->Fact.Origin : nullptr;
    if (Returns == 1)
      CommonOrigin = Origin;
    else if (Origin != CommonOrigin)
      OriginsAgree = false;
  }

  void finish(FunctionSummary &Out) override {
    if (Returns > 0 && (AllPlain || AllDTensor)) {
      Out.Return = AllPlain ? Provenance::Plain : Provenance::DTensor;
      Out.ReturnOrigin = OriginsAgree ? CommonOrigin : nullptr;
    }
  }

private:
  unsigned Returns = 0;
  bool AllPlain = true, AllDTensor = true;
  const Expr *CommonOrigin = nullptr;
  bool OriginsAgree = true;
};

class ReturnKind final : public FactKind {
public:
  std::unique_ptr<SummaryCollector>
  collector(const SummaryInputs &In) const override {
    if (!In.ReturnsTensor)
      return nullptr;
    return std::make_unique<ReturnCollector>();
  }

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

  bool read(const llvm::json::Value &V, llvm::json::Path P, const PlaceReader &,
            StoredSummary &Out) const override {
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
