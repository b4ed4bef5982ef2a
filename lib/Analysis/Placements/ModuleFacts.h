//===--- ModuleFacts.h - Parameters that module calls made DTensors -*- C++
//-*-===//
//
// fully_shard(module, mesh) makes every parameter of the module (and of its
// submodules) Shard(0) on the mesh; parallelize_module(module, mesh, style)
// shards a Linear's or an Embedding's weight and bias by the style. A read
// of such a parameter later in the same function (`fc->weight`,
// `model->fc1->bias`, or the variable of a range `for` over
// `model->parameters()`) then has those placements; distribute_module
// replicates them on its mesh. A module's forward (`model(x)`,
// `model->forward(x)`) gives its input's mesh and placements
// (PlacementTransfer.cpp), and the module's mesh is what dtensor-mixed-meshes
// compares the input's with. Flow-insensitive but
// ordered: a call counts for the reads after it in the function's text,
// until a GatheredParameters of the module (gathered: not followed).
//
// A declared heuristic across the functions of one file (ModuleSetups): a
// module parameter that no call of its own function distributes takes the
// placements that another function of the main file gives its parameter of
// the same name and module type (a trainer's `shard_model(Linear &model)`,
// then `grad_norm(Linear &model)`), when exactly one function does.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_MODULEFACTS_H
#define MESHGUARD_LIB_ANALYSIS_MODULEFACTS_H

#include "Placements/PlacementFacts.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <vector>

namespace meshguard {
namespace analysis {

/// A module expression as the variable (or `this`) it starts from and the
/// fields taken from there: `model->fc1` and `*model->fc1` are {model,
/// [fc1]}, `*fc` is {fc, []}.
struct ModulePath {
  /// Null for `this`.
  const clang::ValueDecl *Root = nullptr;
  llvm::SmallVector<const clang::ValueDecl *, 3> Fields;

  /// Whether this path is \p O or one of its submodules'.
  bool within(const ModulePath &O) const;
};

/// The path of \p E, a module, a module holder or a pointer to one.
std::optional<ModulePath> modulePath(const clang::Expr *E);

class ModuleSetups;

class ModulePlacements {
public:
  /// The fully_shard and parallelize_module calls of \p FD; with \p Setups,
  /// those of the file's other functions on a parameter like one of \p FD's.
  ModulePlacements(const clang::FunctionDecl &FD, const ApiIndex &Index,
                   clang::ASTContext &Ctx,
                   const ModuleSetups *Setups = nullptr);

  /// The placements of \p Read, a tensor field of a module, made by a call
  /// before it; none when no such call is known.
  std::optional<PlacementState> parameter(const clang::MemberExpr &Read) const;
  /// The placements of \p V, the variable of a range `for` over a module's
  /// parameters(), when a call before the loop made them DTensors (a
  /// tensor-parallel style's module: the weight's and the bias's joined).
  std::optional<PlacementState> loopParameter(const clang::VarDecl &V) const;
  /// The mesh (MeshMadeBy, MeshDims, MeshAt) a call before \p Module put
  /// its parameters on, when one is known.
  std::optional<PlacementState> meshOf(const clang::Expr &Module) const;

  struct Made {
    ModulePath Module;
    /// The call, or a GatheredParameters variable's construction (then
    /// the parameters are gathered, Replicate, for the rest of the
    /// function: unknown).
    const clang::Expr *Call;
    /// fully_shard: every tensor field of the module and its submodules.
    bool Recursive;
    bool Gathered;
    /// The placements of a recursive call's parameters, or of the weight
    /// and the bias of a tensor-parallel style's module.
    PlacementState Weight, Bias;
    /// Made in another function (ModuleSetups): holds from the entry.
    bool Elsewhere = false;
  };

private:
  friend class ModuleSetups;
  void collect(const clang::Stmt *S);
  void add(const clang::CallExpr &Call, const PlacementCallEntry &Entry);
  void addGathered(const clang::VarDecl &V);
  void addDistributed(const clang::CallExpr &Call);
  void addLoop(const clang::CXXForRangeStmt &For);
  std::optional<PlacementState>
  covering(const ModulePath &Module, clang::SourceLocation At, bool Loop) const;
  struct Loop {
    const clang::VarDecl *Var;
    ModulePath Module;
    const clang::CXXForRangeStmt *For;
  };
  std::vector<Loop> Loops;

  const ApiIndex &Index;
  clang::ASTContext &Ctx;
  std::vector<Made> Calls;
};

/// The calls of the main file's functions that distribute a module
/// parameter of their own function (the heuristic above), by the
/// parameter's name and type. Built once per TU.
class ModuleSetups {
public:
  ModuleSetups(const ApiIndex &Index, clang::ASTContext &Ctx);
  /// The calls on a parameter like \p P (its name, its module type) of the
  /// one other function that makes them; none when no function or several
  /// do.
  llvm::ArrayRef<ModulePlacements::Made>
  like(const clang::ParmVarDecl &P) const;

private:
  struct Setup {
    const clang::ParmVarDecl *Param;
    std::vector<ModulePlacements::Made> Calls;
  };
  void addFunction(const clang::FunctionDecl &FD);
  void walk(const clang::DeclContext &DC);
  const ApiIndex &Index;
  clang::ASTContext &Ctx;
  std::vector<Setup> Setups;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_MODULEFACTS_H
