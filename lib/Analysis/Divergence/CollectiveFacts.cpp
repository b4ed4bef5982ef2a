//===--- CollectiveFacts.cpp - "coll": the collective a function performs -===//
//
// The first collective a function performs (itself or through helpers of
// its file) as dtensor-rank-divergent-collective sees it
// (DivergenceMemo::performed), so that a rank-dependent call of it in
// another file counts as that collective:
//   {"name": "meshguard::dist::all_reduce_", "at": the collective,
//    "p": 1, "ctl": [0, 14, 5]}
// "p" and "ctl": the parameter that decides whether a collective runs
// (`if (doit) barrier();`), and where that collective is
// (DivergenceMemo::parameterControls; the first one).
//
// The divergence analysis reads the stored fact itself
// (DivergenceMemo::imported): the provider's summaries have no field for it.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Divergence/DivergentCollectives.h"

namespace meshguard {
namespace analysis {

namespace {
class PerformedCollectiveKind final : public FactKind {
public:
  llvm::StringLiteral key() const override { return "coll"; }
  std::optional<SummaryFactKind> checkKind() const override {
    return SummaryFactKind::Collectives;
  }

  llvm::json::Value write(const ExportedFunction &F) const override {
    const std::optional<CollectiveCall> &C = F.Divergence.performed(F.FD);
    if (!C)
      return nullptr;
    llvm::json::Value At = F.Places.place(C->Inner, C->InnerElsewhere);
    if (At.kind() == llvm::json::Value::Null)
      return nullptr;
    llvm::json::Object O{{"name", C->InnerName}, {"at", std::move(At)}};
    llvm::ArrayRef<ParameterControl> Controls =
        F.Divergence.parameterControls(F.FD);
    if (!Controls.empty())
      if (llvm::json::Value Ctl =
              F.Places.place(Controls.front().Collective.Call,
                             Controls.front().Collective.InnerElsewhere);
          Ctl.kind() != llvm::json::Value::Null) {
        O["p"] = Controls.front().Param;
        O["ctl"] = std::move(Ctl);
      }
    return O;
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    const llvm::json::Object *O = V.getAsObject();
    if (!O) {
      P.report("expected an object");
      return false;
    }
    std::optional<llvm::StringRef> Name = O->getString("name");
    if (!Name || Name->empty()) {
      P.field("name").report("expected the collective's name");
      return false;
    }
    StoredCollective C;
    C.Name = Name->str();
    if (!Places.read(O->get("at"), P.field("at"), C.At))
      return false;
    if (O->get("p")) {
      unsigned Param = 0;
      if (!readParam(O->get("p"), P.field("p"), Param) ||
          !Places.read(O->get("ctl"), P.field("ctl"), C.ControlledAt))
        return false;
      C.Param = Param;
    }
    Out.Collective = std::move(C);
    return true;
  }

  bool has(const StoredSummary &S) const override {
    return S.Collective.has_value();
  }

  void import(const ImportedFunction &, FunctionSummary &) const override {}
};
} // namespace

const FactKind &collectiveFacts() {
  static const PerformedCollectiveKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
