//===--- MixedOpSinkFacts.cpp - "mixed": parameters that make an op mix ---===//
//
// A tensor parameter that alone makes a tensor op inside the function mix a
// DTensor with a plain tensor (dtensor-mixed-tensor-op): {"p": parameter,
// "dtensor": true when it mixes given a DTensor (false: given a plain
// tensor), "at": the op}.
//
//===----------------------------------------------------------------------===//

#include "Provenance/ScalarLikeTensors.h"
#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Facts/MixedOpSites.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
class MixedOpSinkCollector final : public SummaryCollector {
public:
  explicit MixedOpSinkCollector(const SummaryInputs &In) : In(In) {}

  void visit(const Stmt &S, const Environment &Env, const OriginTable &Origins,
             FunctionSummary &Out) override {
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      addDirect(*Call, Env, Origins, Out);
      addThrough(*Call, Env, Origins, Out);
    }
  }

private:
  /// A tensor input is a mixed-op sink when "it is a DTensor" implies "this
  /// operand is one" and another operand is surely plain (or the same with
  /// plain and DTensor exchanged). An operand decided anyway is the
  /// function's own finding.
  void addDirect(const CallExpr &Call, const Environment &Env,
                 const OriginTable &Origins, FunctionSummary &Out) {
    const ApiIndex &Index = In.Provider.index();
    llvm::SmallVector<const Expr *, 4> Operands = tensorOpOperands(Call, Index);
    if (Operands.empty())
      return;
    llvm::SmallVector<std::optional<OperandReading>, 4> Read;
    bool AnyPlain = false, AnyDTensor = false;
    for (const Expr *E : Operands) {
      const std::optional<OperandReading> &R =
          Read.emplace_back(readOperand({E, false}, Env, Origins));
      if (!R)
        continue;
      AnyDTensor |= R->Fact.P == Provenance::DTensor;
      AnyPlain |= R->Fact.P == Provenance::Plain &&
                  !isScalarLikeOperand(R->Fact.E, R->Fact.Origin, Index);
    }
    if (!AnyPlain && !AnyDTensor)
      return;
    Arena &A = Env.arena();
    for (const std::optional<OperandReading> &R : Read) {
      if (!R || R->Fact.P == Provenance::DTensor ||
          R->Fact.P == Provenance::Plain)
        continue;
      const Formula &IsDTensor = A.makeAnd(*R->AllKnown, *R->AnyDTensor);
      const Formula &IsPlain = A.makeAnd(*R->AllKnown, *R->AllPlain);
      for (const TensorInputAtoms &P : In.Tensors) {
        const Formula &ParamDTensor = A.makeAnd(*P.Known, A.makeNot(*P.Plain));
        const Formula &ParamPlain = A.makeAnd(*P.Known, *P.Plain);
        std::optional<bool> AsDTensor;
        if (AnyPlain && Env.proves(A.makeImplies(ParamDTensor, IsDTensor)) &&
            Env.allows(ParamDTensor))
          AsDTensor = true;
        else if (AnyDTensor && Env.proves(A.makeImplies(ParamPlain, IsPlain)) &&
                 Env.allows(ParamPlain))
          AsDTensor = false;
        if (AsDTensor && Seen.insert({P.Index, &Call}).second)
          Out.MixedOpSinks.push_back({P.Index, &Call, *AsDTensor});
      }
    }
  }

  /// A tensor input is a mixed-op sink of a helper's mixed-op sink it alone
  /// decides: "it is a DTensor" (plain) implies the helper's argument is
  /// one. Each helper is summarised once, so depth costs one more query per
  /// sink, bounded by the provider's depth.
  void addThrough(const CallExpr &Call, const Environment &Env,
                  const OriginTable &Origins, FunctionSummary &Out) {
    In.Provider.forEachMixedOpSinkArgument(
        Call, [&](const MixedOpSinkFact &Inner, const Expr *Arg) {
          std::optional<OperandReading> R =
              readOperand({Arg, false}, Env, Origins);
          if (!R || R->Fact.P == Provenance::DTensor ||
              R->Fact.P == Provenance::Plain)
            return; // Decided anyway: the caller's own finding.
          Arena &A = Env.arena();
          const Formula &Target = Inner.AsDTensor
                                      ? A.makeAnd(*R->AllKnown, *R->AnyDTensor)
                                      : A.makeAnd(*R->AllKnown, *R->AllPlain);
          for (const TensorInputAtoms &P : In.Tensors) {
            const Formula &Given =
                Inner.AsDTensor ? A.makeAnd(*P.Known, A.makeNot(*P.Plain))
                                : A.makeAnd(*P.Known, *P.Plain);
            if (Env.proves(A.makeImplies(Given, Target)) && Env.allows(Given) &&
                Seen.insert({P.Index, Inner.key()}).second)
              Out.MixedOpSinks.push_back(
                  {P.Index, Inner.Op, Inner.AsDTensor, Inner.Elsewhere});
          }
        });
  }

  SummaryInputs In;
  /// (input, op or place) pairs already recorded.
  llvm::DenseSet<std::pair<unsigned, const void *>> Seen;
};

class MixedOpSinkKind final : public FactKind {
public:
  std::unique_ptr<SummaryCollector>
  collector(const SummaryInputs &In) const override {
    if (In.Tensors.empty())
      return nullptr;
    return std::make_unique<MixedOpSinkCollector>(In);
  }

  llvm::StringLiteral key() const override { return "mixed"; }
  std::optional<SummaryFactKind> checkKind() const override {
    return SummaryFactKind::MixedOpSinks;
  }

  llvm::json::Value write(const ExportedFunction &F) const override {
    llvm::json::Array A;
    for (const MixedOpSinkFact &Fact : F.Summary.MixedOpSinks) {
      llvm::json::Value At = F.Places.place(Fact.Op, Fact.Elsewhere);
      if (At.kind() != llvm::json::Value::Null)
        A.push_back(llvm::json::Object{{"p", Fact.Param},
                                       {"dtensor", Fact.AsDTensor},
                                       {"at", std::move(At)}});
    }
    return A.empty() ? llvm::json::Value(nullptr) : std::move(A);
  }

  bool read(const llvm::json::Value &V, llvm::json::Path P,
            const PlaceReader &Places, StoredSummary &Out) const override {
    return readFactArray(
        V, P, [&](const llvm::json::Value &Fact, llvm::json::Path FactPath) {
          llvm::json::ObjectMapper O(Fact, FactPath);
          StoredMixedOpSink S;
          if (!O || !O.mapOptional("dtensor", S.AsDTensor))
            return false;
          const llvm::json::Object &Fields = *Fact.getAsObject();
          if (!readParam(Fields.get("p"), FactPath.field("p"), S.Param) ||
              !Places.read(Fields.get("at"), FactPath.field("at"), S.At))
            return false;
          Out.MixedOpSinks.push_back(std::move(S));
          return true;
        });
  }

  bool has(const StoredSummary &S) const override {
    return !S.MixedOpSinks.empty();
  }

  void import(const ImportedFunction &F, FunctionSummary &Out) const override {
    for (const StoredMixedOpSink &S : F.Stored.MixedOpSinks)
      if (S.Param < F.Params)
        Out.MixedOpSinks.push_back(
            {S.Param, nullptr, S.AsDTensor, F.Place(S.At)});
  }
};
} // namespace

const FactKind &mixedOpSinkFacts() {
  static const MixedOpSinkKind Kind;
  return Kind;
}

} // namespace analysis
} // namespace meshguard
