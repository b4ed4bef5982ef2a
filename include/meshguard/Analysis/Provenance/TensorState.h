//===--- TensorState.h - Facts in the Environment ---------------*- C++ -*-===//
//
// Provenance lives in synthetic fields of the RecordStorageLocation of every
// modelled tensor and tensor container (the UncheckedOptionalAccessModel
// pattern). A tensor has:
//   plain  - the value is a plain tensor (no DeviceMesh);
//   known  - a modelled source decided `plain` (false for parameters and
//            results of unmodelled calls: unknown values never warn);
//   origin - a pointer whose pointee stands for the call that gave the value
//            its provenance (see OriginTable), for notes.
// A container of tensors has all_plain, all_dtensor, any_dtensor, known
// (known: every element is known). A module (or its holder) has distributed
// and module_known: whether meshguard::distribute_module made its
// parameters DTensors.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_TENSORSTATE_H
#define MESHGUARD_ANALYSIS_TENSORSTATE_H

#include "clang/AST/Expr.h"
#include "clang/Analysis/FlowSensitive/DataflowEnvironment.h"
#include "clang/Analysis/FlowSensitive/Formula.h"
#include "clang/Analysis/FlowSensitive/StorageLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace meshguard {
namespace analysis {

class ApiIndex;

namespace field {
inline constexpr llvm::StringLiteral Plain = "meshguard.plain";
inline constexpr llvm::StringLiteral Known = "meshguard.known";
inline constexpr llvm::StringLiteral Origin = "meshguard.origin";
inline constexpr llvm::StringLiteral AllPlain = "meshguard.all_plain";
inline constexpr llvm::StringLiteral AllDTensor = "meshguard.all_dtensor";
inline constexpr llvm::StringLiteral AnyDTensor = "meshguard.any_dtensor";
inline constexpr llvm::StringLiteral AllKnown = "meshguard.all_known";
inline constexpr llvm::StringLiteral ModuleDistributed =
    "meshguard.distributed";
inline constexpr llvm::StringLiteral ModuleKnown = "meshguard.module_known";
} // namespace field

/// The synthetic fields of \p T (empty for types the model does not track).
llvm::StringMap<clang::QualType> syntheticFieldsFor(clang::QualType T,
                                                    const ApiIndex &Index,
                                                    clang::ASTContext &Ctx);

/// Maps expressions where a tensor became plain to stable storage locations
/// (the pointees of `origin` fields) and back. One table per analysed function.
class OriginTable {
public:
  /// \p PointeeType is the pointee type of the `origin` field (void: when
  /// two origins meet at a join, the framework makes a fresh pointer, and for
  /// any other pointee type also a value for its pointee, which would stay in
  /// the environment for good).
  explicit OriginTable(clang::QualType PointeeType)
      : PointeeType(PointeeType) {}

  clang::dataflow::StorageLocation &
  locationFor(const clang::Expr *E, clang::dataflow::Environment &Env);
  const clang::Expr *exprFor(const clang::dataflow::StorageLocation *L) const {
    return ExprOf.lookup(L);
  }

private:
  clang::QualType PointeeType;
  llvm::DenseMap<const clang::Expr *, clang::dataflow::StorageLocation *> LocOf;
  llvm::DenseMap<const clang::dataflow::StorageLocation *, const clang::Expr *>
      ExprOf;
};

/// Provenance of one tensor value, as formulas over the flow condition.
struct TensorFacts {
  const clang::dataflow::Formula *Plain;
  const clang::dataflow::Formula *Known;
  /// The call that made it plain (or a DTensor), when one call explains
  /// every path.
  const clang::Expr *Origin;
  /// is DTensor = Known && !Plain.
  const clang::dataflow::Formula &isDTensor(clang::dataflow::Arena &A) const {
    return A.makeAnd(*Known, A.makeNot(*Plain));
  }
};

/// Provenance of a container of tensors.
struct ContainerFacts {
  const clang::dataflow::Formula *AllPlain;
  const clang::dataflow::Formula *AllDTensor;
  const clang::dataflow::Formula *AnyDTensor;
  const clang::dataflow::Formula *AllKnown;
};

/// The record storage location an expression of record type denotes, or null.
/// Looks through copies, moves, temporaries and no-op casts; for a pointer
/// (`p` of `p->add(x)`), what it points to.
clang::dataflow::RecordStorageLocation *
recordLocation(const clang::Expr *E, const clang::dataflow::Environment &Env);

TensorFacts readTensor(const clang::dataflow::RecordStorageLocation &L,
                       const clang::dataflow::Environment &Env,
                       const OriginTable *Origins);
ContainerFacts readContainer(const clang::dataflow::RecordStorageLocation &L,
                             const clang::dataflow::Environment &Env);

void writeTensor(clang::dataflow::RecordStorageLocation &L,
                 const clang::dataflow::Formula &Plain,
                 const clang::dataflow::Formula &Known,
                 clang::dataflow::Value *Origin,
                 clang::dataflow::Environment &Env);
/// The raw `origin` value of a tensor location (to copy it along).
clang::dataflow::Value *
originValue(const clang::dataflow::RecordStorageLocation &L,
            const clang::dataflow::Environment &Env);
void writeContainer(clang::dataflow::RecordStorageLocation &L,
                    const ContainerFacts &F, clang::dataflow::Environment &Env);
/// Whether a module's parameters are DTensors (Distributed), when Known.
struct ModuleFacts {
  const clang::dataflow::Formula *Distributed;
  const clang::dataflow::Formula *Known;
};
ModuleFacts readModule(const clang::dataflow::RecordStorageLocation &L,
                       const clang::dataflow::Environment &Env);
void writeModule(clang::dataflow::RecordStorageLocation &L, bool Distributed,
                 clang::dataflow::Environment &Env);
void havocModule(clang::dataflow::RecordStorageLocation &L,
                 clang::dataflow::Environment &Env);

/// Forget everything about \p L (fresh atoms, not known).
void havocTensor(clang::dataflow::RecordStorageLocation &L,
                 clang::dataflow::Environment &Env);
void havocContainer(clang::dataflow::RecordStorageLocation &L,
                    clang::dataflow::Environment &Env);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_TENSORSTATE_H
