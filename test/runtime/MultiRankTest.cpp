// Each test here starts N real processes of meshguard_rank_tests through
// scripts/meshguard-launch (Gloo on loopback) and checks that every rank
// ran its test and passed.

#include <array>
#include <cstdio>
#include <regex>
#include <string>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

struct LaunchResult {
  int exit_code = -1;
  std::string output;
};

// Runs a shell command; its output (stdout and stderr, as the command
// redirects) and exit code.
LaunchResult run_shell(const std::string& cmd) {
  LaunchResult result;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    result.output = "popen failed";
    return result;
  }
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    result.output.append(buf.data(), n);
  }
  int status = ::pclose(pipe);
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

LaunchResult launch(
    int nproc,
    const std::string& filter,
    int timeout_s = 120,
    const std::string& env = "") {
  return run_shell(
      env +
      " MESHGUARD_TIMEOUT_S=${MESHGUARD_TIMEOUT_S:-30} " MESHGUARD_PYTHON
      " " MESHGUARD_LAUNCHER " --nproc " +
      std::to_string(nproc) + " --timeout " + std::to_string(timeout_s) +
      " --grace 20 -- " MESHGUARD_RANK_TESTS " --gtest_filter=" + filter +
      " 2>&1");
}

size_t count(const std::string& text, const std::string& needle) {
  size_t c = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1)) {
    ++c;
  }
  return c;
}

