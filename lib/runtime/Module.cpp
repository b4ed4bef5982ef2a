// distribute_module / check_fully_distributed.

#include <meshguard/runtime/Module.h>

#include <sstream>
#include <type_traits>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
// (libtorch 1.13's modules/instancenorm.h needs the functional first.)
#include <torch/nn/functional/instancenorm.h>
#include <torch/nn/modules/instancenorm.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"

namespace meshguard {

namespace {

// parameters_ is a protected member of torch::nn::Module, and the only way
// to replace an entry (register_parameter refuses existing names).
struct ParameterAccess : torch::nn::Module {
  static torch::OrderedDict<std::string, at::Tensor>& of(torch::nn::Module& m) {
    return m.*(&ParameterAccess::parameters_);
  }
};

// buffers_ is private, and register_buffer refuses existing names: the
// member is reached through an explicit instantiation, where access is not
// checked ([temp.spec.general]), the one standard way to name it.
using BufferMap = torch::OrderedDict<std::string, at::Tensor>;
struct BuffersTag {
  using type = BufferMap torch::nn::Module::*;
  friend type member_of(BuffersTag);
};
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member_of(Tag) {
    return Member;
  }
};
template struct Expose<BuffersTag, &torch::nn::Module::buffers_>;

BufferMap& buffers_of(torch::nn::Module& m) {
  return m.*member_of(BuffersTag{});
}

// Built-in layers keep a second handle to their parameters in a public
// member that forward() reads; it must follow the registry.
template <typename Impl>
bool rebind(
    torch::nn::Module& m,
    const std::string& name,
    const at::Tensor& value) {
  auto* impl = dynamic_cast<Impl*>(&m);
  if (impl == nullptr) {
    return false;
  }
  if (name == "weight") {
    impl->weight = value;
  } else if constexpr (!std::is_same_v<Impl, torch::nn::EmbeddingImpl>) {
    if (name == "bias") {
      impl->bias = value;
    }
  }
  return true;
}

void rebind_member(
    torch::nn::Module& m,
    const std::string& name,
    const at::Tensor& value) {
  rebind<torch::nn::LinearImpl>(m, name, value) ||
      rebind<torch::nn::BilinearImpl>(m, name, value) ||
      rebind<torch::nn::Conv1dImpl>(m, name, value) ||
      rebind<torch::nn::Conv2dImpl>(m, name, value) ||
      rebind<torch::nn::Conv3dImpl>(m, name, value) ||
      rebind<torch::nn::EmbeddingImpl>(m, name, value) ||
      rebind<torch::nn::LayerNormImpl>(m, name, value) ||
      rebind<torch::nn::BatchNorm1dImpl>(m, name, value) ||
      rebind<torch::nn::BatchNorm2dImpl>(m, name, value) ||
      rebind<torch::nn::BatchNorm3dImpl>(m, name, value);
}

// The running statistics of the built-in norm layers, which forward()
// reads from public members.
template <typename Impl>
bool rebind_statistics(
    torch::nn::Module& m,
    const std::string& name,
    const at::Tensor& value) {
  auto* impl = dynamic_cast<Impl*>(&m);
  if (impl == nullptr) {
    return false;
  }
  if (name == "running_mean") {
    impl->running_mean = value;
  } else if (name == "running_var") {
    impl->running_var = value;
  } else if (name == "num_batches_tracked") {
    impl->num_batches_tracked = value;
  }
  return true;
}

void rebind_buffer(
    torch::nn::Module& m,
    const std::string& name,
    const at::Tensor& value) {
  rebind_statistics<torch::nn::BatchNorm1dImpl>(m, name, value) ||
      rebind_statistics<torch::nn::BatchNorm2dImpl>(m, name, value) ||
      rebind_statistics<torch::nn::BatchNorm3dImpl>(m, name, value) ||
      rebind_statistics<torch::nn::InstanceNorm1dImpl>(m, name, value) ||
      rebind_statistics<torch::nn::InstanceNorm2dImpl>(m, name, value) ||
      rebind_statistics<torch::nn::InstanceNorm3dImpl>(m, name, value);
}

// As PyTorch's distribute_module: every buffer not already a DTensor
// becomes a Replicate one (BatchNorm's running statistics included), with
// or without a partition_fn.
void replicate_buffers(torch::nn::Module& module, const DeviceMesh& mesh) {
  for (auto& item : buffers_of(module)) {
    const at::Tensor buffer = item.value();
    if (!buffer.defined() || is_dtensor(buffer)) {
      continue;
    }
    at::Tensor dt;
    {
      at::NoGradGuard no_grad;
      dt =
          distribute_tensor(buffer, mesh, Placements(mesh.ndim(), Replicate{}));
    }
    item.value() = dt;
    rebind_buffer(module, item.key(), dt);
  }
}

void distribute_recursive(
    torch::nn::Module& module,
    const std::string& prefix,
    const DeviceMesh& mesh,
    const PartitionFn& partition_fn) {
  auto& params = ParameterAccess::of(module);
  for (auto& item : params) {
    const at::Tensor param = item.value();
    if (!param.defined() || is_dtensor(param)) {
      continue;
    }
    const std::string name =
        prefix.empty() ? item.key() : prefix + "." + item.key();
    Placements placements = partition_fn ? partition_fn(name, param, mesh)
                                         : Placements(mesh.ndim(), Replicate{});
    at::Tensor dt;
    {
      at::NoGradGuard no_grad;
      dt = distribute_tensor(param.detach(), mesh, placements);
    }
    dt.set_requires_grad(param.requires_grad());
    item.value() = dt;
    rebind_member(module, item.key(), dt);
  }
  replicate_buffers(module, mesh);
  for (auto& child : module.named_children()) {
    distribute_recursive(
        *child.value(),
        prefix.empty() ? child.key() : prefix + "." + child.key(),
        mesh,
        partition_fn);
  }
}

} // namespace

namespace detail {

void replace_parameter(
    torch::nn::Module& module,
    const std::string& name,
    const at::Tensor& value) {
  ParameterAccess::of(module)[name] = value;
  rebind_member(module, name, value);
}

} // namespace detail

void distribute_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const PartitionFn& partition_fn,
    CallSite where) {
  detail::UserCall call(
      "distribute_module", where, [&] { return "on " + mesh.to_string(); });
  distribute_recursive(module, "", mesh, partition_fn);
}

void check_fully_distributed(const torch::nn::Module& module) {
  std::vector<std::string> plain;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    if (!is_dtensor(item.value())) {
      plain.push_back(item.key());
    }
  }
  if (plain.empty()) {
    return;
  }
  std::ostringstream os;
  os << "module is not fully distributed: " << plain.size()
     << " parameter(s) are still plain at::Tensors: ";
  for (size_t i = 0; i < plain.size(); ++i) {
    os << (i ? ", " : "") << plain[i];
  }
  os << ". Collectives over its parameters will find no DeviceMesh on them (the FSDP/TP wrapping was "
        "incomplete); run meshguard::distribute_module over the whole module or distribute these parameters too.";
  throw NotDistributedError(os.str());
}

} // namespace meshguard
