//===--- DTensorTidyModule.cpp - The dtensor-* clang-tidy checks ----------===//

#include "CollectiveWithoutMeshCheck.h"
#include "MixedMeshesCheck.h"
#include "MixedTensorOpCheck.h"
#include "OpWithoutShardingRuleCheck.h"
#include "PartialLocalUseCheck.h"
#include "ProcessGroupMisuseCheck.h"
#include "RankDivergentCollectiveCheck.h"
#include "UnshardedCheckpointCheck.h"
#include "UnverifiedReplicateCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace meshguard {
namespace tidy {

class DTensorTidyModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(
      clang::tidy::ClangTidyCheckFactories &CheckFactories) override {
    CheckFactories.registerCheck<CollectiveWithoutMeshCheck>(
        "dtensor-collective-without-mesh");
    CheckFactories.registerCheck<ProcessGroupMisuseCheck>(
        "dtensor-process-group-misuse");
    CheckFactories.registerCheck<MixedTensorOpCheck>("dtensor-mixed-tensor-op");
    CheckFactories.registerCheck<RankDivergentCollectiveCheck>(
        "dtensor-rank-divergent-collective");
    CheckFactories.registerCheck<PartialLocalUseCheck>(
        "dtensor-partial-local-use");
    CheckFactories.registerCheck<OpWithoutShardingRuleCheck>(
        "dtensor-op-without-sharding-rule");
    CheckFactories.registerCheck<UnverifiedReplicateCheck>(
        "dtensor-unverified-replicate");
    CheckFactories.registerCheck<MixedMeshesCheck>("dtensor-mixed-meshes");
    CheckFactories.registerCheck<UnshardedCheckpointCheck>(
        "dtensor-unsharded-checkpoint");
  }
};

} // namespace tidy
} // namespace meshguard

static clang::tidy::ClangTidyModuleRegistry::Add<
    meshguard::tidy::DTensorTidyModule>
    X("dtensor-module", "Adds checks for DTensor/DeviceMesh misuse.");

// Referenced by meshguard-tidy and meshguard-clangd so that the linker keeps
// this object (and with it the registration above):
//   extern volatile int MeshguardDTensorModuleAnchorSource;
//   static int Anchor = MeshguardDTensorModuleAnchorSource;
volatile int MeshguardDTensorModuleAnchorSource = 0;
