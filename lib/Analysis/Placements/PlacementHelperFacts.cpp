//===--- PlacementHelperFacts.cpp - "plc": placements a function gives ----===//
//
// What the placement checks (PlacementScan.h) know of a function, so that
// a call of it in another file counts as in its own file:
//   {"ret": {"shard": 1, "partial": true, "dims": 1, "origin": [0, 7, 10],
//            "placed": [0, 7, 10], "mesh": [0, 5, 12]},
//    "full": [{"p": 0, "at": [0, 12, 3]}]}
// "ret": the DTensor it returns (the tensor dims it may be sharded on as
// bits, 128 for an unknown dim; whether it may be Partial; the mesh's dims
// as its placements spell them), or, with "local": true, one rank's share
// of a Partial value (its to_local at "to_local"); "pass": the parameter
// whose argument it returns, facts and all ("local_of": true, its
// to_local(): a helper that wraps to_local). "full": the parameters it uses
// as full values (item(), a non-linear op, printed, saved), where.
//
// "replica": the parameters it wraps as replicas without run_check
// (DivergenceMemo::replicaParameters, which the engine asks for this kind:
// ExportedFunction::Replicas), where.
//
// The placement memo and the divergence memo read the stored fact
// themselves (PlacementMemo::Impl::imported,
// DivergenceMemo::importedReplicas): the provider's summaries have no field
// for it.
//
//===----------------------------------------------------------------------===//

#include "Placements/PlacementFacts.h"
#include "Summaries/FactKind.h"

namespace meshguard {
namespace analysis {

namespace {
class PlacementHelperKind final : public FactKind {
public:
  llvm::StringLiteral key() const override { return "plc"; }
  std::optional<SummaryFactKind> checkKind() const override {
    return SummaryFactKind::Placements;
  }

  llvm::json::Value write(const ExportedFunction &F) const override {
    llvm::json::Object O;
    llvm::json::Array Full, Replicas;
    if (const HelperPlacements *H = F.Placements.summary(F.FD)) {
      if (H->Returns)
        if (llvm::json::Value R = writeReturn(*H->Returns, F.Places);
            R.kind() != llvm::json::Value::Null)
          O["ret"] = std::move(R);
      for (unsigned I = 0; I < H->FullUseOfParam.size(); ++I)
        addParameterFact(Full, I, place(H->FullUseOfParam[I], F.Places));
    }
    for (const ExportedReplica &R : F.Replicas())
      addParameterFact(Replicas, R.Param,
                       F.Places.place(R.FromLocal, R.Elsewhere));
    if (!Full.empty())
      O["full"] = std::move(Full);
    if (!Replicas.empty())
      O["replica"] = std::move(Replicas);
    return O.empty() ? llvm::json::Value(nullptr) : std::move(O);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    const llvm::json::Object *O = V.getAsObject();
    if (!O) {
      P.report("expected an object");
      return false;
    }
    StoredPlacements S;
    if (const llvm::json::Value *R = O->get("ret")) {
      S.Return.emplace();
      if (!readReturn(*R, P.field("ret"), Places, *S.Return))
        return false;
    }
    if (!readParameterFacts(*O, "full", P, Places, S.FullUses) ||
        !readParameterFacts(*O, "replica", P, Places, S.Replicas))
      return false;
    Out.Placements = std::move(S);
    return true;
  }

  bool has(const StoredSummary &S) const override {
    return S.Placements.has_value();
  }

  void import(const ImportedFunction &, FunctionSummary &) const override {}

private:
  /// {"p": Param, "at": At}, unless At is nowhere.
  static void addParameterFact(llvm::json::Array &Out, unsigned Param,
                               llvm::json::Value At) {
    if (At.kind() != llvm::json::Value::Null)
      Out.push_back(llvm::json::Object{{"p", Param}, {"at", std::move(At)}});
  }

