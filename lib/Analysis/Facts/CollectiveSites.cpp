//===--- CollectiveSites.cpp - Mesh-inferred collectives and their args ---===//

#include "meshguard/Analysis/Facts/CollectiveSites.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/FlowSensitive/Arena.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
/// Whether \p FD calls meshguard::is_dtensor.
bool callsDTensorTest(const FunctionDecl &FD, const ApiIndex &Index) {
  struct Finder : RecursiveASTVisitor<Finder> {
    explicit Finder(const ApiIndex &Index) : Index(Index) {}
    bool VisitCallExpr(CallExpr *Call) {
      Found = Index.isDTensorTest(Call->getDirectCallee());
      return !Found;
    }
    const ApiIndex &Index;
    bool Found = false;
  } F(Index);
  F.TraverseStmt(FD.getBody());
  return F.Found;
}
} // namespace

namespace {
class CollectiveCollector : public SiteList<CollectiveSite> {
public:
  CollectiveCollector(const FunctionDecl &FD, const ApiIndex &Index,
                      SummaryProvider *Summaries, bool WantMaybe,
                      std::vector<CollectiveSite> &Sites)
      : SiteList(Sites), Index(Index), Summaries(Summaries),
        WantMaybe(WantMaybe), TensorVars(tensorVariables(FD, Index)),
        // Only code that tests is_dtensor() can make a plain collective
        // unreachable; asking the solver elsewhere would cost every site a
        // query over the function's whole flow condition.
        TestsProvenance(callsDTensorTest(FD, Index)) {}

  void onCall(const CallExpr &Call, const Environment &Env,
              const OriginTable &Origins) override {
    const MeshCollectiveEntry *Entry =
        Index.meshCollective(Call.getDirectCallee());
    if (!Entry) {
      if (Summaries)
        checkCallThrough(Call, Env, Origins);
      return;
    }
    if (Entry->TensorArg >= Call.getNumArgs())
      return;
    TensorOperands Ops = tensorOperands(Call.getArg(Entry->TensorArg), Index);
    if (Ops.Items.empty())
      return; // `{}` or something we cannot see into: nothing to say.

    std::optional<OperandsReading> R = readOperands(Ops, Env, Origins);
    if (!R)
      return; // An argument we cannot read: unknown, never a warning.
    CollectiveSite Site{&Call,    Entry, nullptr, MeshVerdict::MayHaveMesh,
                        R->Facts, {}};
    const Formula &AllPlain = *R->AllPlain;
    if (!surely(*R->AllKnown, Env) || !reachable(AllPlain, Env))
      return;
    if (surely(AllPlain, Env))
      Site.Verdict = MeshVerdict::NoMesh;
    else if (WantMaybe && possiblyOnAPath(AllPlain, Env))
      Site.Verdict = MeshVerdict::MaybeNoMesh;
    else
      return;
    Site.DTensorVars = dtensorVariables(TensorVars, Env, &Call);
    Sites.push_back(std::move(Site));
  }

private:
  bool reachable(const Formula &Plain, const Environment &Env) const {
    return !TestsProvenance || Env.allows(Plain);
  }

  /// A call to a function of this TU whose parameter alone decides whether
  /// a collective inside has a mesh, given a plain (or maybe plain) argument.
  void checkCallThrough(const CallExpr &Call, const Environment &Env,
                        const OriginTable &Origins) {
    Summaries->forEachSinkArgument(
        Call, [&](const SinkFact &Sink, const Expr *Arg) {
          std::optional<OperandReading> R =
              Sink.IsModule ? readModuleOperand(Arg, Env, Index)
                            : readOperand({Arg, false}, Env, Origins);
          if (!R ||
              (R->Fact.P != Provenance::Plain &&
               R->Fact.P != Provenance::MaybePlain) ||
              !reachable(*R->AllPlain, Env))
            return;
          CollectiveSite Site{&Call,
                              Sink.Entry,
                              Sink.Collective,
                              R->Fact.P == Provenance::Plain
                                  ? MeshVerdict::NoMesh
                                  : MeshVerdict::MaybeNoMesh,
                              {R->Fact},
                              {}};
          Site.InnerElsewhere = Sink.Elsewhere;
          Sites.push_back(std::move(Site));
        });
  }

  const ApiIndex &Index;
  SummaryProvider *Summaries;
  const bool WantMaybe;
  const llvm::SmallVector<const VarDecl *, 8> TensorVars;
  const bool TestsProvenance;
};
} // namespace

std::unique_ptr<SiteCollector>
collectCollectives(const FunctionDecl &FD, const ApiIndex &Index,
                   SummaryProvider *Summaries, bool WantMaybe,
                   std::vector<CollectiveSite> &Sites) {
  return std::make_unique<CollectiveCollector>(FD, Index, Summaries, WantMaybe,
                                               Sites);
}

} // namespace analysis
} // namespace meshguard
