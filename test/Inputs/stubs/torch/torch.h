// Stub of <torch/torch.h> for meshguard's check tests.
#pragma once
#include <ATen/ATen.h>
#include <memory>
#include <string>
#include <torch/data.h>
#include <utility>
#include <vector>

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
Tensor tensor(double Value, TensorOptions Options = {});
Tensor scalar_tensor(const at::Scalar &S, TensorOptions Options = {});
Tensor from_blob(void *Data, at::IntArrayRef Size, TensorOptions Options = {});
Tensor zeros_like(const Tensor &T);

// torch/serialize.h and torch/serialize/{output,input}-archive.h.
namespace serialize {
class OutputArchive {
public:
  void write(const std::string &key, const Tensor &tensor,
             bool is_buffer = false);
  void save_to(const std::string &filename);
};
class InputArchive {
public:
  bool try_read(const std::string &key, Tensor &tensor,
                bool is_buffer = false);
  void load_from(const std::string &filename);
};
} // namespace serialize
template <typename Value, typename... SaveToArgs>
void save(const Value &value, SaveToArgs &&...args);
template <typename... SaveToArgs>
void save(const std::vector<Tensor> &tensor_vec, SaveToArgs &&...args);
template <typename Value, typename... LoadFromArgs>
void load(Value &value, LoadFromArgs &&...args);
template <typename... LoadFromArgs>
void load(std::vector<Tensor> &tensor_vec, LoadFromArgs &&...args);

// torch/ordered_dict.h: what named_parameters() returns; iterating gives
// items (a key and a tensor).
template <typename Key, typename Value> class OrderedDict {
public:
  class Item;
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;
  Item &front();
  const Item &front() const;
  Item &back();
  const Item &back() const;
  Item &operator[](size_t Index);
  const Item &operator[](size_t Index) const;
  Value &operator[](const Key &K);
  const Value &operator[](const Key &K) const;
  Value *find(const Key &K) noexcept;
  const Value *find(const Key &K) const noexcept;
  bool contains(const Key &K) const noexcept;
  Iterator begin();
  ConstIterator begin() const;
  Iterator end();
  ConstIterator end() const;
  size_t size() const noexcept;
  bool is_empty() const noexcept;
  Value &insert(const Key &K, const Value &V);
  const std::vector<Item> &items() const noexcept;
  std::vector<Key> keys() const;
  std::vector<Value> values() const;

private:
  std::vector<Item> Items;
};
template <typename Key, typename Value> class OrderedDict<Key, Value>::Item {
public:
  Item(Key K, Value V) : Pair(std::move(K), std::move(V)) {}
  Value &operator*();
  const Value &operator*() const;
  Value *operator->();
  const Value *operator->() const;
  const Key &key() const noexcept;
  Value &value() noexcept;
  const Value &value() const noexcept;
  const std::pair<Key, Value> &pair() const noexcept;

private:
  std::pair<Key, Value> Pair;
};

namespace nn {
class Module {
public:
  virtual ~Module() = default;
  std::vector<Tensor> parameters(bool Recurse = true) const;
  std::vector<Tensor> buffers(bool Recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool Recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  Tensor &register_parameter(std::string Name, Tensor T,
                             bool RequiresGrad = true);
  void train(bool On = true);
  bool is_training() const noexcept;
};
// What TORCH_MODULE(Name) declares: a shared handle to NameImpl.
template <typename Contained> class ModuleHolder {
public:
  ModuleHolder() : Impl(std::make_shared<Contained>()) {}
  ModuleHolder(std::nullptr_t) {}
  Contained *operator->() const { return Impl.get(); }
  Contained &operator*() const { return *Impl; }
  Contained *get() const { return Impl.get(); }
  // TORCH_MODULE's call operator: the module's forward.
  template <typename... Args, typename C = Contained>
  auto operator()(Args &&...A) -> decltype(std::declval<C &>().forward(A...)) {
    return Impl->forward(A...);
  }
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
  Tensor bias;
};
class Linear : public ModuleHolder<LinearImpl> {
public:
  using ModuleHolder<LinearImpl>::ModuleHolder;
  Linear(int In, int Out);
};
namespace utils {
double clip_grad_norm_(const std::vector<Tensor> &parameters, double max_norm,
                       double norm_type = 2.0,
                       bool error_if_nonfinite = false);
} // namespace utils
} // namespace nn
} // namespace torch
