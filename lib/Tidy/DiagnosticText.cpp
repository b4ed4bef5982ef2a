//===--- DiagnosticText.cpp - Shared wording of dtensor-* notes -----------===//

#include "DiagnosticText.h"
#include "DiagnosticMessages.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
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
    // A pointer stands for what it points to (`p` of `p->add(x)`).
    return (W->getType()->isPointerType() ? "*" : "") +
           Ref->getDecl()->getNameAsString();
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

std::string calleeName(const CallExpr &Call, ASTContext &Ctx) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
      Op && Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
    return "'" + operandName(*Op->getArg(0), Ctx) + "'";
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return "'the callee'";
  // A template instantiated with a lambda ('callWith<(lambda at
  // /path/x.cpp:12:3)>'): the template's name says enough.
  if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
    for (const TemplateArgument &Arg : Args->asArray())
      if (Arg.getKind() == TemplateArgument::Type)
        if (const auto *RD = Arg.getAsType()->getAsCXXRecordDecl();
            RD && RD->isLambda())
          return "'" + FD->getNameAsString() + "'";
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  FD->getNameForDiagnostic(OS, Ctx.getPrintingPolicy(), /*Qualified=*/false);
  return "'" + OS.str() + "'";
}

bool givenByCapture(const CallExpr &Call, const Expr &Arg, ASTContext &Ctx) {
  // Named outside the call, and by a lambda's capture list (its capture
  // initialisers are the lambda expression's children), not by the
  // initialiser of a pointer variable the call is given.
  if (Ctx.getSourceManager().isPointWithin(
          Arg.getBeginLoc(), Call.getBeginLoc(), Call.getEndLoc()))
    return false;
  return llvm::any_of(Ctx.getParents(Arg), [](const DynTypedNode &Parent) {
    return Parent.get<LambdaExpr>() != nullptr;
  });
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

/// The local variable \p E names, if it is one.
static const VarDecl *localVariable(const Expr &E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(written(&E));
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && VD->isLocalVarDecl() ? VD : nullptr;
}

std::vector<const Expr *> elementsWrittenInto(const VarDecl &Container) {
  std::vector<const Expr *> Out;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(Container.getParentFunctionOrMethod());
  if (!FD || !FD->getBody())
    return Out;
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *Container;
    std::vector<const Expr *> *Out;
    bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (MD && MD->getDeclName().isIdentifier() &&
          (MD->getName() == "push_back" || MD->getName() == "emplace_back") &&
          Call->getNumArgs() == 1)
        if (const auto *Ref = dyn_cast<DeclRefExpr>(
                Call->getImplicitObjectArgument()->IgnoreParenImpCasts());
            Ref && Ref->getDecl() == Container)
          Out->push_back(Call->getArg(0));
      return true;
    }
  } F;
  F.Container = &Container;
  F.Out = &Out;
  F.TraverseStmt(FD->getBody());
  return Out;
}

/// The range-for statement in \p S whose loop variable is \p VD.
static const CXXForRangeStmt *rangeForOf(const Stmt *S, const VarDecl *VD) {
  if (!S)
    return nullptr;
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S);
      For && For->getLoopVariable() == VD)
    return For;
  for (const Stmt *Child : S->children())
    if (const CXXForRangeStmt *Found = rangeForOf(Child, VD))
      return Found;
  return nullptr;
}

/// The range-for loop variable \p E starts from (`p` in `p.grad()`,
/// `p.grad().contiguous()`), and the range it iterates over. The loop is
/// found by a walk of the variable's function, not ASTContext::getParents:
/// that builds the parent map of the whole TU, torch headers included, on
/// first use (docs/tools/performance.md, "The parent map").
static const Expr *loopRangeOf(const Expr &E) {
  const Expr *Root = written(&E);
  while (const auto *Member = dyn_cast<CXXMemberCallExpr>(Root))
    Root = written(Member->getImplicitObjectArgument());
  const auto *Ref = dyn_cast<DeclRefExpr>(Root);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->isCXXForRangeDecl())
    return nullptr;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  const CXXForRangeStmt *For = Fn ? rangeForOf(Fn->getBody(), VD) : nullptr;
  return For ? For->getRangeInit() : nullptr;
}

static const VarDecl *moduleOfParametersCall(const Expr &E);

const VarDecl *parametersOfLocalModule(const Expr &E) {
  if (const VarDecl *Module = moduleOfParametersCall(E))
    return Module;
  // A local vector made from the parameters: `ps = m->parameters()`, or
  // filled in a loop over them (`for (auto &p : m->parameters())
  // grads.push_back(p.grad())`), and from nothing else.
  const VarDecl *Container = localVariable(E);
  if (!Container)
    return nullptr;
  const VarDecl *Module = nullptr;
  auto Agree = [&](const VarDecl *M) {
    if (!M || (Module && Module != M))
      return false;
    Module = M;
    return true;
  };
  const Expr *Init = Container->getInit();
  if (Init && !isa<CXXConstructExpr>(written(Init)) &&
      !Agree(moduleOfParametersCall(*Init)))
    return nullptr;
  if (Init && isa<CXXConstructExpr>(written(Init)) &&
      cast<CXXConstructExpr>(written(Init))->getNumArgs() != 0)
    return nullptr; // A braced list or a copy of something else.
  for (const Expr *Element : elementsWrittenInto(*Container)) {
    const Expr *Range = loopRangeOf(*Element);
    if (!Range || !Agree(moduleOfParametersCall(*Range)))
      return nullptr;
  }
  return Module;
}

static const VarDecl *moduleOfParametersCall(const Expr &E) {
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
    // Walk back to the calls that made the elements pushed into it
    // (to_local(), a factory); methods such as `p.grad()` explain nothing.
    bool Explained = false;
    if (const VarDecl *Container = localVariable(*Op.E))
      for (const Expr *Element : elementsWrittenInto(*Container))
        if (const auto *Call = dyn_cast<CallExpr>(written(Element));
            Call && Call->getDirectCallee() && !isa<CXXMemberCallExpr>(Call)) {
          Check.diag(Call->getBeginLoc(), msg::ElementComesFrom,
                     DiagnosticIDs::Note)
              << Name << originName(*Call);
          Explained = true;
        }
    if (!Explained)
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

std::string quotedText(const Expr &E, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E.getSourceRange()), SM,
      Ctx.getLangOpts());
  std::string Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
  if (Text.empty() || Text.size() > 48)
    return "this expression";
  return "'" + Text + "'";
}

} // namespace tidy
} // namespace meshguard
