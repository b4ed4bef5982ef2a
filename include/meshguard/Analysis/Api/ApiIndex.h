//===--- ApiIndex.h - Fast AST lookups into the ApiModel --------*- C++ -*-===//
//
// Answers "what does the model say about this FunctionDecl / this type" once
// per declaration and caches the answer. One index lives for one translation
// unit (the caches are keyed by AST node).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_APIINDEX_H
#define MESHGUARD_ANALYSIS_APIINDEX_H

#include "meshguard/Analysis/Api/ApiModel.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <memory>

namespace meshguard {
namespace analysis {

/// How a call communicates with the other ranks.
enum class CollectiveKind {
  None,
  /// meshguard::dist::* (finds its mesh in its tensors).
  MeshInferred,
  /// meshguard::guarded::* (the mesh is an argument).
  Guarded,
  /// A raw c10d process-group collective.
  ProcessGroup,
  /// full_tensor, redistribute, ...: communicates without the name.
  Implicit,
};

class ApiIndex {
public:
  explicit ApiIndex(ApiModel Model);
  ~ApiIndex();

  const ApiModel &model() const { return Model; }

  /// The source entry of \p FD, if the model lists it.
  const SourceEntry *source(const clang::FunctionDecl *FD) const;
  const MeshCollectiveEntry *
  meshCollective(const clang::FunctionDecl *FD) const;
  const ProcessGroupCollectiveEntry *
  processGroupCollective(const clang::FunctionDecl *FD) const;
  /// What kind of collective a call to \p FD is (None for other functions).
  CollectiveKind collectiveKind(const clang::FunctionDecl *FD) const;
  /// The implicit-collective entry of \p FD, if the model lists it.
  const ImplicitCollectiveEntry *
  implicitCollective(const clang::FunctionDecl *FD) const;
  /// True when the tensors given to a call of \p FD hold the same value on
  /// every rank afterwards (all-reduce, broadcast, all-gather).
  bool makesUniform(const clang::FunctionDecl *FD) const;
  /// True for a raw point-to-point call (send, recv): one sender and one
  /// receiver, rank-dependent by design, so not a collective every rank of
  /// the group must reach.
  bool isPointToPoint(const clang::FunctionDecl *FD) const;
  /// True for a rank or coordinate accessor (the result differs per rank).
  bool isRankSource(const clang::FunctionDecl *FD) const;
  /// True for an environment variable that differs per rank ("RANK").
  bool isRankEnvironment(llvm::StringRef Variable) const;
  /// Names of every collective, explicit and implicit, for AST matchers.
  std::vector<llvm::StringRef> allCollectiveNames() const;
  /// True for a free function in an op namespace (see ApiModel::OpNamespaces).
  bool isOpFunction(const clang::FunctionDecl *FD) const;
  bool isMeshOf(const clang::FunctionDecl *FD) const;
  /// What a call of \p FD does to a DTensor's placements, if it is listed.
  const PlacementCallEntry *placementCall(const clang::FunctionDecl *FD) const;

  /// True for a modelled tensor type (references and cv-qualifiers ignored).
  bool isTensorType(clang::QualType T) const;
  /// True for a container of tensors (std::vector<at::Tensor>, TensorList),
  /// of such containers (std::vector<std::vector<at::Tensor>>) or of
  /// OrderedDict items, and for a torch::OrderedDict of tensors (what
  /// named_parameters() returns).
  bool isTensorContainerType(clang::QualType T) const;
  /// True for an item of a torch::OrderedDict of tensors: a named tensor,
  /// which carries a tensor's provenance but is not one (no tensor op or
  /// fix-it takes it).
  bool isTensorEntryType(clang::QualType T) const;
  /// The tensor type the item type \p T holds.
  clang::QualType entryTensorType(clang::QualType T) const;
  /// True for a DeviceMesh type (references and cv-qualifiers ignored).
  bool isMeshType(clang::QualType T) const;
  /// True for a libtorch module: a class derived from torch::nn::Module, a
  /// torch::nn::ModuleHolder of one (what TORCH_MODULE declares), or a
  /// std::shared_ptr to one.
  bool isModuleType(clang::QualType T) const;
  /// True for a module object itself (a class derived from
  /// torch::nn::Module), false for a holder or pointer of one.
  bool isModuleObjectType(clang::QualType T) const;
  /// The module class of a module type: the class itself, or the one a
  /// holder or std::shared_ptr holds. Null for other types.
  const clang::CXXRecordDecl *moduleClass(clang::QualType T) const;
  /// True for meshguard::distribute_module.
  bool isDistributeModule(const clang::FunctionDecl *FD) const;
  /// True for meshguard::is_dtensor: its result is its argument's
  /// provenance.
  bool isDTensorTest(const clang::FunctionDecl *FD) const;

  /// Names of all mesh-inferred collectives, for AST matchers.
  std::vector<llvm::StringRef> meshCollectiveNames() const;
  std::vector<llvm::StringRef> processGroupCollectiveNames() const;

private:
  struct DeclFacts {
    const SourceEntry *Source = nullptr;
    const MeshCollectiveEntry *Collective = nullptr;
    const ProcessGroupCollectiveEntry *PGCollective = nullptr;
    bool IsOp = false;
    bool IsMeshOf = false;
    bool IsDTensorTest = false;
    bool IsGuarded = false;
    bool IsRankSource = false;
    const ImplicitCollectiveEntry *Implicit = nullptr;
    const PlacementCallEntry *Placement = nullptr;
  };
  const DeclFacts &facts(const clang::FunctionDecl *FD) const;
  enum TypeKind : unsigned {
    TK_None,
    TK_Tensor,
    TK_Container,
    TK_Mesh,
    TK_Module,
    TK_Entry
  };
  TypeKind typeKind(clang::QualType T) const;
  /// The kind of template type argument \p I of \p RD, if it is a
  /// specialization.
  TypeKind argumentKind(const clang::CXXRecordDecl *RD, unsigned I) const;
  /// torch::OrderedDict<Key, at::Tensor>::Item.
  bool isDictItem(const clang::CXXRecordDecl *RD) const;

  ApiModel Model;
  llvm::StringMap<const SourceEntry *> SourceByName;
  llvm::StringMap<const MeshCollectiveEntry *> CollectiveByName;
  llvm::StringMap<const ProcessGroupCollectiveEntry *> PGByName;
  llvm::StringMap<const ImplicitCollectiveEntry *> ImplicitByName;
  llvm::StringMap<const PlacementCallEntry *> PlacementByName;
  llvm::StringSet<> GuardedNames, RankSourceNames, RankEnvNames, UniformOps;
  llvm::StringSet<> TensorNames, ContainerNames, MeshNames, OpNamespaces;
  mutable llvm::DenseMap<const clang::FunctionDecl *, DeclFacts> DeclCache;
  mutable llvm::DenseMap<const clang::Type *, TypeKind> TypeCache;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_APIINDEX_H
