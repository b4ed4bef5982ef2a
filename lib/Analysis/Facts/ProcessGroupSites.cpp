//===--- ProcessGroupSites.cpp - DTensors reaching raw c10d collectives ---===//

#include "meshguard/Analysis/Facts/ProcessGroupSites.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

/// What a braced-list element is where the list is built.
struct ElementFact {
  const Expr *E;
  /// A DTensor on every path.
  bool Surely;
  /// A DTensor on some path, every path known.
  bool Maybe;
};

/// Reads one tensor element of a braced list.
std::optional<ElementFact> readElement(const TensorOperand &Elem,
                                       const Environment &Env,
                                       const OriginTable &Origins) {
  if (Elem.IsContainer)
    return std::nullopt; // Nested containers are not tracked.
  std::optional<OperandReading> R = readOperand(Elem, Env, Origins);
  if (!R)
    return std::nullopt;
  DTensorPresence Presence = dtensorPresence(*R, Env);
  return ElementFact{Elem.E, Presence == DTensorPresence::Surely,
                     Presence == DTensorPresence::Maybe};
}

/// The local container variable \p ContainerExpr names, if its declaration
/// initialises it from a braced list.
const VarDecl *listInitialisedVariable(const Expr *ContainerExpr,
                                       const ApiIndex &Index) {
  const auto *Ref = dyn_cast<DeclRefExpr>(ContainerExpr->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getInit() &&
      tensorOperands(VD->getInit(), Index).FromList)
    return VD;
  return nullptr;
}

void addElement(const ElementFact &F, ProcessGroupSite &Site) {
  if (F.Surely)
    Site.WrapInToLocal.push_back(F.E);
  else if (F.Maybe)
    Site.MaybeDTensorElements.push_back(F.E);
}

} // namespace

/// The site of a call to a function of this TU that hands \p Arg to the raw
/// collective \p Sink names, if \p Arg is (maybe) a DTensor there.
static std::optional<ProcessGroupSite>
callThrough(const CallExpr &Call, const ProcessGroupSinkFact &Sink,
            const Expr *Arg, const Environment &Env, const OriginTable &Origins,
            const ApiIndex &Index) {
  ProcessGroupSite Site{&Call, Sink.Entry, false, {}, {}, {}, Sink.Collective};
  Site.InnerElsewhere = Sink.Elsewhere;
  auto Add = [&](const std::optional<OperandReading> &R) {
    if (!R)
      return;
    DTensorPresence Presence = dtensorPresence(*R, Env);
    if (Presence == DTensorPresence::None)
      return;
    Site.Surely |= Presence == DTensorPresence::Surely;
    Site.DTensorOperands.push_back(R->Fact);
  };
  if (Sink.IsModule)
    Add(readModuleOperand(Arg, Env, Index));
  else
    for (const TensorOperand &Op : tensorOperands(Arg, Index).Items)
      Add(readOperand(Op, Env, Origins));
  if (Site.DTensorOperands.empty())
    return std::nullopt;
  return Site;
}

namespace {
class ProcessGroupCollector : public SiteList<ProcessGroupSite> {
public:
  ProcessGroupCollector(const ApiIndex &Index, SummaryProvider *Summaries,
                        std::vector<ProcessGroupSite> &Sites)
      : SiteList(Sites), Index(Index), Summaries(Summaries) {}

  /// Remembers the elements of braced lists that initialise local
  /// containers, read where the declaration copies them (later changes to a
  /// variable named in the list do not change the copy).
  void onElement(const CFGElement &Elt, const Environment &Env,
                 const OriginTable &Origins) override {
    auto S = Elt.getAs<CFGStmt>();
    const auto *DS = S ? dyn_cast<DeclStmt>(S->getStmt()) : nullptr;
    if (!DS)
      return;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage() || !VD->getInit() ||
          !Index.isTensorContainerType(VD->getType()) || DeclElements.count(VD))
        continue;
      TensorOperands Elements = tensorOperands(VD->getInit(), Index);
      if (!Elements.FromList)
        continue;
      auto &Facts = DeclElements[VD];
      for (const TensorOperand &Elem : Elements.Items)
        if (std::optional<ElementFact> F = readElement(Elem, Env, Origins))
          Facts.push_back(*F);
    }
  }

  void onCall(const CallExpr &CallRef, const Environment &Env,
              const OriginTable &Origins) override {
    const CallExpr *Call = &CallRef;
    const ProcessGroupCollectiveEntry *Entry =
        Index.processGroupCollective(Call->getDirectCallee());
    if (!Entry) {
      if (Summaries)
        Summaries->forEachProcessGroupSinkArgument(
            *Call, [&](const ProcessGroupSinkFact &Sink, const Expr *Arg) {
              if (std::optional<ProcessGroupSite> Site =
                      callThrough(*Call, Sink, Arg, Env, Origins, Index))
                Sites.push_back(std::move(*Site));
            });
      return;
    }
    // Arguments of an operator call include the object; methods here are
    // named calls, so argument indices are parameter indices.
    ProcessGroupSite Site{Call, Entry, false, {}, {}, {}, nullptr};
    for (unsigned ArgIndex : Entry->TensorArgs) {
      if (ArgIndex >= Call->getNumArgs())
        continue;
      const Expr *Arg = Call->getArg(ArgIndex);
      TensorOperands Ops = tensorOperands(Arg, Index);
      for (const TensorOperand &Op : Ops.Items) {
        std::optional<OperandReading> R = readOperand(Op, Env, Origins);
        if (!R)
          continue;
        DTensorPresence Presence = dtensorPresence(*R, Env);
        if (Presence == DTensorPresence::None)
          continue;
        bool Surely = Presence == DTensorPresence::Surely;
        bool Maybe = Presence == DTensorPresence::Maybe;
        Site.Surely |= Surely;
        Site.DTensorOperands.push_back(R->Fact);
        if (!Op.IsContainer && Ops.FromList) {
          // An element of a braced list at the call.
          addElement({Op.E, Surely, Maybe}, Site);
          continue;
        }
        if (!Op.IsContainer)
          continue;
        if (const VarDecl *VD = listInitialisedVariable(Op.E, Index)) {
          auto It = DeclElements.find(VD);
          if (It != DeclElements.end())
            for (const ElementFact &F : It->second)
              addElement(F, Site);
        }
      }
    }
    if (!Site.DTensorOperands.empty())
      Sites.push_back(std::move(Site));
  }

private:
  const ApiIndex &Index;
  SummaryProvider *Summaries;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<ElementFact, 4>>
      DeclElements;
};
} // namespace

std::unique_ptr<SiteCollector>
collectProcessGroupCalls(const ApiIndex &Index, SummaryProvider *Summaries,
                         std::vector<ProcessGroupSite> &Sites) {
  return std::make_unique<ProcessGroupCollector>(Index, Summaries, Sites);
}

} // namespace analysis
} // namespace meshguard
