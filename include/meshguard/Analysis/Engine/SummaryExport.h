//===--- SummaryExport.h - Writing one TU's summaries -----------*- C++ -*-===//
//
// The export of a translation unit's summaries (the JSON the summary
// database reads, docs/tools/whole-program.md), for meshguard-tidy
// --summarize and for a check run with MeshguardSummaryExport. Both export
// what the TU's engine (TUAnalysis) computes: its summary provider, its
// rank-divergence and placement memos; after a check run, what the checks
// already asked is not computed again.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H
#define MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H

#include "meshguard/Analysis/Engine/TUAnalysis.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace meshguard {
namespace analysis {

/// The JSON text of the summaries of the functions the main file of
/// \p Engine's TU defines (with external linkage), as \p Engine computes
/// them (its provider reads the database the engine was given, if any, for
/// callees of other TUs). \p Command is recorded
/// as is (meshguard-run puts the hash of the compile command there to know
/// when an entry can be reused). With \p Lookups, every callee of the TU's
/// code without a body in it (outside the system headers) is looked up, and
/// "lookups" lists what \p Lookups recorded.
std::string exportSummaries(TUAnalysis &Engine, llvm::StringRef Command,
                            SummaryLookup *Lookups = nullptr);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H
