//===--- MixedOpSites.cpp - Tensor ops mixing DTensors and plain tensors --===//

#include "meshguard/Analysis/Facts/MixedOpSites.h"
#include "Provenance/ScalarLikeTensors.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// The tensor operands of a tensor op.
struct OpOperands {
  llvm::SmallVector<const Expr *, 4> Operands;
  /// The tensor an in-place op (a non-const method) modifies.
  const Expr *InPlaceSelf = nullptr;
};

/// Adds the tensors \p Arg passes: \p Arg itself, or the tensor elements of a
/// braced list (`at::cat({a, b})`). Named containers are not looked into.
void addOperand(const Expr *Arg, const ApiIndex &Index, OpOperands &Out) {
  if (Index.isTensorType(Arg->getType())) {
    Out.Operands.push_back(Arg);
    return;
  }
  if (!Index.isTensorContainerType(Arg->getType()))
    return;
  TensorOperands Ops = tensorOperands(Arg, Index);
  if (!Ops.FromList)
    return;
  for (const TensorOperand &Op : Ops.Items)
    if (!Op.IsContainer)
      Out.Operands.push_back(Op.E);
}

/// The tensor operands of \p Call if it is a tensor op, else empty.
OpOperands opOperands(const CallExpr *Call, const ApiIndex &Index) {
  OpOperands Out;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !Index.isTensorType(Call->getType()) || Index.source(FD))
    return Out;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (MD && (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()))
    return Out;
  bool IsOp = Index.isOpFunction(FD);
  // The object of a method: `w.mul(x)`, `w.add_(x)`, `w += x`.
  const Expr *Obj = objectArgument(*Call);
  llvm::ArrayRef<const Expr *> Args = parameterArguments(*Call);
  if (MD && !MD->isStatic()) {
    // `p->add(x)` on a tensor pointer: its pointee is the operand.
    QualType ObjType = Obj ? Obj->getType() : QualType();
    if (Obj && ObjType->isPointerType())
      ObjType = ObjType->getPointeeType();
    if (!Obj || !Index.isTensorType(ObjType))
      return Out;
    IsOp = true;
    Out.Operands.push_back(Obj);
    if (!MD->isConst())
      Out.InPlaceSelf = Obj;
  }
  if (!IsOp)
    return {};
  // `w.view_as(p)`, `w.to(p)`: p gives only a shape or a type; the runtime
  // never sees it as an operand.
  if (MD && MD->getDeclName().isIdentifier() &&
      llvm::is_contained(
          {"view_as", "reshape_as", "expand_as", "type_as", "to"},
          MD->getName()))
    return Out;
  for (const Expr *Arg : Args)
    addOperand(Arg, Index, Out);
  return Out;
}

} // namespace

llvm::SmallVector<const Expr *, 4> tensorOpOperands(const CallExpr &Call,
                                                    const ApiIndex &Index) {
  OpOperands Ops = opOperands(&Call, Index);
  if (Ops.Operands.size() < 2)
    return {};
  return Ops.Operands;
}

namespace {
class MixedOpCollector : public SiteList<MixedOpSite> {
public:
  MixedOpCollector(const FunctionDecl &FD, const ApiIndex &Index,
                   SummaryProvider *Summaries, std::vector<MixedOpSite> &Sites)
      : SiteList(Sites), Index(Index), Summaries(Summaries),
        TensorVars(tensorVariables(FD, Index)) {}

  void onCall(const CallExpr &Call, const Environment &Env,
              const OriginTable &Origins) override {
    OpOperands Ops = opOperands(&Call, Index);
    if (Ops.Operands.size() < 2) {
      if (Summaries)
        checkCallThrough(Call, Env, Origins);
      return;
    }
    std::optional<OperandFact> DT;
    llvm::SmallVector<OperandFact, 2> Plain;
    for (const Expr *E : Ops.Operands) {
      std::optional<OperandReading> R = readOperand({E, false}, Env, Origins);
      if (!R)
        continue;
      if (R->Fact.P == Provenance::DTensor && !DT)
        DT = R->Fact;
      else if (R->Fact.P == Provenance::Plain &&
               !isScalarLikeOperand(R->Fact.E, R->Fact.Origin, Index))
        Plain.push_back(R->Fact); // A one-element plain tensor is a scalar.
    }
    if (!DT || Plain.empty())
      return;
    Sites.push_back({&Call, *DT, std::move(Plain),
                     dtensorVariables(TensorVars, Env, &Call),
                     Ops.InPlaceSelf});
  }

private:
  /// A call handing a tensor to a function of this TU whose op mixes it.
  void checkCallThrough(const CallExpr &Call, const Environment &Env,
                        const OriginTable &Origins) {
    Summaries->forEachMixedOpSinkArgument(Call, [&](const MixedOpSinkFact &Sink,
                                                    const Expr *Arg) {
      std::optional<OperandReading> R = readOperand({Arg, false}, Env, Origins);
      if (!R)
        return;
      bool Mixes =
          Sink.AsDTensor
              ? R->Fact.P == Provenance::DTensor
              : R->Fact.P == Provenance::Plain &&
                    !isScalarLikeOperand(R->Fact.E, R->Fact.Origin, Index);
      if (!Mixes)
        return;
      MixedOpSite Site{&Call, R->Fact, {}, {}, nullptr, Sink.Op};
      Site.InnerElsewhere = Sink.Elsewhere;
      if (!Sink.AsDTensor) {
        Site.Plain.push_back(R->Fact);
        Site.DTensor.E = nullptr;
      }
      Sites.push_back(std::move(Site));
    });
  }

  const ApiIndex &Index;
  SummaryProvider *Summaries;
  const llvm::SmallVector<const VarDecl *, 8> TensorVars;
};
} // namespace

std::unique_ptr<SiteCollector>
collectMixedOps(const FunctionDecl &FD, const ApiIndex &Index,
                SummaryProvider *Summaries, std::vector<MixedOpSite> &Sites) {
  return std::make_unique<MixedOpCollector>(FD, Index, Summaries, Sites);
}

} // namespace analysis
} // namespace meshguard
