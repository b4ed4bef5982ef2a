//===--- ApiIndex.cpp - Fast AST lookups into the ApiModel ----------------===//

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

namespace meshguard {
namespace analysis {

ApiIndex::ApiIndex(ApiModel M) : Model(std::move(M)) {
  // Later entries win: a user file can override a built-in entry.
  for (const SourceEntry &E : Model.Sources)
    SourceByName[E.Function] = &E;
  for (const MeshCollectiveEntry &E : Model.MeshCollectives)
    CollectiveByName[E.Function] = &E;
  for (const ProcessGroupCollectiveEntry &E : Model.ProcessGroupCollectives)
    PGByName[E.Function] = &E;
  for (const MeshCollectiveEntry &E : Model.MeshCollectives)
    if (!E.Guarded.empty())
      GuardedNames.insert(E.Guarded);
  for (const ImplicitCollectiveEntry &E : Model.ImplicitCollectives)
    ImplicitByName[E.Function] = &E;
  for (const PlacementCallEntry &E : Model.PlacementCalls)
    PlacementByName[E.Function] = &E;
  for (const std::string &N : Model.RankSources)
    RankSourceNames.insert(N);
  for (const std::string &N : Model.RankEnvironment)
    RankEnvNames.insert(N);
  for (const std::string &N : Model.UniformOps)
    UniformOps.insert(N);
  for (const std::string &N : Model.TensorTypes)
    TensorNames.insert(N);
  for (const std::string &N : Model.TensorContainers)
    ContainerNames.insert(N);
  for (const std::string &N : Model.MeshTypes)
    MeshNames.insert(N);
  for (const std::string &N : Model.OpNamespaces)
    OpNamespaces.insert(N);
}

ApiIndex::~ApiIndex() = default;

/// The outermost named namespace \p DC lies in, or empty.
static llvm::StringRef outermostNamespace(const DeclContext *DC) {
  llvm::StringRef Name;
  for (; DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline() && !NS->isAnonymousNamespace())
        Name = NS->getName();
  return Name;
}

const ApiIndex::DeclFacts &ApiIndex::facts(const FunctionDecl *FD) const {
  FD = FD->getCanonicalDecl();
  auto It = DeclCache.find(FD);
  if (It != DeclCache.end())
    return It->second;
  DeclFacts F;
  auto LookUp = [&](const FunctionDecl *D) {
    std::string Name = D->getQualifiedNameAsString();
    if (!F.Source)
      F.Source = SourceByName.lookup(Name);
    if (!F.Collective)
      F.Collective = CollectiveByName.lookup(Name);
    if (!F.PGCollective)
      F.PGCollective = PGByName.lookup(Name);
    if (!Model.MeshOfFunction.empty() && Name == Model.MeshOfFunction)
      F.IsMeshOf = true;
    if (Name == "meshguard::is_dtensor")
      F.IsDTensorTest = true;
    F.IsGuarded |= GuardedNames.contains(Name);
    F.IsRankSource |= RankSourceNames.contains(Name);
    if (!F.Implicit)
      F.Implicit = ImplicitByName.lookup(Name);
    if (!F.Placement)
      F.Placement = PlacementByName.lookup(Name);
  };
  const FunctionDecl *Pattern = FD;
  if (const FunctionDecl *T = FD->getTemplateInstantiationPattern())
    Pattern = T;
  LookUp(Pattern);
  // An override of a modelled virtual (ProcessGroupGloo::broadcast) is the
  // same collective.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Pattern)) {
    llvm::SmallVector<const CXXMethodDecl *, 4> Work(MD->overridden_methods());
    while (!Work.empty() && !F.PGCollective) {
      const CXXMethodDecl *O = Work.pop_back_val();
      LookUp(O);
      Work.append(O->overridden_methods().begin(),
                  O->overridden_methods().end());
    }
  }
  if (!isa<CXXMethodDecl>(FD) && isTensorType(FD->getReturnType())) {
    llvm::StringRef NS = outermostNamespace(FD->getDeclContext());
    F.IsOp = !NS.empty() && OpNamespaces.contains(NS);
  }
  return DeclCache[FD] = F;
}

const PlacementCallEntry *
ApiIndex::placementCall(const FunctionDecl *FD) const {
  return FD ? facts(FD).Placement : nullptr;
}

const SourceEntry *ApiIndex::source(const FunctionDecl *FD) const {
  return FD ? facts(FD).Source : nullptr;
}

const MeshCollectiveEntry *
ApiIndex::meshCollective(const FunctionDecl *FD) const {
  return FD ? facts(FD).Collective : nullptr;
}

const ProcessGroupCollectiveEntry *
ApiIndex::processGroupCollective(const FunctionDecl *FD) const {
  return FD ? facts(FD).PGCollective : nullptr;
}

CollectiveKind ApiIndex::collectiveKind(const FunctionDecl *FD) const {
  if (!FD)
    return CollectiveKind::None;
  const DeclFacts &F = facts(FD);
  if (F.Collective)
    return CollectiveKind::MeshInferred;
  if (F.IsGuarded)
    return CollectiveKind::Guarded;
  if (F.PGCollective)
    return CollectiveKind::ProcessGroup;
  if (F.Implicit)
    return CollectiveKind::Implicit;
  return CollectiveKind::None;
}

const ImplicitCollectiveEntry *
ApiIndex::implicitCollective(const FunctionDecl *FD) const {
  return FD ? facts(FD).Implicit : nullptr;
}

bool ApiIndex::makesUniform(const FunctionDecl *FD) const {
  if (!FD)
    return false;
  const DeclFacts &F = facts(FD);
  if (F.Collective)
    return UniformOps.contains(F.Collective->OpName);
  if (F.PGCollective)
    return UniformOps.contains(F.PGCollective->OpName);
  if (F.Implicit)
    return UniformOps.contains(F.Implicit->Function);
  if (F.IsGuarded)
    for (const MeshCollectiveEntry &E : Model.MeshCollectives)
      if (E.Guarded == FD->getQualifiedNameAsString())
        return UniformOps.contains(E.OpName);
  return false;
}

bool ApiIndex::isPointToPoint(const FunctionDecl *FD) const {
  const ProcessGroupCollectiveEntry *E = processGroupCollective(FD);
  return E &&
         llvm::is_contained({llvm::StringRef("c10d.send.default"),
                             llvm::StringRef("c10d.recv_.default"),
                             llvm::StringRef("c10d.recv_any_source_.default")},
                            E->OpName);
}

bool ApiIndex::isRankSource(const FunctionDecl *FD) const {
  return FD && facts(FD).IsRankSource;
}

bool ApiIndex::isRankEnvironment(llvm::StringRef Variable) const {
  return RankEnvNames.contains(Variable);
}

std::vector<llvm::StringRef> ApiIndex::allCollectiveNames() const {
  std::vector<llvm::StringRef> Names = meshCollectiveNames();
  for (llvm::StringRef N : processGroupCollectiveNames())
    Names.push_back(N);
  for (const auto &E : GuardedNames)
    Names.push_back(E.getKey());
  for (const ImplicitCollectiveEntry &E : Model.ImplicitCollectives)
    Names.emplace_back(E.Function);
  return Names;
}

bool ApiIndex::isOpFunction(const FunctionDecl *FD) const {
  return FD && facts(FD).IsOp;
}

bool ApiIndex::isMeshOf(const FunctionDecl *FD) const {
  return FD && facts(FD).IsMeshOf;
}

bool ApiIndex::isDTensorTest(const FunctionDecl *FD) const {
  return FD && facts(FD).IsDTensorTest;
}

/// A class that is torch::nn::Module or derives from it.
static bool isModuleClass(const CXXRecordDecl *RD) {
  llvm::SmallVector<const CXXRecordDecl *, 8> Work;
  if (RD)
    Work.push_back(RD);
  while (!Work.empty()) {
    const CXXRecordDecl *C = Work.pop_back_val()->getDefinition();
    if (!C)
      continue;
    if (C->getQualifiedNameAsString() == "torch::nn::Module")
      return true;
    for (const CXXBaseSpecifier &Base : C->bases())
      if (const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl())
        Work.push_back(B);
  }
  return false;
}

/// The class a module holder or std::shared_ptr holds (TORCH_MODULE's class
/// derives from the holder), or null.
static const CXXRecordDecl *heldClass(const CXXRecordDecl *RD) {
  for (unsigned Depth = 0; RD && Depth < 4; ++Depth) {
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      std::string Name = Spec->getQualifiedNameAsString();
      const TemplateArgumentList &Args = Spec->getTemplateArgs();
      if ((Name == "torch::nn::ModuleHolder" || Name == "std::shared_ptr") &&
          Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
        return Args[0].getAsType()->getAsCXXRecordDecl();
    }
    RD = RD->getDefinition();
    if (!RD || RD->getNumBases() != 1)
      return nullptr;
    RD = RD->bases_begin()->getType()->getAsCXXRecordDecl();
  }
  return nullptr;
}

ApiIndex::TypeKind ApiIndex::argumentKind(const CXXRecordDecl *RD,
                                          unsigned I) const {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return TK_None;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (I >= Args.size() || Args[I].getKind() != TemplateArgument::Type)
    return TK_None;
  return typeKind(Args[I].getAsType());
}

bool ApiIndex::isDictItem(const CXXRecordDecl *RD) const {
  if (!RD->getIdentifier() || RD->getName() != "Item")
    return false;
  const auto *Dict = dyn_cast<CXXRecordDecl>(RD->getDeclContext());
  return Dict && Dict->getQualifiedNameAsString() == "torch::OrderedDict" &&
         argumentKind(Dict, 1) == TK_Tensor;
}

ApiIndex::TypeKind ApiIndex::typeKind(QualType T) const {
  if (T.isNull())
    return TK_None;
  T = T.getNonReferenceType();
  const Type *Canon = T.getCanonicalType().getTypePtr();
  auto It = TypeCache.find(Canon);
  if (It != TypeCache.end())
    return It->second;
  TypeKind Kind = TK_None;
  if (const CXXRecordDecl *RD = Canon->getAsCXXRecordDecl()) {
    std::string Name = RD->getQualifiedNameAsString();
    if (TensorNames.contains(Name)) {
      Kind = TK_Tensor;
    } else if (MeshNames.contains(Name)) {
      Kind = TK_Mesh;
    } else if (ContainerNames.contains(Name)) {
      // Containers of containers (the c10d allgather outputs) and of
      // OrderedDict items are containers too: their facts combine those of
      // every tensor inside.
      TypeKind Elem = argumentKind(RD, 0);
      if (Elem == TK_Tensor || Elem == TK_Container || Elem == TK_Entry)
        Kind = TK_Container;
    } else if (Name == "torch::OrderedDict") {
      if (argumentKind(RD, 1) == TK_Tensor)
        Kind = TK_Container;
    } else if (isDictItem(RD)) {
      Kind = TK_Entry;
    } else if (isModuleClass(RD) || isModuleClass(heldClass(RD))) {
      Kind = TK_Module;
    }
  }
  return TypeCache[Canon] = Kind;
}

bool ApiIndex::isTensorType(QualType T) const {
  return typeKind(T) == TK_Tensor;
}

bool ApiIndex::isTensorContainerType(QualType T) const {
  return typeKind(T) == TK_Container;
}

bool ApiIndex::isTensorEntryType(QualType T) const {
  return typeKind(T) == TK_Entry;
}

QualType ApiIndex::entryTensorType(QualType T) const {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  const auto *Dict = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      RD ? RD->getDeclContext() : nullptr);
  if (!Dict || Dict->getTemplateArgs().size() < 2)
    return QualType();
  return Dict->getTemplateArgs()[1].getAsType();
}

