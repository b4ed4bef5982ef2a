//===--- VariableWrites.cpp - How a body changes some local variables -----===//

#include "Provenance/VariableWrites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {
enum class Effect { Read, PointWrite, Escape };

/// Binding a value of type \p T to a variable: a reference to non-const (or
/// an rvalue reference) may change it later, a copy or a const reference
/// does not.
Effect bindingEffect(QualType T) {
  if (!T->isReferenceType())
    return Effect::Read;
  if (T->isRValueReferenceType())
    return Effect::Escape;
  return T.getNonReferenceType().isConstQualified() ? Effect::Read
                                                    : Effect::Escape;
}

/// Passing a variable as argument \p I of a call to \p F (or, through a
/// pointer, of type \p Proto). Variadic and unknown parameters may change it.
Effect argumentEffect(const FunctionDecl *F, const FunctionProtoType *Proto,
                      unsigned I) {
  if (F && I < F->getNumParams())
    return bindingEffect(F->getParamDecl(I)->getType());
  if (!F && Proto && I < Proto->getNumParams())
    return bindingEffect(Proto->getParamType(I));
  return Effect::Escape;
}

constexpr unsigned NotAnArgument = ~0u;

template <typename CallLike>
unsigned argumentIndex(const CallLike &Call, const Stmt *Child) {
  for (unsigned I = 0, N = Call.getNumArgs(); I < N; ++I)
    if (Call.getArg(I) == Child)
      return I;
  return NotAnArgument;
}

/// Whether \p E is what a return statement returns (a move out of a local
/// there is its last use: nothing of the function runs after it).
bool isReturned(const Stmt *E, const ParentMap &Parents) {
  for (const Stmt *P = Parents.getParent(E); P; P = Parents.getParent(P)) {
    if (isa<ReturnStmt>(P))
      return true;
    if (!isa<ExprWithCleanups, CXXBindTemporaryExpr, MaterializeTemporaryExpr,
             ImplicitCastExpr, ParenExpr>(P))
      return false;
  }
  return false;
}

/// What the use \p Ref does to its variable; \p Write is the statement of a
/// point write.
Effect classify(const DeclRefExpr &Ref, const ParentMap &Parents,
                const Stmt *&Write) {
  const Stmt *Child = &Ref;
  for (;;) {
    const Stmt *P = Parents.getParent(Child);
    if (!P)
      return Effect::Escape; // Not where the walk can see what happens.
    if (isa<ParenExpr, FullExpr, CXXBindTemporaryExpr>(P)) {
      Child = P;
      continue;
    }
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
      switch (Cast->getCastKind()) {
      case CK_LValueToRValue:
      case CK_ToVoid:
        return Effect::Read;
      case CK_NoOp:
      case CK_DerivedToBase:
      case CK_UncheckedDerivedToBase:
        Child = P;
        continue;
      default:
        return Effect::Escape;
      }
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(P)) {
      if (Cast->getCastKind() == CK_ToVoid)
        return Effect::Read;
      if (Cast->getTypeAsWritten()->isReferenceType())
        return bindingEffect(Cast->getTypeAsWritten());
      if (Cast->getCastKind() != CK_NoOp)
        return Effect::Escape;
      Child = P;
      continue;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(P)) {
      const auto *Call =
          dyn_cast_or_null<CXXMemberCallExpr>(Parents.getParentIgnoreParens(P));
      if (!Call || Call->getCallee()->IgnoreParens() != Member)
        return Effect::Escape; // A field of it, or a method not called here.
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (MD && MD->isConst())
        return Effect::Read;
      Write = Call;
      return Effect::PointWrite;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      unsigned I = argumentIndex(*Op, Child);
      if (I == NotAnArgument)
        return Effect::Escape;
      const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
      if (MD && I == 0) {
        if (MD->isConst())
          return Effect::Read;
        Write = Op; // `t = ...`, `t += ...`
        return Effect::PointWrite;
      }
      return argumentEffect(Op->getDirectCallee(), nullptr, MD ? I - 1 : I);
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      unsigned I = argumentIndex(*Call, Child);
      if (I == NotAnArgument)
        return Effect::Escape;
      const FunctionDecl *F = Call->getDirectCallee();
      const FunctionProtoType *Proto = nullptr;
      if (!F) {
        QualType T = Call->getCallee()->getType();
        if (T->isPointerType())
          T = T->getPointeeType();
        Proto = T->getAs<FunctionProtoType>();
      }
      return argumentEffect(F, Proto, I);
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
      unsigned I = argumentIndex(*Construct, Child);
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      if (I == NotAnArgument || !Ctor)
        return Effect::Escape;
      Effect E = argumentEffect(Ctor, nullptr, I);
      if (E == Effect::Escape && Ctor->isMoveConstructor() &&
          isReturned(Construct, Parents))
        return Effect::Read;
      return E;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(P)) {
      if (Unary->isIncrementDecrementOp()) {
        Write = Unary;
        return Effect::PointWrite;
      }
      if (Unary->getOpcode() == UO_AddrOf || Unary->getOpcode() == UO_Deref)
        return Effect::Escape;
      return Effect::Read;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(P)) {
      if (Binary->isAssignmentOp() && Binary->getLHS() == Child) {
        Write = Binary;
        return Effect::PointWrite;
      }
      if (Binary->getOpcode() == BO_Comma && Binary->getRHS() == Child) {
        Child = P;
        continue;
      }
      return Effect::Read;
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(P)) {
      if (Cond->isGLValue() && Cond->getCond() != Child) {
        Child = P;
        continue;
      }
      return Effect::Read;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit() == Child)
          return bindingEffect(VD->getType());
      return Effect::Escape;
    }
    if (isa<UnaryExprOrTypeTraitExpr, CXXTypeidExpr, CXXNoexceptExpr>(P))
      return Effect::Read; // Unevaluated, or reads only.
    if (isa<CompoundStmt, AttributedStmt, LabelStmt, CaseStmt, DefaultStmt>(P))
      return Effect::Read; // A statement of its own: `t;`.
    // An init-capture by reference, a reference returned, an expression the
    // walk does not model: the variable may change anywhere after it.
    return Effect::Escape;
  }
}