  /// Reads the array \p Key of \p O (if any) of {"p", "at"} facts.
  static bool
  readParameterFacts(const llvm::json::Object &O, llvm::StringRef Key,
                     llvm::json::Path P, const PlaceReader &Places,
                     std::vector<std::pair<unsigned, ExternalSite>> &Out) {
    const llvm::json::Value *V = O.get(Key);
    return !V ||
           readFactArray(
               *V, P.field(Key),
               [&](const llvm::json::Value &Fact, llvm::json::Path FactPath) {
                 const llvm::json::Object *F = Fact.getAsObject();
                 if (!F) {
                   FactPath.report("expected an object");
                   return false;
                 }
                 std::pair<unsigned, ExternalSite> Item;
                 if (!readParam(F->get("p"), FactPath.field("p"), Item.first) ||
                     !Places.read(F->get("at"), FactPath.field("at"),
                                  Item.second))
                   return false;
                 Out.push_back(std::move(Item));
                 return true;
               });
  }

  static llvm::json::Value place(const NotePlace &At, PlaceWriter &Places) {
    if (!At)
      return nullptr;
    return Places.place(At.Here, At.Elsewhere);
  }

  static llvm::json::Value writeReturn(const PlacementState &R,
                                       PlaceWriter &Places) {
    llvm::json::Object O;
    if (R.isShardLocal())
      return nullptr; // a shard's local tensor: nothing to report by itself
    // Non-linear ops on a parameter's local tensor: not stored (yet); one
    // summed as it is is stored as the local tensor (what a Partial's
    // share gives; a shard's part of the whole is not followed across).
    if (R.Then == PlacementState::AfterLocal::Pointwise ||
        R.Then == PlacementState::AfterLocal::PointwiseReduced)
      return nullptr;
    if (R.isPartialLocal()) {
      // A share with neither its to_local nor a parameter behind it is never
      // reported: nothing to say.
      if (!R.ToLocal && !R.Param)
        return nullptr;
      O["local"] = true;
    } else {
      O["shard"] = R.ShardDims;
      O["partial"] = R.MayPartial;
      O["dims"] = R.MeshDims;
    }
    if (R.Param)
      O["pass"] = R.Param->getFunctionScopeIndex();
    if (R.Param && R.LocalOfParam)
      O["local_of"] = true;
    const std::pair<llvm::StringLiteral, const NotePlace *> Sites[] = {
        {"to_local", &R.ToLocal},
        {"origin", &R.PartialOrigin},
        {"placed", &R.PlacedAt},
        {"mesh", &R.MeshAt}};
    for (const auto &[Key, At] : Sites)
      if (llvm::json::Value V = place(*At, Places);
          V.kind() != llvm::json::Value::Null)
        O[Key] = std::move(V);
    return O;
  }

  static bool readReturn(const llvm::json::Value &V, llvm::json::Path P,
                         const PlaceReader &Places, StoredPlacementReturn &R) {
    const llvm::json::Object *O = V.getAsObject();
    if (!O) {
      P.report("expected an object");
      return false;
    }
    R.PartialLocal = O->getBoolean("local").value_or(false);
    std::optional<int64_t> Shard = O->getInteger("shard");
    std::optional<int64_t> Dims = O->getInteger("dims");
    if (!R.PartialLocal) {
      if (!Shard || *Shard < 0 || *Shard > 255) {
        P.field("shard").report("expected the sharded dims' bits (0 to 255)");
        return false;
      }
      if (!Dims || *Dims < 0 || *Dims > 64) {
        P.field("dims").report("expected the mesh's number of dims");
        return false;
      }
      R.ShardDims = static_cast<unsigned>(*Shard);
      R.MeshDims = static_cast<unsigned>(*Dims);
      R.MayPartial = O->getBoolean("partial").value_or(false);
    }
    if (O->get("pass")) {
      unsigned Param = 0;
      if (!readParam(O->get("pass"), P.field("pass"), Param))
        return false;
      R.PassThrough = Param;
      R.LocalOfPass = O->getBoolean("local_of").value_or(false);
    }
    const std::pair<llvm::StringLiteral, std::optional<ExternalSite> *>
        Sites[] = {{"to_local", &R.ToLocal},
                   {"origin", &R.Origin},
                   {"placed", &R.Placed},
                   {"mesh", &R.Mesh}};
    for (const auto &[Key, At] : Sites)
      if (O->get(Key)) {
        At->emplace();
        if (!Places.read(O->get(Key), P.field(Key), **At))
          return false;
      }
    return true;
  }
};
} // namespace

const FactKind &placementFacts() {
  static const PlacementHelperKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
