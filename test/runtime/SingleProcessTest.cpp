// Single-process tests: a world of one (HashStore rendezvous), placements,
// shard arithmetic, metadata, and init errors.

#include <cstdlib>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <meshguard/meshguard.h>

#include "EnvGuard.h"

using namespace meshguard;
using meshguard::testing::EnvGuard;
using ::testing::HasSubstr;

namespace {

DeviceMesh solo_mesh() {
  static DeviceMesh mesh = [] {
    MeshOptions opts;
    opts.store = c10::make_intrusive<c10d::HashStore>();
    opts.rank = 0;
    opts.world_size = 1;
    opts.timeout = std::chrono::seconds(20);
    opts.gloo_hostname = "127.0.0.1";
    return init_device_mesh("cpu", {1}, opts);
  }();
  return mesh;
}

} // namespace

TEST(Placement, NamesAndEquality) {
  EXPECT_EQ(to_string(Placement{Shard{1}}), "Shard(dim=1)");
  EXPECT_EQ(to_string(Placement{Replicate{}}), "Replicate()");
  EXPECT_EQ(to_string(Placement{Partial{ReduceOp::MAX}}), "Partial(max)");
  EXPECT_EQ(
      to_string(Placements{Shard{0}, Replicate{}}),
      "[Shard(dim=0), Replicate()]");
  EXPECT_EQ(Placement{Shard{0}}, Placement{Shard{0}});
  EXPECT_NE(Placement{Shard{0}}, Placement{Shard{1}});
  EXPECT_NE(Placement{Partial{}}, Placement{Partial{ReduceOp::AVG}});
  EXPECT_TRUE(is_shard(Shard{2}, 2));
  EXPECT_FALSE(is_shard(Replicate{}));
}

TEST(SoloMesh, DTensorMetadata) {
  auto mesh = solo_mesh();
  EXPECT_EQ(mesh.ndim(), 1);
  EXPECT_EQ(mesh.size(), 1);
  at::Tensor full = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor dt = distribute_tensor(full, mesh, {Shard{1}});
  EXPECT_TRUE(is_dtensor(dt));
  EXPECT_FALSE(is_dtensor(full));
  EXPECT_FALSE(mesh_of(full).has_value());
  EXPECT_FALSE(placements_of(full).has_value());
  EXPECT_EQ(*mesh_of(dt), mesh);
  EXPECT_EQ(*placements_of(dt), (Placements{Shard{1}}));
  EXPECT_EQ(dt.sizes(), full.sizes());
  EXPECT_EQ(dt.dtype(), full.dtype());
  EXPECT_TRUE(dt.is_contiguous());
  EXPECT_STREQ(
      dt.unsafeGetTensorImpl()->key_set().has(c10::DispatchKey::PrivateUse2)
          ? "y"
          : "n",
      "y");
  EXPECT_TRUE(at::equal(to_local(dt), full));
  EXPECT_TRUE(at::equal(full_tensor(dt), full));
  EXPECT_THROW(
      dt.data_ptr(), c10::Error); // storage-less: never read as a plain buffer
  at::Tensor detached = dt.detach();
  EXPECT_TRUE(is_dtensor(detached));
  EXPECT_THAT(provenance_of(to_local(dt)), HasSubstr("to_local() at "));
  EXPECT_THAT(provenance_of(full), ::testing::IsEmpty());
  // from_local's global shape assumes even shards unless told.
  EXPECT_EQ(
      from_local(at::ones({2, 3}), mesh, {Shard{0}}).sizes(),
      (c10::IntArrayRef{2, 3}));
  EXPECT_EQ(
      from_local(
          at::ones({2, 3}), mesh, {Shard{0}}, false, std::vector<int64_t>{2, 3})
          .sizes(),
      (c10::IntArrayRef{2, 3}));
}

TEST(SoloMesh, GuardAndErrorsWithoutPeers) {
  auto mesh = solo_mesh();
  at::Tensor plain = at::ones({2});
  try {
    dist::broadcast_({plain}, 0);
    FAIL();
  } catch (const MeshNotFoundError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "found no DeviceMesh from dtensor args for c10d.broadcast_.default",
            0),
        0u);
  }
  EXPECT_NO_THROW(guarded::broadcast_({plain}, mesh, 0));
  EXPECT_NO_THROW(guarded::all_reduce_({plain}, mesh, ReduceOp::SUM));
  EXPECT_TRUE(at::equal(plain, at::ones({2})));
}

