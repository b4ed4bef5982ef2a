//===--- FactKinds.cpp - The kinds of summary facts, and their places -----===//

#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

llvm::ArrayRef<const FactKind *> factKinds() {
  // A new kind of fact: one file beside the analysis that computes it
  // (Facts/, Placements/, Divergence/, or Kinds/ for the provenance run's
  // own) and one line here.
  static const FactKind *const Kinds[] = {
      &returnFacts(),      &meshSinkFacts(),       &processGroupSinkFacts(),
      &mixedOpSinkFacts(), &keptModuleFacts(),     &collectiveFacts(),
      &placementFacts(),   &checkpointSinkFacts(),
  };
  return Kinds;
}

bool PlaceReader::read(const llvm::json::Value *V, llvm::json::Path P,
                       ExternalSite &At) const {
  const llvm::json::Array *A = V ? V->getAsArray() : nullptr;
  std::optional<int64_t> File, Line, Column;
  if (A && A->size() == 3) {
    File = (*A)[0].getAsInteger();
    Line = (*A)[1].getAsInteger();
    Column = (*A)[2].getAsInteger();
  }
  if (!File || !Line || !Column || *File < 0 ||
      static_cast<size_t>(*File) >= Files.size() || *Line < 1 || *Column < 1 ||
      *Line > UINT32_MAX || *Column > UINT32_MAX) {
    P.report("expected [file index, line, column]");
    return false;
  }
  At = {Files[*File].first, static_cast<unsigned>(*Line),
        static_cast<unsigned>(*Column), Function.str()};
  // In another file than the function's: inside a function it calls.
  At.InCallee = At.File != FunctionFile;
  return true;
}

bool readFactArray(
    const llvm::json::Value &V, llvm::json::Path P,
    llvm::function_ref<bool(const llvm::json::Value &, llvm::json::Path)>
        ReadOne) {
  const llvm::json::Array *A = V.getAsArray();
  if (!A) {
    P.report("expected an array");
    return false;
  }
  for (size_t I = 0; I < A->size(); ++I)
    if (!ReadOne((*A)[I], P.index(I)))
      return false;
  return true;
}

bool readParam(const llvm::json::Value *V, llvm::json::Path P, unsigned &Out) {
  std::optional<int64_t> N = V ? V->getAsInteger() : std::nullopt;
  if (!N || *N < 0 || *N > 65535) {
    P.report("expected a parameter index");
    return false;
  }
  Out = static_cast<unsigned>(*N);
  return true;
}

} // namespace analysis
} // namespace meshguard
