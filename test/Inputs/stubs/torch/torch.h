// Stub of <torch/torch.h> for meshguard's check tests.
#pragma once
#include <ATen/ATen.h>
#include <memory>
#include <string>
#include <utility>

namespace torch {
using at::Tensor;
using at::TensorList;
using at::TensorOptions;
// libtorch brings every ATen op into torch:: (`using namespace at;`).
using at::cat;
using at::stack;
namespace kFloat32 {}
Tensor randn(at::IntArrayRef Size, TensorOptions Options = {});
Tensor rand(at::IntArrayRef Size, TensorOptions Options = {});
Tensor zeros(at::IntArrayRef Size, TensorOptions Options = {});
Tensor ones(at::IntArrayRef Size, TensorOptions Options = {});
Tensor empty(at::IntArrayRef Size, TensorOptions Options = {});
Tensor full(at::IntArrayRef Size, const at::Scalar &Value,
            TensorOptions Options = {});
Tensor arange(const at::Scalar &End, TensorOptions Options = {});
Tensor tensor(std::initializer_list<double> Values, TensorOptions Options = {});
Tensor from_blob(void *Data, at::IntArrayRef Size, TensorOptions Options = {});
Tensor zeros_like(const Tensor &T);

namespace nn {
class Module {
public:
  virtual ~Module() = default;
  std::vector<Tensor> parameters(bool Recurse = true) const;
  void train(bool On = true);
};
// What TORCH_MODULE(Name) declares: a shared handle to NameImpl.
template <typename Contained> class ModuleHolder {
public:
  ModuleHolder() : Impl(std::make_shared<Contained>()) {}
  ModuleHolder(std::nullptr_t) {}
  Contained *operator->() const { return Impl.get(); }
  Contained &operator*() const { return *Impl; }
  const std::shared_ptr<Contained> &ptr() const { return Impl; }

private:
  std::shared_ptr<Contained> Impl;
};
class LinearImpl : public Module {
public:
  LinearImpl() = default;
  LinearImpl(int In, int Out);
  Tensor forward(const Tensor &X);
  Tensor weight;
};
class Linear : public ModuleHolder<LinearImpl> {
public:
  using ModuleHolder<LinearImpl>::ModuleHolder;
  Linear(int In, int Out);
};
} // namespace nn
} // namespace torch
