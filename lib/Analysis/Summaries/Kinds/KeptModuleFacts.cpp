//===--- KeptModuleFacts.cpp - "kept": module parameters left as they were
//-===//
//
// The module parameters the function surely neither distributes nor hands
// to code that might: a caller keeps what it knew about them.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

namespace {
class KeptModuleKind final : public FactKind {
public:
  llvm::StringLiteral key() const override { return "kept"; }

  llvm::json::Value write(const ExportedFunction &F) const override {
    if (F.Summary.KeptModules.empty())
      return nullptr;
    return llvm::json::Array(F.Summary.KeptModules);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P, const PlaceReader &,
            StoredSummary &Out) const override {
    const llvm::json::Array *A = V.getAsArray();
    if (!A) {
      P.report("expected an array");
      return false;
    }
    for (size_t I = 0; I < A->size(); ++I)
      if (!readParam(&(*A)[I], P.index(I), Out.KeptModules.emplace_back()))
        return false;
    return true;
  }

  bool has(const StoredSummary &S) const override {
    return !S.KeptModules.empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (unsigned P : F.Stored.KeptModules)
      if (P < F.Params)
        Out.KeptModules.push_back(P);
  }
};
} // namespace

const FactKind &keptModuleFacts() {
  static const KeptModuleKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
