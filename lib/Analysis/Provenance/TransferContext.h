//===--- TransferContext.h - What every transfer function works on -*- C++ -*-//
//
// The provenance model's transfer functions (TensorTransfer.cpp,
// ContainerTransfer.cpp, ModuleTransfer.cpp, UnknownCallTransfer.cpp) are free
// functions of one construct and a TransferContext; ProvenanceModel.cpp's
// buildTransferSwitch() says which one handles which construct, in order of
// precedence. Each subject file also holds the tests (`is...`) that its
// cases in the switch match on.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_TRANSFERCONTEXT_H
#define MESHGUARD_ANALYSIS_TRANSFERCONTEXT_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "meshguard/Analysis/Provenance/TensorState.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Analysis/FlowSensitive/DataflowEnvironment.h"

namespace meshguard {
namespace analysis {

class LoopVariableWrites;
class CalleeSummaries;

struct TransferContext {
  const ApiIndex &Index;
  OriginTable &Origins;
  clang::dataflow::Environment &Env;
  clang::dataflow::Arena &A;
  CalleeSummaries *Summaries;
  LoopVariableWrites *LoopWrites;
};

/// The location of the tensor or container a call returns: the result object
/// of a prvalue, or (for a reference result) the location the framework gave
/// the glvalue, created if it gave none.
clang::dataflow::RecordStorageLocation *
resultLocation(const clang::Expr *E, clang::dataflow::Environment &Env);

/// Provenance folded over the operands of an op or the elements of a
/// container: a value is known when it is known to be a DTensor somewhere or
/// every part is known.
struct ProvenanceFold {
  const clang::dataflow::Formula *AllPlain;
  const clang::dataflow::Formula *AllDTensor;
  const clang::dataflow::Formula *AnyDTensor;
  const clang::dataflow::Formula *AllKnown;
  clang::dataflow::Value *FirstOrigin = nullptr;
  unsigned NumOperands = 0;

  /// No operand: all plain, all DTensors, none a DTensor, all known.
  static ProvenanceFold empty(clang::dataflow::Arena &A);
  /// Starts from a container's facts (push_back adds to them).
  static ProvenanceFold of(const ContainerFacts &F);

  /// Folds one operand (tensor or container).
  void add(const TensorOperand &Op, const clang::dataflow::Environment &Env);
  /// Folds the tensor or container at \p L (null: unknown).
  void addAt(clang::dataflow::RecordStorageLocation *L, bool IsContainer,
             const clang::dataflow::Environment &Env);
  /// Folds an operand nothing is known about.
  void addUnknown(clang::dataflow::Arena &A);

