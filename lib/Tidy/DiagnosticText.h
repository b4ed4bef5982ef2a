//===--- DiagnosticText.h - Shared wording of dtensor-* notes ---*- C++ -*-===//

#ifndef MESHGUARD_TIDY_DIAGNOSTICTEXT_H
#define MESHGUARD_TIDY_DIAGNOSTICTEXT_H

#include "clang-tidy/ClangTidyCheck.h"
#include "meshguard/Analysis/CollectiveSites.h"
#include <string>
#include <vector>

namespace meshguard {
namespace tidy {

/// How a note names an operand: the variable's name, or the (short) source
/// text of the expression.
std::string operandName(const clang::Expr &E, clang::ASTContext &Ctx);

/// How a note names the call an origin is: "to_local()", "torch::randn()".
std::string originName(const clang::Expr &Origin);

/// The local module variable of `m.parameters()`, `m->named_parameters()`,
/// `(*m).parameters()`, or of a local vector made only from them (`ps =
/// m->parameters()`, or push_back of `p.grad()` in a loop over them), or
/// null: when the analysis found such a container plain, that module was
/// never distributed.
const clang::VarDecl *parametersOfLocalModule(const clang::Expr &E);

/// The expressions pushed into the local container \p Container
/// (`push_back`, `emplace_back`), in source order.
std::vector<const clang::Expr *>
elementsWrittenInto(const clang::VarDecl &Container);

/// The note explaining why one operand of a collective is plain.
void noteOperand(clang::tidy::ClangTidyCheck &Check,
                 const analysis::OperandFact &Op, clang::ASTContext &Ctx);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_DIAGNOSTICTEXT_H
