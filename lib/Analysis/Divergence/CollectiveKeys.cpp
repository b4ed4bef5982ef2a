//===--- CollectiveKeys.cpp - What a statement communicates, comparably ---===//
//
// Two sides of a rank-dependent branch are balanced when every rank makes
// the same collective calls in the same order on the same groups. Names
// alone are not enough: `sync_all(pg)` on one side is the barrier of the
// other, a nested `if` whose sides agree runs its collective once, and a
// barrier on the world group does not match one on a mesh-dim group, nor
// one repeated in a loop with other bounds.
//
//===----------------------------------------------------------------------===//

#include "Divergence/BranchSides.h"
#include "Divergence/MeshGroups.h"
#include "Divergence/RankDependence.h"
#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace meshguard {
namespace analysis {

static std::string spelled(const Stmt *S, ASTContext &Ctx) {
  if (!S)
    return "";
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(S->getSourceRange()),
             Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

/// \p S as spelled, without blanks, and with \p Counter (a `for` loop's own
/// variable) as `#`: `n > 0` matches `n>0`, and `for (int i = 0; i < n;
/// ++i)` the same loop over `j`.
static std::string canonical(const Stmt *S, const VarDecl *Counter,
                             ASTContext &Ctx) {
  std::string Text = spelled(S, Ctx), Out;
  StringRef Name = Counter ? Counter->getName() : StringRef();
  for (size_t I = 0; I < Text.size();) {
    if (isspace(static_cast<unsigned char>(Text[I]))) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Text.size() &&
           (isalnum(static_cast<unsigned char>(Text[J])) || Text[J] == '_'))
      ++J;
    if (J == I) {
      Out += Text[I++];
      continue;
    }
    StringRef Word(Text.data() + I, J - I);
    Out += !Name.empty() && Word == Name ? StringRef("#") : Word;
    I = J;
  }
  return Out;
}

/// The condition (or range) a loop repeats on.
static const Stmt *loopHeader(const Stmt *S) {
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(S))
    return Range->getRangeInit();
  return conditionOf(S);
}

std::vector<std::string> DivergenceMemo::keys(const Stmt *S) {
  std::vector<std::string> Out;
  appendKeys(S, Out);
  return Out;
}

const std::vector<std::string> &
DivergenceMemo::helperKeys(const FunctionDecl &Def) {
  const FunctionDecl *Key = Def.getCanonicalDecl();
  if (auto It = HelperKeys.find(Key); It != HelperKeys.end())
    return It->second;
  // Recursion: a call of a helper being worked out stands for itself.
  HelperKeys[Key] = {Def.getQualifiedNameAsString() + " (recursive)"};
  std::vector<std::string> Found = keys(Def.getBody());
  return HelperKeys[Key] = std::move(Found);
}

void DivergenceMemo::appendKeys(const Stmt *S, std::vector<std::string> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const Expr *Cond = isa<IfStmt, ConditionalOperator, SwitchStmt>(S)
                             ? conditionOf(S)
                             : nullptr) {
    if (std::optional<std::vector<BranchSide>> Sides = branchSides(S, *this)) {
      if (const auto *If = dyn_cast<IfStmt>(S)) {
        appendKeys(If->getInit(), Out);
        appendKeys(If->getConditionVariableDeclStmt(), Out);
      } else if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
        appendKeys(Switch->getInit(), Out);
        appendKeys(Switch->getConditionVariableDeclStmt(), Out);
      }
      appendKeys(Cond, Out);
      bool Agree = llvm::all_of(*Sides, [&](const BranchSide &Side) {
        return !Side.Exits && Side.Keys == Sides->front().Keys;
      });
      if (Agree) {
        Out.insert(Out.end(), Sides->front().Keys.begin(),
                   Sides->front().Keys.end());
        return;
      }
      std::string Text = canonical(Cond, nullptr, Ctx);
      for (size_t I = 0; I < Sides->size(); ++I) {
        std::string Where =
            Sides->size() == 2
                ? (I == 0 ? " if '" : " unless '") + Text + "'"
                : " in case " + std::to_string(I + 1) + " of '" + Text + "'";
        for (const std::string &K : (*Sides)[I].Keys)
          Out.push_back(K + Where);
        if ((*Sides)[I].Exits)
          Out.push_back("leaving early" + Where);
      }
      return;
    }
  }
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S)) {
    std::vector<std::string> Inner;
    for (const Stmt *Child : S->children())
      appendKeys(Child, Inner);
    const VarDecl *Counter = nullptr;
    if (const auto *For = dyn_cast<ForStmt>(S))
      if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
          Init && Init->isSingleDecl())
        Counter = dyn_cast<VarDecl>(Init->getSingleDecl());
    std::string Where =
        " in a loop on '" + canonical(loopHeader(S), Counter, Ctx) + "'";
    for (const std::string &K : Inner)
      Out.push_back(K + Where);
    return;
  }
  for (const Stmt *Child : S->children())
    appendKeys(Child, Out);
  const auto *Call = dyn_cast<CallExpr>(S);
  std::optional<CollectiveCall> C = Call ? collective(*Call) : std::nullopt;
  if (!C)
    return;
  if (C->Helper && !C->InnerElsewhere)
    if (const FunctionDecl *Def = C->Helper->getDefinition()) {
      // What the parameters that decide its collectives are given:
      // `maybe_sync(pg, true)` and `maybe_sync(pg, false)` differ.
      std::string Given;
      for (const ParameterControl &Control : parameterControls(*Def))
        if (const Expr *Arg = argumentFor(*Call, Control))
          Given += (Given.empty() ? " given " : ", ") +
                   Def->getParamDecl(Control.Param)->getNameAsString() +
                   " = '" + canonical(Arg, nullptr, Ctx) + "'";
      std::vector<std::string> Inner = helperKeys(*Def);
      for (std::string &K : Inner)
        Out.push_back(K + Given);
      return;
    }
  std::string Key = C->Helper ? C->InnerName : C->Name;
  if (std::optional<MeshDim> Group = collectiveGroup(*Call, Ctx))
    Key += " on the dim-" + std::to_string(Group->second) + " group of '" +
           Group->first->getName().str() + "'";
  Out.push_back(std::move(Key));
}

} // namespace analysis
} // namespace meshguard