bool ApiIndex::isMeshType(QualType T) const { return typeKind(T) == TK_Mesh; }

const CXXRecordDecl *ApiIndex::moduleClass(QualType T) const {
  if (!isModuleType(T))
    return nullptr;
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return isModuleClass(RD) ? RD : heldClass(RD);
}

bool ApiIndex::isModuleType(QualType T) const {
  return typeKind(T) == TK_Module;
}

bool ApiIndex::isModuleObjectType(QualType T) const {
  return isModuleClass(T.getNonReferenceType()->getAsCXXRecordDecl());
}

bool ApiIndex::isDistributeModule(const FunctionDecl *FD) const {
  return FD && FD->getQualifiedNameAsString() == "meshguard::distribute_module";
}

std::vector<llvm::StringRef> ApiIndex::meshCollectiveNames() const {
  std::vector<llvm::StringRef> Names;
  Names.reserve(Model.MeshCollectives.size());
  for (const MeshCollectiveEntry &E : Model.MeshCollectives)
    Names.emplace_back(E.Function);
  return Names;
}

std::vector<llvm::StringRef> ApiIndex::processGroupCollectiveNames() const {
  std::vector<llvm::StringRef> Names;
  Names.reserve(Model.ProcessGroupCollectives.size());
  for (const ProcessGroupCollectiveEntry &E : Model.ProcessGroupCollectives)
    Names.emplace_back(E.Function);
  return Names;
}

} // namespace analysis
} // namespace meshguard
