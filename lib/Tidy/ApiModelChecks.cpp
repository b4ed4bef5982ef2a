//===--- ApiModelChecks.cpp - A user's API model against what it names ----===//

#include "ApiModelChecks.h"
#include "NamedFunctions.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

namespace {
std::string describe(const MeshCollectiveEntry &E) {
  return "tensor_arg " + std::to_string(E.TensorArg) + ", op " + E.OpName +
         ", guarded " + (E.Guarded.empty() ? "(none)" : E.Guarded);
}
std::string describe(const ProcessGroupCollectiveEntry &E) {
  return "tensor_args [" +
         llvm::join(
             llvm::map_range(E.TensorArgs,
                             [](unsigned I) { return std::to_string(I); }),
             ", ") +
         "], op " + E.OpName;
}
std::string describe(const SourceEntry &E) {
  return E.Kind == SourceKind::DTensor ? "makes dtensor" : "makes plain";
}
bool same(const MeshCollectiveEntry &A, const MeshCollectiveEntry &B) {
  return A.TensorArg == B.TensorArg && A.OpName == B.OpName &&
         A.Guarded == B.Guarded;
}
bool same(const ProcessGroupCollectiveEntry &A,
          const ProcessGroupCollectiveEntry &B) {
  return A.TensorArgs == B.TensorArgs && A.OpName == B.OpName;
}
bool same(const SourceEntry &A, const SourceEntry &B) {
  return A.Kind == B.Kind;
}

template <typename Entry>
void dropConflicts(std::vector<Entry> &User, const std::vector<Entry> &Builtin,
                   ConfigReporter &Report) {
  llvm::erase_if(User, [&](const Entry &U) {
    for (const Entry &B : Builtin)
      if (B.Function == U.Function && !same(B, U)) {
        Report.report(U.Where + ": '" + U.Function + "' is built in (" +
                          describe(B) + "); this entry (" + describe(U) +
                          ") would replace it and is ignored",
                      DiagnosticIDs::Error);
        return true;
      }
    return false;
  });
}

/// The fewest parameters any declaration of \p Fns has (methods: without
/// the object); none when one is variadic.
std::optional<unsigned> fewestParams(llvm::ArrayRef<const FunctionDecl *> Fns) {
  std::optional<unsigned> Fewest;
  for (const FunctionDecl *FD : Fns) {
    if (FD->isVariadic())
      return std::nullopt;
    if (!Fewest || FD->getNumParams() < *Fewest)
      Fewest = FD->getNumParams();
  }
  return Fewest;
}

std::string where(const std::string &Where) {
  return Where.empty() ? std::string("built-in model") : Where;
}
} // namespace

void dropConflictingEntries(ApiModel &User, const ApiModel &Builtin,
                            ConfigReporter &Report) {
  dropConflicts(User.MeshCollectives, Builtin.MeshCollectives, Report);
  dropConflicts(User.ProcessGroupCollectives, Builtin.ProcessGroupCollectives,
                Report);
  dropConflicts(User.Sources, Builtin.Sources, Report);
}

void checkModelAgainstTU(const ApiModel &Model, ASTContext &Ctx,
                         ConfigReporter &Report) {
  for (const MeshCollectiveEntry &E : Model.MeshCollectives) {
    if (E.Where.empty())
      continue; // Built in: the runtime's own declarations.
    auto Fns = functionsNamed(Ctx, E.Function);
    if (Fns.empty())
      continue; // Not used by this TU.
    std::optional<unsigned> Params = fewestParams(Fns);
    if (Params && E.TensorArg >= *Params) {
      Report.report(where(E.Where) + ": tensor_arg " +
                        std::to_string(E.TensorArg) + " of '" + E.Function +
                        "' is beyond its " + std::to_string(*Params) +
                        " parameter(s) (counted from 0): the entry is ignored",
                    DiagnosticIDs::Error);
      continue;
    }
    if (E.Guarded.empty())
      continue;
    auto Guarded = functionsNamed(Ctx, E.Guarded);
    if (Guarded.empty())
      Report.report(where(E.Where) + ": guarded function '" + E.Guarded +
                    "' of '" + E.Function +
                    "' is not declared in this translation unit: no fix-it "
                    "is offered for '" +
                    E.Function + "'");
    else if (llvm::none_of(Guarded, [&](const FunctionDecl *G) {
               return G->isVariadic() || G->getNumParams() > E.TensorArg + 1;
             }))
      Report.report(where(E.Where) + ": guarded function '" + E.Guarded +
                    "' has no parameter " + std::to_string(E.TensorArg + 1) +
                    " for the mesh (after tensor_arg " +
                    std::to_string(E.TensorArg) +
                    "): no fix-it is offered for '" + E.Function + "'");
  }
  for (const ProcessGroupCollectiveEntry &E : Model.ProcessGroupCollectives) {
    if (E.Where.empty())
      continue;
    auto Fns = functionsNamed(Ctx, E.Function);
    std::optional<unsigned> Params = fewestParams(Fns);
    if (Fns.empty() || !Params)
      continue;
    for (unsigned I : E.TensorArgs)
      if (I >= *Params)
        Report.report(where(E.Where) + ": tensor_args entry " +
                          std::to_string(I) + " of '" + E.Function +
                          "' is beyond its " + std::to_string(*Params) +
                          " parameter(s) (counted from 0): it is ignored",
                      DiagnosticIDs::Error);
  }
}

} // namespace tidy
} // namespace meshguard
