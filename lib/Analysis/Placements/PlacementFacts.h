//===--- PlacementFacts.h - What a tensor's placements may be ---*- C++ -*-===//
//
// A may-analysis of DTensor placements over one function's local
// variables, lighter than the provenance model (as the rank-dependence
// analysis): per variable, the tensor dims it may be sharded on (over every
// mesh dim together), whether it may be Partial, and, for the plain result
// of to_local() of a maybe-Partial DTensor, that it holds one rank's partial
// contribution. A variable without facts is unknown and never warns.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_PLACEMENTFACTS_H
#define MESHGUARD_LIB_ANALYSIS_PLACEMENTFACTS_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace meshguard {
namespace analysis {

struct PlacementState {
  enum class Kind : std::uint8_t {
    /// A DTensor: ShardDims and MayPartial hold.
    DTensor,
    /// A plain tensor holding one rank's contribution to a Partial value.
    PartialLocal,
    /// A plain tensor holding one rank's shard of a DTensor sharded on the
    /// known dims ShardDims (to_local of a Shard): a reduction over a
    /// sharded dim gives one rank's contribution to the whole (the runtime
    /// would make it Partial).
    ShardLocal,
  };
  /// Bit d (d < 7): may be Shard(d) on some mesh dim.
  static constexpr std::uint8_t UnknownDim = 0x80;

  Kind What = Kind::DTensor;
  std::uint8_t ShardDims = 0;
  bool MayPartial = false;
  /// Where the value may have become Partial.
  NotePlace PartialOrigin;
  /// Where a DTensor got the placements that make it sharded or Partial.
  NotePlace PlacedAt;
  /// The number of mesh dims its placements were spelled with (0: unknown).
  std::uint8_t MeshDims = 0;
  /// The init_device_mesh call its mesh was made by, when one is known (in
  /// this TU: a helper of another file gives the dims only).
  const clang::CallExpr *MeshMadeBy = nullptr;
  /// The call that put it on its mesh (from_local, distribute_tensor).
  NotePlace MeshAt;
  /// PartialLocal: the to_local call, or none for a helper's parameter.
  NotePlace ToLocal;
  /// PartialLocal in a helper's summary run: the parameter it stands for.
  const clang::ParmVarDecl *Param = nullptr;
  /// In a helper's summary run: the to_local of Param's argument (a helper
  /// that wraps to_local), not the argument itself.
  bool LocalOfParam = false;
  /// PartialLocal: made by reducing one rank's shard (ShardLocal) over a
  /// sharded dim at PartialOrigin, rather than by to_local of a Partial.
  bool FromShard = false;
  /// In a helper's summary run, with LocalOfParam: what was done to that
  /// to_local since (linear ops aside): a reduction over every dim,
  /// non-linear pointwise ops, or both (a hand-made norm's squares). Given
  /// a sharded argument, a reduced one gives one rank's part of the whole.
  enum class AfterLocal : std::uint8_t {
    None,
    Reduced,
    Pointwise,
    PointwiseReduced
  };
  AfterLocal Then = AfterLocal::None;

  bool isPartialLocal() const { return What == Kind::PartialLocal; }
  bool isDTensor() const { return What == Kind::DTensor; }
  bool isShardLocal() const { return What == Kind::ShardLocal; }
  bool maySplit() const { return isDTensor() && (ShardDims || MayPartial); }
  /// A partial local value wins over a DTensor fact (the uses are what is
  /// reported); otherwise bits are joined.
  void join(const PlacementState &O);
  bool operator==(const PlacementState &O) const {
    return What == O.What && ShardDims == O.ShardDims &&
           MayPartial == O.MayPartial && PartialOrigin == O.PartialOrigin &&
           ToLocal == O.ToLocal && Param == O.Param && PlacedAt == O.PlacedAt &&
           MeshDims == O.MeshDims && LocalOfParam == O.LocalOfParam &&
           FromShard == O.FromShard && Then == O.Then;
  }
  bool operator!=(const PlacementState &O) const { return !(*this == O); }
};

/// What a fact is about: a local variable or parameter, or one field of it
/// (`s.total`, `p->total`; the field is null for the variable itself).
using PlacementPlace =
    std::pair<const clang::VarDecl *, const clang::FieldDecl *>;
using PlacementVars = llvm::DenseMap<PlacementPlace, PlacementState>;

/// The summary of a helper the transfer asks for at its calls.
struct HelperPlacements {
  /// What it returns: a DTensor's placements, or a partial local value
  /// (Param set: the argument given to that parameter, passed through).
  std::optional<PlacementState> Returns;
  /// Per parameter, where it is used as a full value (none: not).
  llvm::SmallVector<NotePlace, 4> FullUseOfParam;
};
using HelperLookup =
    std::function<const HelperPlacements *(const clang::FunctionDecl &)>;

/// A tensor op call read as the rule table names it: "sum" for x.sum(),
/// at::sum(x) and torch::sum(x), "add" for `a + b`, "mul_" for `a *= b`;
/// the operand expressions (the object of a method first).
struct TensorOpCall {
  std::string Name;
  llvm::SmallVector<const clang::Expr *, 3> Operands;
  /// The other arguments (a reduction's dims).
  llvm::SmallVector<const clang::Expr *, 3> Others;
};
std::optional<TensorOpCall> readTensorOp(const clang::CallExpr &Call,
                                         const ApiIndex &Index);

class ModulePlacements;
struct OperatorRule;

class PlacementTransfer {
public:
  PlacementTransfer(clang::ASTContext &Ctx, const ApiIndex &Index,
                    HelperLookup Helpers)
      : Ctx(Ctx), Index(Index), Helpers(std::move(Helpers)) {}

