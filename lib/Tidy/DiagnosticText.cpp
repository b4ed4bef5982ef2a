//===--- DiagnosticText.cpp - Shared wording of dtensor-* notes -----------===//

#include "DiagnosticText.h"
#include "DiagnosticMessages.h"
#include "meshguard/Analysis/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

/// Looks through copies and temporaries to what the user wrote.
static const Expr *written(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const Expr *Source = analysis::copySource(E)) {
      E = Source;
      continue;
    }
    return E;
  }
}

std::string operandName(const Expr &E, ASTContext &Ctx) {
  const Expr *W = written(&E);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(W))
    return Ref->getDecl()->getNameAsString();
  if (const auto *Member = dyn_cast<MemberExpr>(W))
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      return Member->getMemberDecl()->getNameAsString();
  StringRef Text =
      Lexer::getSourceText(CharSourceRange::getTokenRange(W->getSourceRange()),
                           Ctx.getSourceManager(), Ctx.getLangOpts());
  if (Text.empty())
    return "argument";
  if (Text.size() > 48)
    return (Text.take_front(45) + "...").str();
  return Text.str();
}

std::string originName(const Expr &Origin) {
  const auto *Call = dyn_cast<CallExpr>(&Origin);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return "this call";
  std::string Name = FD->getQualifiedNameAsString();
  StringRef Short(Name);
  Short.consume_front("meshguard::");
  return Short.str() + "()";
}

const VarDecl *parametersOfLocalModule(const Expr &E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(written(&E));
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getDeclName().isIdentifier() ||
      (MD->getName() != "parameters" && MD->getName() != "named_parameters"))
    return nullptr;
  const Expr *Obj = Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
  while (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Obj)) {
    if ((Op->getOperator() != OO_Arrow && Op->getOperator() != OO_Star) ||
        Op->getNumArgs() != 1)
      break;
    Obj = Op->getArg(0)->IgnoreParenImpCasts();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Obj);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && VD->isLocalVarDecl() ? VD : nullptr;
}

void noteOperand(clang::tidy::ClangTidyCheck &Check, const OperandFact &Op,
                 ASTContext &Ctx) {
  std::string Name = operandName(*Op.E, Ctx);
  if (const VarDecl *Module =
          Op.IsContainer ? parametersOfLocalModule(*Op.E) : nullptr) {
    Check.diag(Module->getLocation(), msg::ModuleNeverDistributed,
               DiagnosticIDs::Note)
        << Name << Module->getName();
    return;
  }
  if (Op.IsContainer) {
    Check.diag(Op.E->getBeginLoc(), msg::HoldsOnlyPlain, DiagnosticIDs::Note)
        << Name;
    return;
  }
  if (Op.Origin) {
    Check.diag(Op.Origin->getBeginLoc(), msg::PlainComesFrom,
               DiagnosticIDs::Note)
        << Name << originName(*Op.Origin);
    return;
  }
  Check.diag(Op.E->getBeginLoc(), msg::PlainOnEveryPath, DiagnosticIDs::Note)
      << Name;
}

} // namespace tidy
} // namespace meshguard
