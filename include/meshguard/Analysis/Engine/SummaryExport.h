//===--- SummaryExport.h - Writing one TU's summaries -----------*- C++ -*-===//
//
// The export of a translation unit's summaries (the JSON the summary
// database reads, docs/tools/whole-program.md), for meshguard-tidy
// --summarize and for a check run with MeshguardSummaryExport.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H
#define MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H

#include "meshguard/Analysis/Summaries/Summaries.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang {
class ASTContext;
} // namespace clang

namespace meshguard {
namespace analysis {

/// The JSON text of the summaries of the functions the main file of \p Ctx
/// defines (with external linkage), computed by \p Summaries (which reads
/// \p Lookups, if given, for callees of other TUs). \p Command is recorded
/// as is (meshguard-run puts the hash of the compile command there to know
/// when an entry can be reused). With \p Lookups, every callee of the TU's
/// code without a body in it (outside the system headers) is looked up, and
/// "lookups" lists what \p Lookups recorded.
std::string exportSummaries(clang::ASTContext &Ctx, SummaryProvider &Summaries,
                            llvm::StringRef Command,
                            SummaryLookup *Lookups = nullptr);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_ENGINE_SUMMARYEXPORT_H
