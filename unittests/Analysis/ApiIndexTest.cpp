//===--- ApiIndexTest.cpp - What the API index says about declarations ----===//

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "ModelTesting.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace testing {
namespace {

class ApiIndexTest : public ::testing::Test {
protected:
  void SetUp() override {
    AST = parseSnippet(R"cc(
      struct NetImpl : torch::nn::Module {};
      struct Holder : torch::nn::ModuleHolder<NetImpl> {};
      struct NotAModule {};
      namespace c10d {
      class MyGroup : public ProcessGroup {
      public:
        c10::intrusive_ptr<Work>
        broadcast(std::vector<at::Tensor> &Tensors,
                  const BroadcastOptions &Opts = BroadcastOptions()) override;
      };
      } // namespace c10d
      namespace user {
      at::Tensor op(const at::Tensor &t);
      }
      std::vector<std::vector<at::Tensor>> nested;
      std::vector<int> ints;
      std::shared_ptr<NetImpl> sharedNet;
      torch::OrderedDict<std::string, at::Tensor> dict;
    )cc");
    ASSERT_TRUE(AST);
  }
  clang::ASTContext &ctx() { return AST->getASTContext(); }
  const clang::FunctionDecl *fn(const std::string &Name) {
    const clang::FunctionDecl *FD = findFunction(ctx(), Name);
    EXPECT_TRUE(FD) << Name;
    return FD;
  }
  clang::QualType typeOf(const std::string &Var) {
    for (const clang::Decl *D : ctx().getTranslationUnitDecl()->decls())
      if (const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
          VD && VD->getName() == Var)
        return VD->getType();
    ADD_FAILURE() << "no variable " << Var;
    return {};
  }
  clang::QualType recordType(const std::string &Name) {
    for (const clang::Decl *D : ctx().getTranslationUnitDecl()->decls())
      if (const auto *RD = llvm::dyn_cast<clang::CXXRecordDecl>(D);
          RD && RD->getName() == Name)
        return ctx().getRecordType(RD);
    ADD_FAILURE() << "no class " << Name;
    return {};
  }

  std::unique_ptr<clang::ASTUnit> AST;
  ApiIndex Index{ApiModel::builtin()};
};

TEST_F(ApiIndexTest, SourcesAndTheirKinds) {
  const SourceEntry *D = Index.source(fn("meshguard::distribute_tensor"));
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Kind, SourceKind::DTensor);
  const SourceEntry *P = Index.source(fn("torch::randn"));
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Kind, SourceKind::Plain);
  EXPECT_FALSE(Index.source(fn("at::matmul")));
}

TEST_F(ApiIndexTest, Collectives) {
  const MeshCollectiveEntry *C =
      Index.meshCollective(fn("meshguard::dist::broadcast_"));
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Guarded, "meshguard::guarded::broadcast_");
  EXPECT_FALSE(Index.meshCollective(fn("meshguard::guarded::broadcast_")));
  EXPECT_TRUE(
      Index.processGroupCollective(fn("c10d::ProcessGroup::allreduce")));
}

TEST_F(ApiIndexTest, AnOverrideIsTheSameCollective) {
  const ProcessGroupCollectiveEntry *E =
      Index.processGroupCollective(fn("c10d::MyGroup::broadcast"));
  ASSERT_TRUE(E);
  EXPECT_EQ(E->OpName, "c10d.broadcast_.default");
}

TEST_F(ApiIndexTest, OpFunctionsAreFreeFunctionsOfOpNamespaces) {
  EXPECT_TRUE(Index.isOpFunction(fn("at::matmul")));
  EXPECT_FALSE(Index.isOpFunction(fn("user::op")));
  EXPECT_FALSE(Index.isOpFunction(fn("at::Tensor::clone")));
}

TEST_F(ApiIndexTest, NamedFunctions) {
  EXPECT_TRUE(Index.isMeshOf(fn("meshguard::mesh_of")));
  EXPECT_TRUE(Index.isDTensorTest(fn("meshguard::is_dtensor")));
  EXPECT_TRUE(Index.isDistributeModule(fn("meshguard::distribute_module")));
  EXPECT_FALSE(Index.isDTensorTest(fn("meshguard::to_local")));
}

TEST_F(ApiIndexTest, TypeKinds) {
  const clang::FunctionDecl *Randn = fn("torch::randn");
  EXPECT_TRUE(Index.isTensorType(Randn->getReturnType()));
  EXPECT_TRUE(Index.isTensorType(
      ctx().getLValueReferenceType(Randn->getReturnType().withConst())));
  EXPECT_TRUE(Index.isTensorContainerType(typeOf("nested")));
  EXPECT_FALSE(Index.isTensorContainerType(typeOf("ints")));
  EXPECT_TRUE(Index.isTensorContainerType(typeOf("dict")));
  EXPECT_TRUE(Index.isMeshType(
      fn("meshguard::guarded::broadcast_")->getParamDecl(1)->getType()));
}

TEST_F(ApiIndexTest, Modules) {
  EXPECT_TRUE(Index.isModuleType(recordType("NetImpl")));
  EXPECT_TRUE(Index.isModuleObjectType(recordType("NetImpl")));
  EXPECT_TRUE(Index.isModuleType(recordType("Holder")));
  EXPECT_FALSE(Index.isModuleObjectType(recordType("Holder")));
  EXPECT_TRUE(Index.isModuleType(typeOf("sharedNet")));
  EXPECT_FALSE(Index.isModuleType(recordType("NotAModule")));
  const clang::CXXRecordDecl *Held = Index.moduleClass(recordType("Holder"));
  ASSERT_TRUE(Held);
  EXPECT_EQ(Held->getName(), "NetImpl");
}

TEST_F(ApiIndexTest, NamesForMatchers) {
  std::vector<llvm::StringRef> Names = Index.meshCollectiveNames();
  EXPECT_NE(
      std::find(Names.begin(), Names.end(), "meshguard::dist::all_gather"),
      Names.end());
  EXPECT_FALSE(Index.processGroupCollectiveNames().empty());
}

} // namespace
} // namespace testing
} // namespace analysis
} // namespace meshguard
