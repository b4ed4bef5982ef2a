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
    // One line per check in DTensorChecks.def (the one list of names).
#define DTENSOR_CHECK(Class, Name) CheckFactories.registerCheck<Class>(Name);
#include "DTensorChecks.def"
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
