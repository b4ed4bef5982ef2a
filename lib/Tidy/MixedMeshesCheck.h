//===--- MixedMeshesCheck.h - dtensor-mixed-meshes --------------*- C++ -*-===//

#ifndef MESHGUARD_TIDY_MIXEDMESHESCHECK_H
#define MESHGUARD_TIDY_MIXEDMESHESCHECK_H

#include "PlacementCheckBase.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"

namespace meshguard {
namespace tidy {

/// Finds DTensors on surely different meshes combined in one tensor op, or
/// in one list given to a libtorch function (cat, stack, clip_grad_norm_,
/// the foreach ops): the runtime throws 'DTensor operands live on different
/// meshes' when the job gets there.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-mixed-meshes.md
class MixedMeshesCheck : public PlacementCheckBase {
public:
  using PlacementCheckBase::PlacementCheckBase;

private:
  /// The calls that put a DTensor on a mesh.
  bool interesting(const analysis::PlacementCallEntry &E) const override {
    return analysis::placesTensors(E.Role) && E.MeshArg >= 0;
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::MixedMeshSite &Site, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MIXEDMESHESCHECK_H