TEST(InitDeviceMesh, MissingEnvironmentVariableIsNamed) {
  for (const char* var : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
    EnvGuard rank("RANK", "0"), world("WORLD_SIZE", "1"),
        addr("MASTER_ADDR", "127.0.0.1"), port("MASTER_PORT", "1");
    EnvGuard missing(var, nullptr);
    try {
      init_device_mesh("cpu", {1});
      ADD_FAILURE() << "expected MeshInitError for " << var;
    } catch (const MeshInitError& e) {
      EXPECT_THAT(
          e.what(),
          HasSubstr(
              std::string("environment variable ") + var + " is not set"));
    }
  }
  EnvGuard lr("LOCAL_RANK", nullptr);
  if (!MESHGUARD_TEST_HAVE_NCCL) {
    // Without NCCL, "cuda" explains itself before reading anything.
    try {
      init_device_mesh("cuda", {1});
      ADD_FAILURE();
    } catch (const MeshInitError& e) {
      EXPECT_THAT(e.what(), HasSubstr("without NCCL"));
    }
  }
}

TEST(InitDeviceMesh, BadShapesAndDevices) {
  MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  EXPECT_THROW(init_device_mesh("cpu", {2}, opts), MeshInitError);
  EXPECT_THROW(init_device_mesh("cpu", {}, opts), MeshInitError);
  EXPECT_THROW(init_device_mesh("tpu", {1}, opts), MeshInitError);
  MeshOptions no_rank;
  no_rank.store = opts.store;
  EXPECT_THROW(init_device_mesh("cpu", {1}, no_rank), MeshInitError);
}

TEST(DTensorImpl, WrapperOverheadIsSmall) {
  // Bytes a DTensor adds on top of its local tensor: the impl object
  // (shared mesh state is per mesh, not per tensor).
  std::printf(
      "sizeof(DTensorImpl)=%zu sizeof(c10::TensorImpl)=%zu sizeof(DTensorSpec)=%zu\n",
      sizeof(DTensorImpl),
      sizeof(c10::TensorImpl),
      sizeof(DTensorSpec));
  EXPECT_LT(sizeof(DTensorImpl), 512u);
}

TEST(SoloMesh, CommonTensorMethodsOnReplicate) {
  auto mesh = solo_mesh();
  at::Tensor full = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor r = distribute_tensor(full, mesh, {Replicate{}});
  // Printing reads a data pointer: print to_local() / full_tensor() instead.
  std::ostringstream os;
  EXPECT_THROW(os << r, c10::Error);
  os << to_local(r);
  EXPECT_THAT(os.str(), HasSubstr("5"));
  EXPECT_FLOAT_EQ(r[1][2].item<float>(), 5.0f);
  EXPECT_TRUE(is_dtensor(r.to(at::kDouble)));
  EXPECT_EQ(r.to(at::kDouble).scalar_type(), at::kDouble);
  EXPECT_TRUE(is_dtensor(r.cpu()));
  EXPECT_TRUE(is_dtensor(r.contiguous()));
  EXPECT_TRUE(is_dtensor(r.index({at::indexing::Slice(), 1})));
  EXPECT_TRUE(at::equal(
      to_local(r.index({at::indexing::Slice(), 1})),
      full.index({at::indexing::Slice(), 1})));
  EXPECT_TRUE(at::equal(
      to_local(at::where(r > 2, r, at::zeros_like(r))),
      at::where(full > 2, full, at::zeros_like(full))));
  EXPECT_TRUE(at::equal(to_local(r.reshape({3, 2})), full.reshape({3, 2})));
  EXPECT_TRUE(at::equal(to_local(at::stack({r, r})), at::stack({full, full})));
  EXPECT_EQ(r.options().dtype(), at::kFloat);
  EXPECT_TRUE(r.is_cpu() || r.device().is_cpu());
}

// A transposed gradient is a non-contiguous local: the DTensor must say so, and
// .contiguous() must give a dense local buffer (collectives need one).
TEST(SoloMesh, ContiguityFollowsTheLocalTensor) {
  auto mesh = solo_mesh();
  at::Tensor local = at::arange(6, at::kFloat).reshape({2, 3}).t();
  at::Tensor dt = from_local(local, mesh, {Replicate{}});
  EXPECT_FALSE(dt.is_contiguous());
  at::Tensor dense = dt.contiguous();
  EXPECT_TRUE(is_dtensor(dense));
  EXPECT_TRUE(dense.is_contiguous());
  EXPECT_TRUE(to_local(dense).is_contiguous());
  EXPECT_TRUE(at::equal(to_local(dense), local));
  EXPECT_TRUE(
      from_local(local.contiguous(), mesh, {Replicate{}}).is_contiguous());
}
