//===--- FactKind.h - One kind of summary fact at the database's edges ----===//
//
// A kind of summary fact (what a function returns, which parameters reach a
// mesh-inferred collective, ...) is collected from the function's one
// provenance run (SummaryProvider's builder hands each statement to every
// kind's collector), and crosses a translation unit's boundary in three
// steps: the export writes it as one field of the function's JSON entry,
// the database reads that field back (with llvm::json's Path errors), and a
// TU calling the function imports it as the facts its sites use. Each kind
// does all four in one file, beside the analysis that computes it (the sink
// kinds in Facts/, "coll" in Divergence/, "plc" in Placements/, the
// provenance run's own in Summaries/Kinds/), and is named once in the list
// factKinds() returns (FactKinds.cpp); the builder, the exporter, the
// reader and the importer only walk that list.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_SUMMARIES_FACTKIND_H
#define MESHGUARD_LIB_ANALYSIS_SUMMARIES_FACTKIND_H

#include "meshguard/Analysis/Summaries/Summaries.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace meshguard {
namespace analysis {

class DivergenceMemo;
class PlacementMemo;

/// Where the export's facts point: a call of this TU, or a place a summary
/// of another file gave (then the call is null). Places are written as
/// [file index, line, column] of the file's "files" table.
class PlaceWriter {
public:
  virtual ~PlaceWriter() = default;
  /// Null when the place is nowhere on disk (a fact with no place to point
  /// a note at is left out: the caller does not know).
  virtual llvm::json::Value place(const clang::Expr *Call,
                                  const ExternalSite *Elsewhere) = 0;
};

/// A parameter a function wraps as a replica without run_check (a fact of
/// the rank-divergence analysis that the placements' "plc" field carries).
struct ExportedReplica {
  unsigned Param;
  const clang::CallExpr *FromLocal;
  const ExternalSite *Elsewhere;
};

/// What a kind's writer is given for one function of the main file. The
/// engine fills it (Engine/SummaryExport.cpp): the memos are the ones its
/// checks asked.
struct ExportedFunction {
  const clang::FunctionDecl &FD;
  /// Its summary (empty when the analysis hit a limit).
  const FunctionSummary &Summary;
  /// The rank-divergence memo, for the collective it performs.
  DivergenceMemo &Divergence;
  /// The placement memo, for what it returns and uses as full values.
  PlacementMemo &Placements;
  PlaceWriter &Places;
  /// The parameters it wraps as replicas without run_check, asked of the
  /// rank-divergence memo when called (a layer the placements' kind is
  /// below).
  llvm::function_ref<std::vector<ExportedReplica>()> Replicas;
};

/// Reads places back: [file index, line, column] of the file being read.
class PlaceReader {
public:
  /// \p Files: the file's "files" table; \p Function and \p FunctionFile:
  /// the entry being read (for ExternalSite::Function and InCallee).
  PlaceReader(const std::vector<std::pair<std::string, std::string>> &Files,
              llvm::StringRef Function, llvm::StringRef FunctionFile)
      : Files(Files), Function(Function), FunctionFile(FunctionFile) {}
  /// False (reported on \p P) unless \p V is a place of this file.
  bool read(const llvm::json::Value *V, llvm::json::Path P,
            ExternalSite &At) const;

private:
  const std::vector<std::pair<std::string, std::string>> &Files;
  llvm::StringRef Function, FunctionFile;
};

/// What a kind's importer is given for one entry of another TU.
struct ImportedFunction {
  const StoredSummary &Stored;
  /// The callee's parameter count here: a fact about a parameter the
  /// declaration does not have is dropped.
  unsigned Params;
  const ApiModel &Model;
  /// Keeps \p At alive for the TU's notes; the pointer facts hold.
  llvm::function_ref<const ExternalSite *(const ExternalSite &At)> Place;
};

/// A tensor input of the function being summarised (a parameter, or a
/// variable a lambda captures by reference), as atoms of its entry state.
struct TensorInputAtoms {
  unsigned Index;
  const clang::dataflow::Formula *Plain;
  const clang::dataflow::Formula *Known;
};

/// A tensor or container input as "it is (holds) a DTensor".
struct DTensorInput {
  unsigned Index;
  const clang::dataflow::Formula *IsDTensor;
};

/// What a collector sees of the function being summarised.
struct SummaryInputs {
  SummaryProvider &Provider;
  bool ReturnsTensor;
  llvm::ArrayRef<TensorInputAtoms> Tensors;
  llvm::ArrayRef<DTensorInput> DTensors;
};

/// Collects one kind's facts from one function's provenance run.
class SummaryCollector {
public:
  virtual ~SummaryCollector() = default;
  /// Each statement of the CFG, in the state before it.
  virtual void visit(const clang::Stmt &S,
                     const clang::dataflow::Environment &Env,
                     const OriginTable &Origins, FunctionSummary &Out) = 0;
  /// After a finished run.
  virtual void finish(FunctionSummary &Out) {}
};

/// One kind of summary fact.
class FactKind {
public:
  virtual ~FactKind() = default;
  /// The collector of the kind's facts for a function with inputs \p In;
  /// null when the kind has none to collect there (module parameters get
  /// their own runs: SummaryProvider::addModuleParameterFacts).
  virtual std::unique_ptr<SummaryCollector>
  collector(const SummaryInputs &In) const {
    return nullptr;
  }
  /// The field of a function's JSON entry that holds the kind's facts.
  virtual llvm::StringLiteral key() const = 0;
  /// The kind a check asks the database about (SummaryDatabase::namesWith),
  /// if any.
  virtual std::optional<SummaryFactKind> checkKind() const {
    return std::nullopt;
  }
  /// The field's value for \p F, or null when it has no fact of the kind.
  virtual llvm::json::Value write(const ExportedFunction &F) const = 0;
  /// Reads the field's value \p V into \p Out; false (reported on \p P)
  /// when it is malformed.
  virtual bool read(const llvm::json::Value &V, llvm::json::Path P,
                    const PlaceReader &Places, StoredSummary &Out) const = 0;
  /// Whether \p S has a fact of the kind.
  virtual bool has(const StoredSummary &S) const = 0;
  /// Adds \p F's facts of the kind to \p Out (the summary a call of the
  /// function reads). What cannot be turned back (a model entry the model
  /// no longer has) is dropped: less is "unknown", never a finding.
  virtual void import(const ImportedFunction &F,
                      FunctionSummary &Out) const = 0;
};

/// Every kind, in the order the exporter writes them.
llvm::ArrayRef<const FactKind *> factKinds();

/// The kinds (one file each, beside their analyses), listed by factKinds().
const FactKind &returnFacts();
const FactKind &meshSinkFacts();
const FactKind &processGroupSinkFacts();
const FactKind &mixedOpSinkFacts();
const FactKind &keptModuleFacts();
const FactKind &collectiveFacts();
const FactKind &placementFacts();
const FactKind &checkpointSinkFacts();

/// Reads \p V, an array of facts, with \p ReadOne for each (the fact and
/// its path); false at the first problem (reported on its path).
bool readFactArray(
    const llvm::json::Value &V, llvm::json::Path P,
    llvm::function_ref<bool(const llvm::json::Value &, llvm::json::Path)>
        ReadOne);

/// A parameter index ("p") of a fact: 0 to 65535.
bool readParam(const llvm::json::Value *V, llvm::json::Path P, unsigned &Out);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_SUMMARIES_FACTKIND_H
