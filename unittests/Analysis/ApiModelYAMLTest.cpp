//===--- ApiModelYAMLTest.cpp - Reading an API model from YAML ------------===//

#include "meshguard/Analysis/Api/ApiModelYAML.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace {

std::string errorOf(llvm::Expected<ApiModel> M) {
  if (M)
    return "";
  return llvm::toString(M.takeError());
}

TEST(ApiModelYAML, ReadsEveryList) {
  llvm::Expected<ApiModel> M = parseApiModel(R"yaml(
tensor_types: [my::Tensor]
tensor_containers: [my::List]
mesh_types: [my::Mesh]
mesh_of: my::mesh_of
op_namespaces: [my]
sources:
  - {function: my::shard, makes: dtensor}
  - {function: my::local, makes: plain}
mesh_collectives:
  - {function: my::bcast, tensor_arg: 1, op: c10d.broadcast_.default, guarded: my::guarded_bcast}
process_group_collectives:
  - {function: my::Group::send, tensor_args: [0], op: c10d.send.default}
)yaml",
                                             "model.yaml");
  ASSERT_TRUE(bool(M)) << errorOf(std::move(M));
  EXPECT_EQ(M->TensorTypes, std::vector<std::string>{"my::Tensor"});
  EXPECT_EQ(M->MeshOfFunction, "my::mesh_of");
  ASSERT_EQ(M->Sources.size(), 2u);
  EXPECT_EQ(M->Sources[0].Kind, SourceKind::DTensor);
  EXPECT_EQ(M->Sources[1].Kind, SourceKind::Plain);
  ASSERT_EQ(M->MeshCollectives.size(), 1u);
  EXPECT_EQ(M->MeshCollectives[0].TensorArg, 1u);
  EXPECT_EQ(M->MeshCollectives[0].Guarded, "my::guarded_bcast");
  ASSERT_EQ(M->ProcessGroupCollectives.size(), 1u);
  EXPECT_EQ(M->ProcessGroupCollectives[0].TensorArgs, std::vector<unsigned>{0});
}

TEST(ApiModelYAML, OptionalFieldsTakeTheirDefaults) {
  llvm::Expected<ApiModel> M = parseApiModel(R"yaml(
mesh_collectives:
  - {function: my::bcast, op: c10d.broadcast_.default}
)yaml",
                                             "model.yaml");
  ASSERT_TRUE(bool(M)) << errorOf(std::move(M));
  EXPECT_EQ(M->MeshCollectives[0].TensorArg, 0u);
  EXPECT_EQ(M->MeshCollectives[0].Guarded, "");
}

TEST(ApiModelYAML, ErrorsNameTheFileAndPosition) {
  std::string E = errorOf(parseApiModel(R"yaml(
sources:
  - {function: my::shard, makes: sometimes}
)yaml",
                                        "bad.yaml"));
  EXPECT_NE(E.find("bad.yaml:3:"), std::string::npos) << E;
}

TEST(ApiModelYAML, EmptyRequiredFieldsAreRejected) {
  EXPECT_NE(errorOf(parseApiModel(
                "sources:\n  - {function: '', makes: plain}\n", "m.yaml")),
            "");
  EXPECT_NE(errorOf(parseApiModel(
                "process_group_collectives:\n  - {function: f, tensor_args: "
                "[], op: o}\n",
                "m.yaml")),
            "");
}

TEST(ApiModelYAML, NotAMappingIsAnError) {
  EXPECT_NE(errorOf(parseApiModel("- just\n- a list\n", "m.yaml")), "");
}

TEST(ApiModelYAML, MissingFileIsAnErrorNamingIt) {
  std::string E = errorOf(loadApiModel("/nonexistent/meshguard-model.yaml"));
  EXPECT_NE(E.find("/nonexistent/meshguard-model.yaml"), std::string::npos)
      << E;
}

TEST(ApiModelYAML, LoadsAFile) {
  llvm::SmallString<128> Path;
  int FD;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("meshguard-model", "yaml", FD, Path));
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "tensor_types: [my::Tensor]\n";
  }
  llvm::Expected<ApiModel> M = loadApiModel(Path);
  EXPECT_FALSE(llvm::sys::fs::remove(Path));
  ASSERT_TRUE(bool(M)) << errorOf(std::move(M));
  EXPECT_EQ(M->TensorTypes, std::vector<std::string>{"my::Tensor"});
}

} // namespace
} // namespace analysis
} // namespace meshguard
