//===--- RankObjects.cpp - Objects the same on every rank, or not ---------===//
//
// Which objects a rank argument configures without making them differ per
// rank (process groups, modules, tensors' structure), which calls give
// non-members a null group, and which constructions of the file's own
// classes carry per-field facts.
//
//===----------------------------------------------------------------------===//

#include "Divergence/RankDependence.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

/// The class a value of type \p T stands for, through references, pointers
/// and smart pointers (`c10::intrusive_ptr<c10d::ProcessGroupGloo>`).
static const CXXRecordDecl *heldClass(QualType T) {
  for (int Depth = 0; Depth < 4 && !T.isNull(); ++Depth) {
    T = T.getNonReferenceType();
    if (T->isPointerType()) {
      T = T->getPointeeType();
      continue;
    }
    const auto *RD = T->getAsCXXRecordDecl();
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
    if (Spec && Spec->getIdentifier() &&
        llvm::is_contained({"intrusive_ptr", "weak_intrusive_ptr", "shared_ptr",
                            "unique_ptr", "weak_ptr"},
                           Spec->getName()) &&
        Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
      T = Spec->getTemplateArgs()[0].getAsType();
      continue;
    }
    return RD;
  }
  return nullptr;
}

/// Whether \p RD is, or derives from, a class named in \p Names.
static bool isOrDerives(const CXXRecordDecl *RD,
                        llvm::ArrayRef<llvm::StringRef> Names,
                        unsigned Depth = 0) {
  if (!RD || Depth > 8)
    return false;
  // The simple name first: qualified names are built only for a candidate.
  if (const IdentifierInfo *Id = RD->getIdentifier())
    for (llvm::StringRef N : Names)
      if (N.ends_with("::" + Id->getName().str()) &&
          RD->getQualifiedNameAsString() == N)
        return true;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (isOrDerives(Base.getType()->getAsCXXRecordDecl(), Names, Depth + 1))
      return true;
  return false;
}

/// Objects that a rank argument configures but whose identity and schedule
/// are the same on every rank: a process group, backend or store built with
/// the rank (`ProcessGroupGloo(store, rank, size, opts)`, `TCPStore(host,
/// port, world, rank == 0)`) is valid everywhere, a collective's Work
/// handle exists everywhere, and a distributed sampler floors or pads each
/// rank's share to one length (the same trip count on every rank).
static bool isUniformHandle(const CXXRecordDecl *RD) {
  static const llvm::StringRef Names[] = {
      "c10d::ProcessGroup",
      "c10d::Backend",
      "c10d::Store",
      "c10d::Work",
      "torch::data::samplers::DistributedSampler",
      "torch::data::samplers::DistributedRandomSampler",
      "torch::data::samplers::DistributedSequentialSampler"};
  return isOrDerives(RD, Names);
}

/// A call that gives non-members a null group (`pg->splitGroup(ranks)`):
/// whether its result is null differs per rank.
bool isMembershipCall(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const IdentifierInfo *Id = Callee ? Callee->getIdentifier() : nullptr;
  return Id &&
         llvm::is_contained({"splitGroup", "split_group", "new_group"},
                            Id->getName()) &&
         isUniformHandle(heldClass(Call.getType()));
}

bool isTensorClass(QualType T) {
  const CXXRecordDecl *RD = heldClass(T);
  const IdentifierInfo *Id = RD ? RD->getIdentifier() : nullptr;
  return Id && Id->getName() == "Tensor" &&
         RD->getQualifiedNameAsString() == "at::Tensor";
}

/// What a tensor or module *is* rather than what it holds: defined, its
/// shape, its type; how many tensors a container holds; whether a module
/// trains. Tensor values differ per rank by design (gradients, local
/// shards, losses before their reduction); these do not.
static bool isTensorStructure(const CallExpr &Call) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  if (!MD || !MD->getIdentifier())
    return false;
  llvm::StringRef Name = MD->getName();
  if (Name == "size" || Name == "empty" || Name == "is_empty")
    if (const auto *Spec =
            dyn_cast<ClassTemplateSpecializationDecl>(MD->getParent()))
      for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
        if (Arg.getKind() == TemplateArgument::Type &&
            isTensorClass(Arg.getAsType()))
          return true;
  if (Name == "is_training")
    return isOrDerives(MD->getParent(), {"torch::nn::Module"});
  if (!llvm::is_contained({"defined", "dim", "ndimension", "numel", "size",
                           "sizes", "scalar_type", "dtype", "device", "options",
                           "requires_grad", "is_contiguous", "layout",
                           "is_cuda", "is_sparse"},
                          MD->getName()))
    return false;
  std::string Class = MD->getParent()->getQualifiedNameAsString();
  return Class == "at::Tensor" || Class == "at::TensorBase";
}

/// A value that is the same on every rank whatever its arguments: a
/// constructed (or returned) handle of isUniformHandle, a Work's result
/// (a collective's failure fails the job: no rank skips it on purpose), a
/// tensor's structure.
bool isUniformObject(const Expr *E) {
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isTensorStructure(*Call))
      return true;
    if (const auto *MD =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
      if (isOrDerives(MD->getParent(), {"c10d::Work"}))
        return true;
  }
  if (!isUniformHandle(heldClass(E->getType())))
    return false;
  // Built here (not a copy of another handle, which keeps its facts).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return !Construct->getConstructor()->isCopyOrMoveConstructor();
  if (isa<CXXNewExpr>(E))
    return true;
  // Made by a factory, or returned by a handle's own method (a collective's
  // Work); not picked from a container (`groups[rank % 2]`).
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXOperatorCallExpr>(Call))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee))
    if (isUniformHandle(MD->getParent()))
      return true;
  const IdentifierInfo *Id = Callee->getIdentifier();
  return Id && llvm::is_contained(
                   {"make_intrusive", "make_shared", "make_unique", "create"},
                   Id->getName());
}

/// `DistInfo info(rank, world)` with a constructor of the main file: the
/// summary follows the arguments into the constructor's parameters and from
/// there into the fields it initialises or assigns (`info.world` stays
/// uniform). Copies and moves are the copied object.
bool RankDependenceTU::summarisedConstruction(const Expr *E) const {
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  const CXXConstructorDecl *Ctor = CE ? CE->getConstructor() : nullptr;
  if (!Ctor || Ctor->isCopyOrMoveConstructor() || !Ctor->isUserProvided())
    return false;
  const FunctionDecl *Def = Ctor->getDefinition();
  const CXXRecordDecl *Class = Ctor->getParent();
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Def || Class->getNumBases() > 0 ||
      !SM.isInMainFile(SM.getExpansionLoc(Class->getLocation())) ||
      !SM.isInMainFile(SM.getExpansionLoc(Def->getLocation())))
    return false;
  // Every argument reaches a parameter the summary tracks.
  return CE->getNumArgs() <= Def->getNumParams();
}

} // namespace analysis
} // namespace meshguard