  /// The facts of \p E's value under \p Vars (none: unknown or plain).
  std::optional<PlacementState> evaluate(const clang::Expr *E,
                                         const PlacementVars &Vars) const;
  /// Applies one CFG statement (declarations, assignments, in-place ops).
  void transfer(const clang::Stmt *S, PlacementVars &Vars) const;
  /// The result of the tensor op \p Op given its operands' facts.
  std::optional<PlacementState> applyOp(const TensorOpCall &Op,
                                        const clang::CallExpr &Call,
                                        const PlacementVars &Vars) const;

  const ApiIndex &index() const { return Index; }
  /// The module parameters the function's fully_shard and
  /// parallelize_module calls made DTensors (must outlive the transfer).
  void setModules(const ModulePlacements *M) { Modules = M; }
  const ModulePlacements *modules() const { return Modules; }
  /// The summary of the function \p Callee calls: its definition's here,
  /// or the summary database's entry when it has no body here.
  const HelperPlacements *helperOf(const clang::FunctionDecl &Callee) const {
    const clang::FunctionDecl *Def = Callee.getDefinition();
    return Helpers(Def ? *Def : *Callee.getCanonicalDecl());
  }

private:
  std::optional<PlacementState> evaluateCall(const clang::CallExpr &Call,
                                             const PlacementVars &Vars) const;
  /// A plain op on one rank's shard (Facts: its operands' facts).
  std::optional<PlacementState>
  shardLocalOp(const TensorOpCall &Op, const clang::CallExpr &Call,
               llvm::ArrayRef<PlacementState> Facts,
               const OperatorRule *Rule) const;
  /// An op in a helper's summary run on the to_local of a parameter's
  /// argument (\p Local).
  std::optional<PlacementState> localOfParamOp(const TensorOpCall &Op,
                                               const PlacementState &Local,
                                               const OperatorRule *Rule) const;
  void assign(const clang::Expr *Target, std::optional<PlacementState> S,
              PlacementVars &Vars) const;

  /// The dims a reduction's arguments name: none when it has no dim
  /// argument (every dim is reduced).
  std::optional<std::uint8_t>
  reducedDims(llvm::ArrayRef<const clang::Expr *> Others) const;

  clang::ASTContext &Ctx;
  const ApiIndex &Index;
  HelperLookup Helpers;
  const ModulePlacements *Modules = nullptr;
};

/// The input of a module's forward (`model->forward(x)`, `model(x)`, `(*m)(x)`
/// on a torch::nn module or module holder): its first tensor argument, or
/// null when \p Call is none.
const clang::Expr *moduleInput(const clang::CallExpr &Call,
                               const ApiIndex &Index);
/// The module object of such a call (`model`), or null.
const clang::Expr *moduleOfForward(const clang::CallExpr &Call);

/// The placements a `{Shard{0}, Replicate{}}` argument spells, folded over
/// mesh dims; a DTensor with unknown dims when it is not a literal list.
PlacementState readPlacements(const clang::Expr *Arg, clang::ASTContext &Ctx);

/// \p E without parentheses, casts, temporaries and copies.
const clang::Expr *stripCopies(const clang::Expr *E);

/// The first subexpression of \p E (itself included) that \p Pred accepts.
template <typename Predicate>
const clang::Expr *findSubExpr(const clang::Expr *E, Predicate Pred) {
  if (!E)
    return nullptr;
  if (Pred(E))
    return E;
  for (const clang::Stmt *Child : E->children())
    if (const clang::Expr *Found =
            findSubExpr(llvm::dyn_cast_or_null<clang::Expr>(Child), Pred))
      return Found;
  return nullptr;
}

/// The elements of a braced list argument (`{Shard{0}, Replicate{}}`, as a
/// std::vector or an ArrayRef), or null when the argument is not one.
const clang::InitListExpr *bracedList(const clang::Expr *Arg);

/// The init_device_mesh call a DeviceMesh expression's value comes from: a
/// variable initialised with one, or with a copy of such a variable.
const clang::CallExpr *meshMadeBy(const clang::Expr *Mesh,
                                  const ApiIndex &Index);

/// The number of dims of the mesh \p Made (an init_device_mesh call) makes,
/// when its shape is a literal; 0 otherwise.
unsigned literalMeshDims(const clang::CallExpr *Made, const ApiIndex &Index,
                         clang::ASTContext &Ctx);

/// Whether DTensors \p A and \p B surely live on different meshes: their
/// placements were spelled for different numbers of mesh dims, or their
/// meshes come from init_device_mesh calls with different literal shapes
/// or device types. (Meshes compare by device type, shape and ranks, as in
/// PyTorch: two calls with the same shape make equal meshes.)
bool surelyDifferentMeshes(const PlacementState &A, const PlacementState &B,
                           const ApiIndex &Index, clang::ASTContext &Ctx);

/// "a 2-D mesh", or "mesh [2, 2]" when its shape is a literal.
std::string describeMesh(const PlacementState &S, const ApiIndex &Index,
                         clang::ASTContext &Ctx);

/// Whether \p Arg is a braced placement list of Replicate{} only.
bool spellsOnlyReplicate(const clang::Expr *Arg);

/// The variable \p E names (through parens and casts), or null.
const clang::VarDecl *namedVariable(const clang::Expr *E);

/// The place \p E names: a variable, or a field of one; none otherwise.
std::optional<PlacementPlace> placeOf(const clang::Expr *E);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_PLACEMENTFACTS_H