void expect_ranks_pass(
    int nproc,
    const std::string& test,
    const std::string& env = "") {
  auto r = launch(nproc, test, 120, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Every rank ran exactly this one test (a filter matching nothing passes
  // too).
  EXPECT_EQ(count(r.output, "[       OK ] " + test), static_cast<size_t>(nproc))
      << r.output;
  std::printf("%s", r.output.c_str());
}

} // namespace

#define MULTI_RANK_TEST(nproc, suite, name)     \
  TEST(MultiRank##nproc, suite##_##name) {      \
    expect_ranks_pass(nproc, #suite "." #name); \
  }

MULTI_RANK_TEST(2, Seed, AllPlainBroadcastThrows)
MULTI_RANK_TEST(2, Seed, DTensorBroadcastPasses)
MULTI_RANK_TEST(2, Seed, GuardPromotesPlainTensor)
MULTI_RANK_TEST(4, Seed, AllPlainBroadcastThrows)
MULTI_RANK_TEST(4, Seed, DTensorBroadcastPasses)
MULTI_RANK_TEST(4, Seed, GuardPromotesPlainTensor)
MULTI_RANK_TEST(2, Mesh, OneDimensional)
MULTI_RANK_TEST(4, Mesh, OneDimensional)
MULTI_RANK_TEST(4, Mesh, TwoByTwo)
MULTI_RANK_TEST(2, Mesh, FromUserProcessGroups)
MULTI_RANK_TEST(4, Collectives, OnEachDimOfTwoByTwo)
MULTI_RANK_TEST(2, Collectives, AllReduceOnPlacements)
MULTI_RANK_TEST(4, Collectives, AllReduceOnPlacements)
MULTI_RANK_TEST(2, Collectives, AllGatherUnevenShards)
MULTI_RANK_TEST(4, Collectives, AllGatherUnevenShards)
MULTI_RANK_TEST(2, Collectives, ReduceScatterPartial)
MULTI_RANK_TEST(4, Collectives, ReduceScatterPartial)
MULTI_RANK_TEST(2, BadInput, MeshMismatch)
MULTI_RANK_TEST(2, BadInput, PlacementsDtypesLayouts)
MULTI_RANK_TEST(2, ReplicaCheck, NamesTheRankThatDiffers)
MULTI_RANK_TEST(2, ReplicaCheck, NaNReplicas)
MULTI_RANK_TEST(4, ReplicaCheck, NaNReplicas)
MULTI_RANK_TEST(2, Redistribute, AllPairs1D)
MULTI_RANK_TEST(4, Redistribute, AllPairs1D)
MULTI_RANK_TEST(4, Redistribute, AllPairs2x2)
MULTI_RANK_TEST(2, Redistribute, BoolTensors)
MULTI_RANK_TEST(4, Redistribute, BoolTensors)
MULTI_RANK_TEST(2, Fallback, PointwiseOnEqualShards)
MULTI_RANK_TEST(2, Fallback, MixedAndUnsupportedAreErrors)
MULTI_RANK_TEST(2, Fallback, PlainZerosJoinAsReplicate)
MULTI_RANK_TEST(4, Fallback, PlainZerosJoinAsReplicate)
MULTI_RANK_TEST(2, Fallback, ReplicateRunsAnyOp)
MULTI_RANK_TEST(2, Autograd, ThroughDTensorOps)
MULTI_RANK_TEST(2, Autograd, PartialInputsKeepTheirGradientsLayout)
MULTI_RANK_TEST(2, Module, MlpTrainingMatchesSingleProcess)
MULTI_RANK_TEST(4, Module, MlpTrainingMatchesSingleProcess)
MULTI_RANK_TEST(2, Module, CheckFullyDistributedListsPlainParameters)
MULTI_RANK_TEST(2, Module, DataParallelStepsMatchSingleProcess)
MULTI_RANK_TEST(4, Module, DataParallelStepsMatchSingleProcess)
MULTI_RANK_TEST(2, Module, TensorParallelMlpMatchesSingleProcess)
MULTI_RANK_TEST(4, Module, TensorParallelMlpMatchesSingleProcess)

// Tensors of different sizes on different ranks: with the size check on,
// every rank gets a CollectiveMismatchError (without it: SIGABRT).
#define SIZE_CHECK_TEST(nproc, name)                                     \
  TEST(MultiRank##nproc, Fault_##name) {                                 \
    expect_ranks_pass(nproc, "Fault." #name, "MESHGUARD_CHECK_SIZES=1"); \
  }

SIZE_CHECK_TEST(2, AllReduceSizesDiffer)
SIZE_CHECK_TEST(4, AllReduceSizesDiffer)
SIZE_CHECK_TEST(2, BroadcastSizesDiffer)
SIZE_CHECK_TEST(2, AllGatherSizesDiffer)
SIZE_CHECK_TEST(4, AllGatherSizesDiffer)
SIZE_CHECK_TEST(2, DtypesDiffer)

// Diverging collectives (issue #15): with the collective-consistency mode
// every rank gets an error naming the call sites within seconds; without it
// the mesh timeout (5 s) still ends every wait.
#define DEBUG_COLLECTIVES_TEST(name)                                  \
  TEST(MultiRank2, Debug_##name##_ModeOn) {                           \
    expect_ranks_pass(                                                \
        2,                                                            \
        "Debug." #name,                                               \
        "MESHGUARD_DEBUG_COLLECTIVES=1 MESHGUARD_DEBUG_TIMEOUT_S=3"); \
  }                                                                   \
  TEST(MultiRank2, Debug_##name##_ModeOff) {                          \
    expect_ranks_pass(2, "Debug." #name, "MESHGUARD_TIMEOUT_S=5");    \
  }

DEBUG_COLLECTIVES_TEST(DifferentOps)
DEBUG_COLLECTIVES_TEST(SkippedCollective)
DEBUG_COLLECTIVES_TEST(DifferentShapes)

// The audit mode (issue #27): a right rule passes, a sabotaged one is named;
// with the audit on for another op only, the wrong number goes through;
// MESHGUARD_AUDIT_EVERY samples, and a bad value is an error.
TEST(MultiRank2, Audit_RightRulesPass) {
  expect_ranks_pass(2, "Audit.RightRulesPass", "MESHGUARD_AUDIT=1");
}
TEST(MultiRank4, Audit_WrongRuleIsNamed) {
  expect_ranks_pass(4, "Audit.WrongRuleIsNamed", "MESHGUARD_AUDIT=1");
}
TEST(MultiRank2, Audit_WithoutItTheWrongRuleGoesThrough) {
  expect_ranks_pass(
      2,
      "Audit.WithoutItTheWrongRuleGoesThrough",
      "MESHGUARD_AUDIT=1 MESHGUARD_AUDIT_OPS=aten::sum");
}
TEST(MultiRank2, Audit_EveryOtherOp) {
  expect_ranks_pass(
      2, "Audit.EveryOtherOp", "MESHGUARD_AUDIT=1 MESHGUARD_AUDIT_EVERY=2");
}
TEST(MultiRank2, Audit_BadEveryIsAnError) {
  expect_ranks_pass(
      2,
      "Audit.BadEveryIsAnError",
      "MESHGUARD_AUDIT=1 MESHGUARD_AUDIT_EVERY=0");
}

// On 4 ranks (rank 0 against three): the mode's errors only.
TEST(MultiRank4, Debug_DifferentOps_ModeOn) {
  expect_ranks_pass(
      4,
      "Debug.DifferentOps",
      "MESHGUARD_DEBUG_COLLECTIVES=1 MESHGUARD_DEBUG_TIMEOUT_S=3");
}
TEST(MultiRank4, Debug_SkippedCollective_ModeOn) {
  expect_ranks_pass(
      4,
      "Debug.SkippedCollective",
      "MESHGUARD_DEBUG_COLLECTIVES=1 MESHGUARD_DEBUG_TIMEOUT_S=3");
}

// One rank starts with another WORLD_SIZE (2 vs 3 either way, and 2 vs 1
// on rank 1): both ranks name both values at once, no "Socket Timeout".
TEST(MultiRank2, Rendezvous_WorldSizeDisagreesOnRank1) {
  expect_ranks_pass(
      2, "Rendezvous.WorldSizeDisagrees", "MESHGUARD_TEST_WORLD_SIZE=1:3");
}

TEST(MultiRank2, Rendezvous_WorldSizeDisagreesOnRank0) {
  expect_ranks_pass(
      2, "Rendezvous.WorldSizeDisagrees", "MESHGUARD_TEST_WORLD_SIZE=0:3");
}

TEST(MultiRank2, Rendezvous_WorldSizeOfOneOnRank1) {
  expect_ranks_pass(
      2, "Rendezvous.WorldSizeDisagrees", "MESHGUARD_TEST_WORLD_SIZE=1:1");
}

// Without the check: rank 0 (4 elements) used to abort inside Gloo
// (SIGABRT); now both ranks get a catchable error and pass.
TEST(MultiRank2, Fault_UncheckedSizesDifferHint) {
  auto r =
      launch(2, "Fault.UncheckedSizesDifferHint", 60, "MESHGUARD_TIMEOUT_S=10");
  std::printf("%s", r.output.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "SIGABRT"), 0u) << r.output;
  EXPECT_EQ(count(r.output, "[       OK ] Fault.UncheckedSizesDifferHint"), 2u)
      << r.output;
  EXPECT_THAT(
      r.output,
      HasSubstr(
          "[rank 0] rank 0: all_reduce: the ranks of the group passed tensors of different"));
  EXPECT_THAT(r.output, HasSubstr("[rank 1] rank 1: "));
  EXPECT_EQ(count(r.output, "killed by the launcher"), 0u) << "a rank hung:\n"
                                                           << r.output;
}

// The last rank exits mid-collective: the survivors must get an error
// within the mesh timeout (5 s here), and the launcher must name the rank.
void expect_survivors_fail_fast(int nproc) {
  auto r = launch(
      nproc, "BadInput.RankDiesMidCollective", 60, "MESHGUARD_TIMEOUT_S=5");
  std::printf("%s", r.output.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(
      r.output, HasSubstr("rank " + std::to_string(nproc - 1) + " (pid"));
  EXPECT_THAT(r.output, HasSubstr("exited with code 3 (first failure)"));
  EXPECT_EQ(
      count(r.output, "[       OK ] BadInput.RankDiesMidCollective"),
      static_cast<size_t>(nproc - 1))
      << r.output;
  EXPECT_EQ(count(r.output, "killed by the launcher"), 0u)
      << "a survivor hung:\n"
      << r.output;
}

TEST(MultiRank2, BadInput_RankDiesMidCollective) {
  expect_survivors_fail_fast(2);
}

TEST(MultiRank4, BadInput_RankDiesMidCollective) {
  expect_survivors_fail_fast(4);
}

// The launcher's own timeout: a rank that never returns is killed and named.
TEST(Launcher, TimeoutKillsAndNamesRanks) {
  auto r =
      run_shell(MESHGUARD_PYTHON " " MESHGUARD_LAUNCHER
                                 " --nproc 2 --timeout 2 -- sh -c "
                                 "'[ $RANK = 1 ] && sleep 30; exit 0' 2>&1");
  EXPECT_EQ(r.exit_code, 124) << r.output;
  EXPECT_THAT(
      r.output,
      HasSubstr("timeout after 2 s; killing ranks still running: rank 1"));
}

// A program that does not exist is one clear line, exit 2 (argparse's), not
// a Python traceback from inside the launch loop.
TEST(Launcher, MissingProgramIsAClearError) {
  auto r = run_shell(MESHGUARD_PYTHON " " MESHGUARD_LAUNCHER
                                      " --nproc 2 -- /no/such/program 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(
      r.output, HasSubstr("cannot run '/no/such/program': no such executable"));
  EXPECT_THAT(r.output, Not(HasSubstr("Traceback")));
}

// A socket on a loopback port the OS picks, listening but never accepting:
// what a port held by someone else looks like to the ranks.
static void listen_on_loopback(int backlog, int* fd, int* port) {
  *fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(*fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(*fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(*fd, backlog), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(*fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  *port = ntohs(addr.sin_port);
}

// A master port taken by someone else between the launcher's choice and
// rank 0's bind: the launcher restarts every rank on a new port.
TEST(Launcher, RetriesWhenThePortIsTaken) {
  int fd = -1;
  int port = 0;
  ASSERT_NO_FATAL_FAILURE(listen_on_loopback(1, &fd, &port));
  auto r = launch(
      2,
      "Mesh.OneDimensional",
      120,
      "MESHGUARD_LAUNCH_FIRST_PORT=" + std::to_string(port));
  ::close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(
      r.output,
      HasSubstr(
          "port " + std::to_string(port) +
          " was taken; restarting all ranks on a new port"));
  EXPECT_EQ(count(r.output, "[       OK ] Mesh.OneDimensional"), 2u)
      << r.output;
}

// MASTER_PORT held by a socket that listens but never answers: a non-zero
// rank used to block in the TCPStore constructor forever. One rank alone,
// bounded by `timeout` in case it still hangs.
TEST(MultiRank, Rendezvous_SilentMasterPort) {
  int fd = -1;
  int port_number = 0;
  ASSERT_NO_FATAL_FAILURE(listen_on_loopback(16, &fd, &port_number));
  const std::string port = std::to_string(port_number);
  const std::string cmd =
      "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
      port +
      " MESHGUARD_TIMEOUT_S=2 timeout -k 5 60 " MESHGUARD_RANK_TESTS
      " --gtest_filter=Rendezvous.SilentMasterPort 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 1024> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    out.append(buf.data(), n);
  }
  const int status = ::pclose(pipe);
  ::close(fd);
  std::printf("%s", out.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "status " << status << ":\n"
      << out;
  EXPECT_THAT(out, HasSubstr("[       OK ] Rendezvous.SilentMasterPort"));
  EXPECT_THAT(out, HasSubstr("127.0.0.1:" + port));
}

TEST(MultiRank4, ReplicaCheck_FromEnvironment) {
  auto r = launch(
      4, "ReplicaCheck.FromEnvironment", 120, "MESHGUARD_CHECK_REPLICAS=1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "[       OK ] ReplicaCheck.FromEnvironment"), 4u)
      << r.output;
}

// One rank per GPU over NCCL; a one-GPU machine cannot run it.
TEST(MultiRankCuda, CollectivesAcrossGpus) {
  if (MESHGUARD_TEST_HAVE_NCCL == 0) {
    GTEST_SKIP()
        << "libtorch has no NCCL (configure against a CUDA PyTorch, e.g. with scripts/gpu-check.sh)";
  }
  const auto gpus = torch::cuda::device_count();
  if (gpus < 2) {
    GTEST_SKIP() << "needs 2 GPUs (NCCL refuses two ranks on one), " << gpus
                 << " visible";
  }
  expect_ranks_pass(2, "CudaRank.CollectivesAcrossGpus");
}

// Placement semantics as PyTorch's (RankPlacementSemanticsTest.cpp).
MULTI_RANK_TEST(2, EmptyShards, FullTensorAndRedistribute1D)
MULTI_RANK_TEST(4, EmptyShards, FullTensorAndRedistribute1D)
MULTI_RANK_TEST(4, EmptyShards, NestedShardsOnTwoByTwo)
MULTI_RANK_TEST(2, PlacementSemantics, NegativeShardDim)
MULTI_RANK_TEST(2, PartialLocal, ShareIsNotTheValue)
MULTI_RANK_TEST(4, PartialLocal, ShareIsNotTheValue)
MULTI_RANK_TEST(2, OpWithoutRule, ReplicateFirstRuns)
MULTI_RANK_TEST(2, UnverifiedReplicate, RunCheckCatchesIt)
MULTI_RANK_TEST(4, MixedMeshes, OpThrowsNamingBoth)
MULTI_RANK_TEST(2, PlacementSemantics, RedistributeToPartialIsRefused)
MULTI_RANK_TEST(2, PlacementSemantics, DistributeNonLeafRequiringGradIsRefused)
MULTI_RANK_TEST(2, PlacementSemantics, FromLocalRunCheckComparesMetadata)
MULTI_RANK_TEST(2, PlacementSemantics, ToLocalGradPlacements)
MULTI_RANK_TEST(2, Factories, OnesZerosFullEmpty)
MULTI_RANK_TEST(4, Factories, OnesZerosFullEmpty)
MULTI_RANK_TEST(2, Factories, RandomValuesAreOneGlobalTensor)

// The sharding-rule table, differentially (RankShardingRulesTest.cpp).
MULTI_RANK_TEST(2, ShardingRules, Pointwise)
MULTI_RANK_TEST(2, ShardingRules, PartialLinearity)
MULTI_RANK_TEST(2, ShardingRules, Matrix)
MULTI_RANK_TEST(4, ShardingRules, Matrix)
MULTI_RANK_TEST(2, ShardingRules, Reductions)
MULTI_RANK_TEST(2, ShardingRules, Views)
MULTI_RANK_TEST(4, ShardingRules, TwoByTwoMesh)
MULTI_RANK_TEST(2, ShardingRules, TensorParallelMlpWithoutManualLocals)
MULTI_RANK_TEST(2, ShardingRules, OpsOutsideTheTableAreRefused)
MULTI_RANK_TEST(4, ShardingRules, Reductions)

// Views, tensor ops, more reductions, and the dispatcher walk
// (RankViewRulesTest.cpp, RankTensorOpRulesTest.cpp,
// RankDispatcherWalkTest.cpp).
MULTI_RANK_TEST(2, ViewRules, StridesFollowTheLocalLayout)
MULTI_RANK_TEST(4, ViewRules, StridesFollowTheLocalLayout)
MULTI_RANK_TEST(2, ViewRules, SliceNarrowSelect)
MULTI_RANK_TEST(4, ViewRules, SliceNarrowSelect)
MULTI_RANK_TEST(2, ViewRules, SplitChunkUnbind)
MULTI_RANK_TEST(4, ViewRules, SplitChunkUnbind)
MULTI_RANK_TEST(2, ViewRules, FlattenUnflatten)
MULTI_RANK_TEST(2, ViewRules, CatStack)
// Derived in-place/out= forms and the _foreach_ ops (RankVariantRulesTest.cpp).
MULTI_RANK_TEST(2, VariantRules, OutFormsKeepTheOutPlacement)
MULTI_RANK_TEST(4, VariantRules, OutFormsKeepTheOutPlacement)
MULTI_RANK_TEST(2, VariantRules, InPlaceFormsFromFunctionalRules)
MULTI_RANK_TEST(2, VariantRules, OutTensorThatCannotFitIsAnError)
MULTI_RANK_TEST(2, ForeachRules, ElementByElement)
MULTI_RANK_TEST(4, ForeachRules, ElementByElement)
MULTI_RANK_TEST(2, ForeachRules, FusedAdamStepsEveryBlockWhereItLies)
MULTI_RANK_TEST(2, ForeachRules, AmpUnscaleFindsANonFiniteValueInAnyBlock)
MULTI_RANK_TEST(4, ForeachRules, AmpUnscaleFindsANonFiniteValueInAnyBlock)
// The free-dim families (RankFreeDimRulesTest.cpp).
MULTI_RANK_TEST(2, FreeDimRules, SortAndScansAlongADim)
MULTI_RANK_TEST(4, FreeDimRules, SortAndScansAlongADim)
MULTI_RANK_TEST(2, FreeDimRules, PoolingConvolutionNormOnTheBatch)
MULTI_RANK_TEST(4, FreeDimRules, PoolingConvolutionNormOnTheBatch)
MULTI_RANK_TEST(2, FreeDimRules, AttentionOnBatchAndHeads)
MULTI_RANK_TEST(4, FreeDimRules, AttentionOnBatchAndHeads)
MULTI_RANK_TEST(2, FreeDimRules, BatchedLinearAlgebra)
MULTI_RANK_TEST(2, FreeDimRules, BatchNormUpdatesRunningStatisticsInPlace)
MULTI_RANK_TEST(4, FreeDimRules, BatchNormUpdatesRunningStatisticsInPlace)
// Every dtype through every collective (RankDtypeTest.cpp).
MULTI_RANK_TEST(2, Dtypes, EveryCollectiveOnEveryDtype)
MULTI_RANK_TEST(4, Dtypes, EveryCollectiveOnEveryDtype)
// Users' own ops (RankUserOpsTest.cpp).
MULTI_RANK_TEST(2, UserOps, RegisterShardingRunsACustomOp)
MULTI_RANK_TEST(4, UserOps, RegisterShardingRunsACustomOp)
MULTI_RANK_TEST(2, UserOps, LocalMapThroughBackward)
MULTI_RANK_TEST(4, UserOps, LocalMapThroughBackward)
MULTI_RANK_TEST(4, ViewRules, CatStack)
MULTI_RANK_TEST(4, ViewRules, TwoByTwoMesh)
MULTI_RANK_TEST(2, ViewRules, PartialsPass)
MULTI_RANK_TEST(2, TensorOpRules, IndexSelect)
MULTI_RANK_TEST(4, TensorOpRules, IndexSelect)
MULTI_RANK_TEST(2, TensorOpRules, GatherScatterAddIndexAdd)
MULTI_RANK_TEST(4, TensorOpRules, GatherScatterAddIndexAdd)
MULTI_RANK_TEST(2, TensorOpRules, MaxMin)
MULTI_RANK_TEST(4, TensorOpRules, MaxMin)
MULTI_RANK_TEST(2, TensorOpRules, ProdAndNorms)
MULTI_RANK_TEST(4, TensorOpRules, ProdAndNorms)
MULTI_RANK_TEST(2, TensorOpRules, Activations)
MULTI_RANK_TEST(2, TensorOpRules, PartialsPass)
MULTI_RANK_TEST(2, TensorOpRules, AlongADimAndTiles)
MULTI_RANK_TEST(4, TensorOpRules, AlongADimAndTiles)
MULTI_RANK_TEST(2, TensorOpRules, PartialsThroughRunningSumsAndFilledFactories)
MULTI_RANK_TEST(2, TensorOpRules, ValueDependentOutputsAndZeroFills)
MULTI_RANK_TEST(2, TensorOpRules, EqualAndIsSameSizeAgreeOnEveryRank)
MULTI_RANK_TEST(4, TensorOpRules, EqualAndIsSameSizeAgreeOnEveryRank)
MULTI_RANK_TEST(2, TensorOpRules, BernoulliDrawsEachElementWithItsProbability)
// Advanced indexing, squeeze_, view(dtype) (RankIndexRulesTest.cpp).
MULTI_RANK_TEST(2, IndexRules, IndexKeepsTheShardsOfDimsNotIndexed)
MULTI_RANK_TEST(4, IndexRules, IndexKeepsTheShardsOfDimsNotIndexed)
MULTI_RANK_TEST(2, IndexRules, IndexPutWritesEachBlockWhereItLies)
MULTI_RANK_TEST(4, IndexRules, IndexPutWritesEachBlockWhereItLies)
MULTI_RANK_TEST(2, IndexRules, SqueezeInPlaceAndDtypeViews)
MULTI_RANK_TEST(4, IndexRules, SqueezeInPlaceAndDtypeViews)
// async_save and optimizer state (RankCheckpointStateTest.cpp; PyTorch's
// Adam resumed both ways runs in test/checkpoint/run.py).
MULTI_RANK_TEST(2, CheckpointState, AsyncSaveWritesWhatWasStaged)
MULTI_RANK_TEST(3, CheckpointState, AsyncSaveWritesWhatWasStaged)
// distribute_module's buffers (RankModuleBuffersTest.cpp).
MULTI_RANK_TEST(2, ModuleBuffers, BatchNormStatisticsAreReplicatedAndTrained)
MULTI_RANK_TEST(4, ModuleBuffers, BatchNormStatisticsAreReplicatedAndTrained)
MULTI_RANK_TEST(4, TensorOpRules, ValueDependentOutputsAndZeroFills)
MULTI_RANK_TEST(2, DispatcherWalk, EveryOpOutsideTheTableIsRefused)

// nn rules and tensor-parallel styles (RankNnRulesTest.cpp,
// RankParallelTest.cpp).
MULTI_RANK_TEST(2, NnRules, Embedding)
MULTI_RANK_TEST(4, NnRules, Embedding)
MULTI_RANK_TEST(2, NnRules, LayerNorm)
MULTI_RANK_TEST(4, NnRules, LayerNorm)
MULTI_RANK_TEST(2, NnRules, Dropout)
MULTI_RANK_TEST(4, NnRules, Dropout)
MULTI_RANK_TEST(2, NnRules, MseLoss)
MULTI_RANK_TEST(4, NnRules, MseLoss)
MULTI_RANK_TEST(2, NnRules, CrossEntropyAndNllLoss)
MULTI_RANK_TEST(4, NnRules, CrossEntropyAndNllLoss)
MULTI_RANK_TEST(2, Parallel, ColwiseRowwiseMlpTrainsLikeOneProcess)
MULTI_RANK_TEST(4, Parallel, ColwiseRowwiseMlpTrainsLikeOneProcess)
MULTI_RANK_TEST(2, Parallel, DTensorOutputsAndOtherLayouts)
MULTI_RANK_TEST(4, Parallel, DTensorOutputsAndOtherLayouts)
MULTI_RANK_TEST(2, Parallel, EmbeddingStylesTrainLikeOneProcess)
MULTI_RANK_TEST(4, Parallel, EmbeddingStylesTrainLikeOneProcess)
MULTI_RANK_TEST(4, Parallel, OneDimensionOfTwoByTwoMesh)
MULTI_RANK_TEST(2, Parallel, BadPlansAreErrorsAndChangeNothing)
MULTI_RANK_TEST(2, Parallel, PlanKeysArePatternsAsInPyTorch)
MULTI_RANK_TEST(2, Parallel, SequenceParallelTrainsLikeOneProcess)
MULTI_RANK_TEST(4, Parallel, SequenceParallelTrainsLikeOneProcess)
MULTI_RANK_TEST(2, Parallel, PrepareModuleInputAndOutput)
MULTI_RANK_TEST(4, Parallel, BadPlansAreErrorsAndChangeNothing)
MULTI_RANK_TEST(2, Optimizers, StepsOnShardedParametersAreLocal)
MULTI_RANK_TEST(4, Optimizers, StepsOnShardedParametersAreLocal)
MULTI_RANK_TEST(2, FullyShard, MlpTrainsLikeOneProcess)
MULTI_RANK_TEST(4, FullyShard, MlpTrainsLikeOneProcess)
MULTI_RANK_TEST(2, FullyShard, BadInput)
MULTI_RANK_TEST(4, FullyShard, OverTensorParallelOnTwoByTwo)
MULTI_RANK_TEST(4, FullyShard, LocalActivationsOnTwoByTwo)
MULTI_RANK_TEST(4, FullyShard, TwoDimensionalBadInput)