  ContainerFacts asContainer() const {
    return {AllPlain, AllDTensor, AnyDTensor, AllKnown};
  }
};

/// A tensor method called through a pointer (`item->grad()`).
bool isTensorPointer(const clang::Expr *E, const ApiIndex &Index);

/// Copies the provenance of the tensor at \p From to \p To.
void copyTensor(const clang::dataflow::RecordStorageLocation &From,
                clang::dataflow::RecordStorageLocation &To,
                clang::dataflow::Environment &Env);

/// Forgets the provenance of \p L and of the tensors it holds as fields, up
/// to \p Depth levels of fields.
void havocRecord(clang::dataflow::RecordStorageLocation &L, unsigned Depth,
                 TransferContext &C);
/// havocRecord() on what \p E denotes.
void havocExpr(const clang::Expr *E, TransferContext &C);

// Each transfer function handles one construct; its precondition is the test
// its case in buildTransferSwitch() matches on (see each subject's file).
using CallTest = bool (*)(const clang::CallExpr &, const ApiIndex &);
using CallTransfer = void (*)(const clang::CallExpr &, TransferContext &);
using ConstructTest = bool (*)(const clang::CXXConstructExpr &,
                               const ApiIndex &);
using ConstructTransfer = void (*)(const clang::CXXConstructExpr &,
                                   TransferContext &);

//--- Tensors (TensorTransfer.cpp) ------------------------------------------//
/// A function of the API table that makes a DTensor or a plain tensor (or a
/// container of them).
bool isSourceCall(const clang::CallExpr &Call, const ApiIndex &Index);
void transferSource(const clang::CallExpr &Call, TransferContext &C);
/// `meshguard::is_dtensor(t)`: the result is t's provenance.
bool isDTensorTestCall(const clang::CallExpr &Call, const ApiIndex &Index);
void transferDTensorTest(const clang::CallExpr &Call, TransferContext &C);
/// An access to an OrderedDict item's tensor (`item.value()`, `*item`).
bool isEntryAccess(const clang::CallExpr &Call, const ApiIndex &Index);
void transferEntryAccess(const clang::CallExpr &Call, TransferContext &C);
/// A tensor method with a tensor result (`t.clone()`, `p->mul(x)`).
bool isTensorMethodOp(const clang::CallExpr &Call, const ApiIndex &Index);
/// A free function of an op namespace returning a tensor (`at::matmul`).
bool isOpFunctionCall(const clang::CallExpr &Call, const ApiIndex &Index);
/// An op: a DTensor if an operand is one, plain if all operands are.
void transferTensorOp(const clang::CallExpr &Call, TransferContext &C);
/// A collective of the API table: its inputs keep their provenance.
bool isCollectiveCall(const clang::CallExpr &Call, const ApiIndex &Index);

//--- Containers (ContainerTransfer.cpp) -------------------------------------//
/// `v = {a, b}`, `v = w` on a tensor container.
bool isContainerAssignment(const clang::CallExpr &Call, const ApiIndex &Index);
void transferContainerAssignment(const clang::CallExpr &Call,
                                 TransferContext &C);
/// A method or operator of a tensor container (`v.push_back(t)`, `v[0]`).
bool isContainerMethodCall(const clang::CallExpr &Call, const ApiIndex &Index);
void transferContainerMethod(const clang::CallExpr &Call, TransferContext &C);
/// `*__begin` of a range-for over a container, as an operator call.
bool isElementDereference(const clang::CallExpr &Call, const ApiIndex &Index);
void transferElementDereference(const clang::CallExpr &Call,
                                TransferContext &C);
/// `*__begin` as a built-in dereference (a pointer iterator).
void transferElementDereference(const clang::UnaryOperator &Deref,
                                TransferContext &C);
/// The loop variable of a range-for (it may write the container).
void transferRangeForVariable(const clang::VarDecl &VD, TransferContext &C);
/// A container built from a list, a tensor, or n copies of a tensor (not a
/// copy or move: the framework copies the record, synthetic fields included).
bool isContainerConstruction(const clang::CXXConstructExpr &Construct,
                             const ApiIndex &Index);
void transferContainerConstruction(const clang::CXXConstructExpr &Construct,
                                   TransferContext &C);

//--- Modules (ModuleTransfer.cpp) -------------------------------------------//
/// `a = b` on module holders.
bool isModuleAssignment(const clang::CallExpr &Call, const ApiIndex &Index);
void transferModuleAssignment(const clang::CallExpr &Call, TransferContext &C);
/// `meshguard::distribute_module(m, mesh)`.
bool isDistributeModuleCall(const clang::CallExpr &Call, const ApiIndex &Index);
void transferDistributeModule(const clang::CallExpr &Call, TransferContext &C);
/// `m.parameters()`, `m.named_parameters()`, `m.buffers()`,
/// `m.named_buffers()`.
bool isModuleParametersCall(const clang::CallExpr &Call, const ApiIndex &Index);
void transferModuleParameters(const clang::CallExpr &Call, TransferContext &C);
/// `std::make_shared<Net>(...)` of a module.
bool isMakeSharedModule(const clang::CallExpr &Call, const ApiIndex &Index);
void transferMakeSharedModule(const clang::CallExpr &Call, TransferContext &C);
/// A module (or holder) constructed.
bool isModuleConstruction(const clang::CXXConstructExpr &Construct,
                          const ApiIndex &Index);
void transferModuleConstruction(const clang::CXXConstructExpr &Construct,
                                TransferContext &C);
/// `torch::nn::Module &base = *model;`: a mutable alias of a module.
void transferModuleAlias(const clang::VarDecl &VD, TransferContext &C);
/// Whether the model treats \p FD as leaving a module as it was (accessors,
/// forward, train/eval): other calls given a module may distribute it.
bool isModuleAccessor(const clang::FunctionDecl &FD, const ApiIndex &Index);
/// Forgets what is known about every module \p E reaches.
void havocModules(const clang::Expr *E, TransferContext &C);

//--- Calls the model does not describe (UnknownCallTransfer.cpp) ------------//
bool hasNoDirectCallee(const clang::CallExpr &Call, const ApiIndex &Index);
/// Copy and move assignments, std::move, builtins: the framework copies or
/// forwards the record, synthetic fields included.
bool isFrameworkCopy(const clang::CallExpr &Call, const ApiIndex &Index);
/// After a call the model does not know: results are unknown, and what it
/// may modify too; a summary of a function of this TU may say better.
void transferUnknownCall(const clang::CallExpr &Call, TransferContext &C);
/// Does nothing: the case only takes precedence over later ones.
void transferNothing(const clang::CallExpr &Call, TransferContext &C);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_TRANSFERCONTEXT_H
