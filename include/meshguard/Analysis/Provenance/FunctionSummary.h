//===--- FunctionSummary.h - What a call of a function can rely on --------===//
//
// The facts a function's summary carries (Summaries/Summaries.h computes
// them in the TU, the summary database carries them across files), and the
// interface through which the provenance run asks for them at a call: the
// run does not know how summaries are made (SummaryProvider, a layer above,
// makes them by running the same analysis on the callee; the interface is
// what breaks the cycle, and why this header is the provenance layer's).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_FUNCTIONSUMMARY_H
#define MESHGUARD_ANALYSIS_FUNCTIONSUMMARY_H

#include "meshguard/Analysis/Api/ApiModel.h"
#include "meshguard/Analysis/Provenance/Provenance.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace meshguard {
namespace analysis {

/// A place inside a summarised function of another translation unit (the
/// collective or tensor op a fact is about), for notes.
struct ExternalSite {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  /// The summarised function the caller calls (for "inside 'sync' ...").
  std::string Function;
  /// The place is in another file than Function's definition: inside a
  /// function it calls (a chain across files).
  bool InCallee = false;
};

/// A parameter that alone decides what a collective gets:
///  - SinkFact (mesh-inferred collectives): when the argument is a plain
///    tensor, the collective has no mesh;
///  - ProcessGroupSinkFact (raw process-group collectives): when the
///    argument is (or holds) a DTensor, or is a module given to
///    distribute_module, so is what the collective gets.
template <typename EntryT> struct CollectiveSinkFact {
  unsigned Param;
  /// The collective call (possibly in a callee of the summarised function).
  const clang::CallExpr *Collective;
  const EntryT *Entry;
  /// The parameter is a module: "plain" means "never distributed".
  bool IsModule = false;
  /// For a fact from the summary database: where the collective is (then
  /// Collective is null).
  const ExternalSite *Elsewhere = nullptr;
  const void *key() const {
    return Collective ? static_cast<const void *>(Collective) : Elsewhere;
  }
};
using SinkFact = CollectiveSinkFact<MeshCollectiveEntry>;
using ProcessGroupSinkFact = CollectiveSinkFact<ProcessGroupCollectiveEntry>;

/// A tensor parameter that alone makes a tensor op inside mix a DTensor with
/// a plain tensor: given a DTensor (AsDTensor) when the op's other operand is
/// surely plain, or given a plain tensor when the other is surely a DTensor.
struct MixedOpSinkFact {
  unsigned Param;
  const clang::CallExpr *Op;
  bool AsDTensor;
  /// As SinkFact::Elsewhere (then Op is null).
  const ExternalSite *Elsewhere = nullptr;
  const void *key() const {
    return Op ? static_cast<const void *>(Op) : Elsewhere;
  }
};

/// A tensor or container parameter that alone makes a libtorch
/// serialization call inside the function (torch::save, OutputArchive::write,
/// torch::load) be given a DTensor (dtensor-unsharded-checkpoint).
struct CheckpointSinkFact {
  unsigned Param;
  const clang::CallExpr *Call;
  /// torch::load (else a save).
  bool Load;
  /// As SinkFact::Elsewhere (then Call is null).
  const ExternalSite *Elsewhere = nullptr;
  const void *key() const {
    return Call ? static_cast<const void *>(Call) : Elsewhere;
  }
};

struct FunctionSummary {
  Provenance Return = Provenance::Unknown;
  const clang::Expr *ReturnOrigin = nullptr;
  llvm::SmallVector<SinkFact, 2> Sinks;
  llvm::SmallVector<ProcessGroupSinkFact, 1> ProcessGroupSinks;
  llvm::SmallVector<MixedOpSinkFact, 1> MixedOpSinks;
  llvm::SmallVector<CheckpointSinkFact, 1> CheckpointSinks;
  /// Module parameters the function surely leaves as they were (neither
  /// distributed nor handed to code that might): callers keep what they knew.
  llvm::SmallVector<unsigned, 2> KeptModules;

  bool keepsModule(unsigned Param) const {
    return llvm::is_contained(KeptModules, Param);
  }
};

/// The summaries a provenance run reads at calls of functions the API
/// model does not describe.
class CalleeSummaries {
public:
  virtual ~CalleeSummaries() = default;
  /// The summary of \p FD, or null when there is none (unknown).
  virtual const FunctionSummary *get(const clang::FunctionDecl *FD) = 0;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_FUNCTIONSUMMARY_H
