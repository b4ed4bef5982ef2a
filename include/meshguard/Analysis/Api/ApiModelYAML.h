//===--- ApiModelYAML.h - Reading an API model from YAML --------*- C++ -*-===//
//
// A user file describes more of the API (a C++ DTensor wrapper of their own,
// more factories, more collectives) without recompiling; it extends the
// built-in model. Format: docs/checks/api-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_APIMODELYAML_H
#define MESHGUARD_ANALYSIS_APIMODELYAML_H

#include "meshguard/Analysis/Api/ApiModel.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace meshguard {
namespace analysis {

/// Parses \p Text. Errors read "<FileName>:<line>:<column>: <message>".
llvm::Expected<ApiModel> parseApiModel(llvm::StringRef Text,
                                       llvm::StringRef FileName);

/// Reads and parses the file at \p Path.
llvm::Expected<ApiModel> loadApiModel(llvm::StringRef Path);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_APIMODELYAML_H
