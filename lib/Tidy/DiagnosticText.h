//===--- DiagnosticText.h - Shared wording of dtensor-* notes ---*- C++ -*-===//

#ifndef MESHGUARD_TIDY_DIAGNOSTICTEXT_H
#define MESHGUARD_TIDY_DIAGNOSTICTEXT_H

#include "clang-tidy/ClangTidyCheck.h"
#include "meshguard/Analysis/Facts/CollectiveSites.h"
#include <string>
#include <vector>

namespace meshguard {
namespace tidy {

/// How a note names an operand: the variable's name, or the (short) source
/// text of the expression.
std::string operandName(const clang::Expr &E, clang::ASTContext &Ctx);

/// How a warning names the function \p Call runs, quoted: the callee, as
/// clang names a declaration ('sync'), or for a call of a lambda or function
/// object the object as written ('sync' of `auto sync = [&](...) {...};`,
/// not 'operator()').
std::string calleeName(const clang::CallExpr &Call, clang::ASTContext &Ctx);

/// Whether \p Call gives the callee \p Arg as a variable its lambda captures
/// by reference (named outside the call, in the lambda's captures) rather
/// than as an argument.
bool givenByCapture(const clang::CallExpr &Call, const clang::Expr &Arg,
                    clang::ASTContext &Ctx);

/// How a note names the call an origin is: "to_local()", "torch::randn()".
std::string originName(const clang::Expr &Origin);

/// The source text of \p E quoted ("'mesh.get_rank()'"), or "this
/// expression" when it is long or not in one file.
std::string quotedText(const clang::Expr &E, clang::ASTContext &Ctx);

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
