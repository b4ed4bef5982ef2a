// DTensor factories: local shards made directly, no communication except
// the seed of the random ones.

#include <meshguard/runtime/Factories.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {

namespace {

Placements checked(
    const char* fn,
    const std::vector<int64_t>& size,
    const DeviceMesh& mesh,
    const Placements& placements_in) {
  const auto ndim = static_cast<int64_t>(size.size());
  for (auto s : size) {
    if (s < 0) {
      throw PlacementError(
          std::string(fn) + ": negative size " +
          c10::str(c10::IntArrayRef(size)));
    }
  }
  Placements placements = detail::normalize_placements(placements_in, ndim);
  detail::validate_placements(placements, mesh, ndim);
  for (const auto& p : placements) {
    if (is_partial(p)) {
      throw PlacementError(
          std::string(fn) + ": " + to_string(p) +
          " is not a factory placement (the value would be the reduction of every rank's copy); use Shard or "
          "Replicate");
    }
  }
  return placements;
}

at::TensorOptions local_options(
    at::TensorOptions options,
    const DeviceMesh& mesh) {
  return options.device(mesh.device()).requires_grad(false);
}

at::Tensor wrap(
    at::Tensor local,
    const DeviceMesh& mesh,
    Placements placements,
    std::vector<int64_t> size,
    bool requires_grad) {
  at::Tensor out = make_dtensor(
      std::move(local),
      DTensorSpec{mesh, std::move(placements), std::move(size)});
  if (requires_grad) {
    out.requires_grad_(true);
  }
  return out;
}

template <typename Make>
at::Tensor make_local(
    const char* fn,
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements_in,
    at::TensorOptions options,
    Make make) {
  Placements placements = checked(fn, size, mesh, placements_in);
  const auto shape =
      detail::local_shape(size, placements, mesh, mesh.coordinate());
  at::Tensor local = make(shape, local_options(options, mesh));
  return wrap(
      std::move(local),
      mesh,
      std::move(placements),
      std::move(size),
      options.requires_grad());
}

template <typename Draw>
at::Tensor make_random(
    const char* fn,
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements_in,
    at::TensorOptions options,
    Draw draw) {
  Placements placements = checked(fn, size, mesh, placements_in);
  // Rank 0's generator decides, as PyTorch's RNG tracker syncs its seed.
  at::Tensor seed = at::randint(
      0, int64_t(1) << 62, {1}, at::TensorOptions().dtype(at::kLong));
  if (mesh.size() > 1) {
    std::vector<at::Tensor> buf{seed.to(mesh.device())};
    for (int64_t d = 0; d < mesh.ndim(); ++d) {
      if (mesh.size(d) > 1) {
        compat::broadcast(mesh.get_group(d), buf, 0, mesh.timeout());
      }
    }
    seed = buf[0].cpu();
  }
  auto gen = at::make_generator<at::CPUGeneratorImpl>(
      static_cast<uint64_t>(seed.item<int64_t>()));
  const auto local_opts = local_options(options, mesh);
  at::Tensor global = draw(size, gen, local_opts.device(at::kCPU));
  at::Tensor local = global;
  const auto& coord = mesh.coordinate();
  for (int64_t i = 0; i < mesh.ndim(); ++i) {
    if (auto* s = std::get_if<Shard>(&placements[i])) {
      local = detail::chunk_of(local, s->dim, mesh.size(i), coord[i]);
    }
  }
  local = local.to(mesh.device()).clone(at::MemoryFormat::Contiguous);
  return wrap(
      std::move(local),
      mesh,
      std::move(placements),
      std::move(size),
      options.requires_grad());
}

} // namespace

at::Tensor ones(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options) {
  return make_local(
      "ones",
      std::move(size),
      mesh,
      placements,
      options,
      [](const std::vector<int64_t>& s, at::TensorOptions o) {
        return at::ones(s, o);
      });
}

at::Tensor zeros(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options) {
  return make_local(
      "zeros",
      std::move(size),
      mesh,
      placements,
      options,
      [](const std::vector<int64_t>& s, at::TensorOptions o) {
        return at::zeros(s, o);
      });
}

at::Tensor empty(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options) {
  return make_local(
      "empty",
      std::move(size),
      mesh,
      placements,
      options,
      [](const std::vector<int64_t>& s, at::TensorOptions o) {
        return at::empty(s, o);
      });
}

at::Tensor full(
    std::vector<int64_t> size,
    const c10::Scalar& fill_value,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options) {
  return make_local(
      "full",
      std::move(size),
      mesh,
      placements,
      options,
      [&](const std::vector<int64_t>& s, at::TensorOptions o) {
        return at::full(s, fill_value, o);
      });
}

at::Tensor rand(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options,
    CallSite where) {
  detail::UserCall call("rand", where);
  return make_random(
      "rand",
      std::move(size),
      mesh,
      placements,
      options,
      [](const std::vector<int64_t>& s, at::Generator& g, at::TensorOptions o) {
        return at::rand(s, g, o);
      });
}

at::Tensor randn(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options,
    CallSite where) {
  detail::UserCall call("randn", where);
  return make_random(
      "randn",
      std::move(size),
      mesh,
      placements,
      options,
      [](const std::vector<int64_t>& s, at::Generator& g, at::TensorOptions o) {
        return at::randn(s, g, o);
      });
}

} // namespace meshguard