class WriteWalker : public RecursiveASTVisitor<WriteWalker> {
public:
  WriteWalker(const llvm::DenseSet<const VarDecl *> &Vars,
              const ParentMap &Parents,
              llvm::DenseMap<const VarDecl *, VariableWrites> &Writes)
      : Vars(Vars), Parents(Parents), Writes(Writes) {}

  bool TraverseLambdaExpr(LambdaExpr *E) {
    // What a by-reference capture's entry does is done in the body.
    llvm::DenseMap<const VarDecl *, bool> ByRef;
    for (auto [Capture, Init] : llvm::zip(E->captures(), E->capture_inits())) {
      if (!Capture.capturesVariable())
        continue;
      const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
      if (!VD || !Vars.contains(VD))
        continue;
      bool IsByRef = Capture.getCaptureKind() == LCK_ByRef;
      ByRef[VD] = IsByRef;
      if (IsByRef && Init)
        CaptureEntries.insert(Init);
    }
    Lambdas.push_back(std::move(ByRef));
    bool Continue = RecursiveASTVisitor::TraverseLambdaExpr(E);
    Lambdas.pop_back();
    return Continue;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *VD = dyn_cast<VarDecl>(E->getDecl());
    if (!VD || !Vars.contains(VD) || CaptureEntries.contains(E))
      return true;
    // Inside lambdas: the variable itself only if every lambda that
    // captures it, from the innermost out, captures it by reference (a
    // lambda that does not capture it holds the use in a capture's entry).
    bool InLambda = false;
    for (const auto &Captures : llvm::reverse(Lambdas)) {
      auto It = Captures.find(VD);
      if (It == Captures.end())
        continue;
      if (!It->second)
        return true; // A copy's use.
      InLambda = true;
    }
    const Stmt *Write = nullptr;
    Effect Done = classify(*E, Parents, Write);
    if (Done == Effect::Read)
      return true;
    VariableWrites &W = Writes[VD];
    if (InLambda)
      W.InLambda = true;
    else if (Done == Effect::Escape)
      W.Escapes = true;
    else
      W.PointWrites.push_back(Write);
    return true;
  }

private:
  const llvm::DenseSet<const VarDecl *> &Vars;
  const ParentMap &Parents;
  llvm::DenseMap<const VarDecl *, VariableWrites> &Writes;
  llvm::SmallVector<llvm::DenseMap<const VarDecl *, bool>, 4> Lambdas;
  llvm::DenseSet<const Expr *> CaptureEntries;
};
} // namespace

llvm::DenseMap<const VarDecl *, VariableWrites>
findVariableWrites(const Stmt &Body,
                   const llvm::DenseSet<const VarDecl *> &Vars,
                   const ParentMap &Parents) {
  llvm::DenseMap<const VarDecl *, VariableWrites> Writes;
  if (Vars.empty())
    return Writes;
  WriteWalker Walker(Vars, Parents, Writes);
  Walker.TraverseStmt(const_cast<Stmt *>(&Body));
  return Writes;
}

} // namespace analysis
} // namespace meshguard
