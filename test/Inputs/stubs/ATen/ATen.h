// Stub of libtorch's ATen for meshguard's check tests: just enough of
// at::Tensor, c10::ArrayRef and the ATen ops/factories to parse fast.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <vector>

namespace c10 {
template <typename T> class ArrayRef {
public:
  ArrayRef() = default;
  ArrayRef(const T &One) : Data(&One), Length(1) {}
  ArrayRef(const std::vector<T> &Vec) : Data(Vec.data()), Length(Vec.size()) {}
  ArrayRef(const std::initializer_list<T> &List)
      : Data(List.begin()), Length(List.size()) {}
  const T *begin() const { return Data; }
  const T *end() const { return Data + Length; }
  size_t size() const { return Length; }
  const T &operator[](size_t I) const { return Data[I]; }

private:
  const T *Data = nullptr;
  size_t Length = 0;
};
using IntArrayRef = ArrayRef<int64_t>;
struct Scalar {
  Scalar(int) {}
  Scalar(int64_t) {}
  Scalar(double) {}
};
struct TensorImpl;
} // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
using c10::Scalar;
enum class ScalarType { Float, Double, Long };
struct TensorOptions {
  TensorOptions() = default;
  TensorOptions dtype(ScalarType) const { return *this; }
};

// ATen/core/Generator.h and ATen/CPUGeneratorImpl.h.
class Generator {
public:
  void set_current_seed(uint64_t Seed);
};
namespace detail {
Generator createCPUGenerator(uint64_t SeedIn = 67280421310721);
} // namespace detail
// ATen/Context.h: seeds the default generators.
void manual_seed(uint64_t Seed);

class Tensor {
public:
  Tensor() = default;
  Tensor(const Tensor &Other) = default;
  Tensor(Tensor &&Other) = default;
  Tensor &operator=(const Tensor &Other) = default;
  Tensor &operator=(Tensor &&Other) = default;

  bool defined() const { return Impl != nullptr; }
  int64_t dim() const;
  int64_t numel() const;
  Tensor clone() const;
  Tensor detach() const;
  Tensor contiguous() const;
  Tensor to(ScalarType) const;
  Tensor to(const Tensor &Other) const;
  Tensor view_as(const Tensor &Other) const;
  Tensor expand_as(const Tensor &Other) const;
  Tensor add(const Tensor &Other) const;
  Tensor mul(const Tensor &Other) const;
  Tensor sum() const;
  Tensor sum(IntArrayRef Dim, bool KeepDim = false) const;
  Tensor mean() const;
  Tensor pow(const Scalar &Exponent) const;
  Tensor sqrt() const;
  Tensor mm(const Tensor &Other) const;
  Tensor dot(const Tensor &Other) const;
  Tensor median() const;
  Tensor trace() const;
  Tensor hypot(const Tensor &Other) const;
  Tensor histc(int64_t bins = 100, const Scalar &min = 0,
               const Scalar &max = 0) const;
  Tensor &add_(const Tensor &Other);
  Tensor &mul_(const Scalar &Other);
  Tensor &mul_(const Tensor &Other);
  Tensor &sub_(const Tensor &Other);
  Tensor &copy_(const Tensor &Src);
  Tensor &fill_(const Scalar &Value);
  Tensor &requires_grad_(bool RequiresGrad = true);
  Tensor &operator+=(const Tensor &Other);
  Tensor &operator+=(const Scalar &Other);
  Tensor &operator-=(const Tensor &Other);
  Tensor &operator*=(const Tensor &Other);
  Tensor &operator*=(const Scalar &Other);
  const Tensor &grad() const;
  Tensor &mutable_grad();
  Tensor softmax(int64_t Dim) const;
  Tensor log_softmax(int64_t Dim) const;
  Tensor argmax(int64_t Dim, bool KeepDim = false) const;
  std::tuple<Tensor, Tensor> sort(int64_t Dim = -1,
                                  bool Descending = false) const;
  bool equal(const Tensor &Other) const;
  Tensor any() const;
  Tensor norm() const;
  template <typename T> T item() const;

private:
  c10::TensorImpl *Impl = nullptr;
};
using TensorList = ArrayRef<Tensor>;

Tensor operator+(const Tensor &A, const Tensor &B);
Tensor operator-(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, const Scalar &B);
Tensor operator/(const Tensor &A, const Scalar &B);
Tensor operator>(const Tensor &A, const Scalar &B);

Tensor add(const Tensor &A, const Tensor &B);
Tensor matmul(const Tensor &A, const Tensor &B);
Tensor cat(TensorList Tensors, int64_t Dim = 0);
Tensor stack(TensorList Tensors, int64_t Dim = 0);

Tensor randn(IntArrayRef Size, TensorOptions Options = {});
Tensor randn(IntArrayRef Size, Generator Gen, TensorOptions Options = {});
Tensor rand(IntArrayRef Size, TensorOptions Options = {});
Tensor zeros(IntArrayRef Size, TensorOptions Options = {});
Tensor ones(IntArrayRef Size, TensorOptions Options = {});
Tensor empty(IntArrayRef Size, TensorOptions Options = {});
Tensor full(IntArrayRef Size, const Scalar &Value, TensorOptions Options = {});
Tensor arange(const Scalar &End, TensorOptions Options = {});
Tensor zeros_like(const Tensor &T);
Tensor ones_like(const Tensor &T);
Tensor scalar_tensor(const Scalar &S, TensorOptions Options = {});
Tensor mse_loss(const Tensor &Input, const Tensor &Target,
                int64_t Reduction = 1);
Tensor dot(const Tensor &A, const Tensor &B);
Tensor mm(const Tensor &A, const Tensor &B);
Tensor softmax(const Tensor &A, int64_t Dim);
Tensor log_softmax(const Tensor &A, int64_t Dim);
Tensor group_norm(const Tensor &Input, int64_t Groups);
Tensor cross_entropy_loss(const Tensor &Input, const Tensor &Target);
std::vector<Tensor> _foreach_norm(TensorList Tensors, const Scalar &Ord = 2);
Tensor sum(const Tensor &A);
Tensor sqrt(const Tensor &A);
Tensor logaddexp(const Tensor &A, const Tensor &B);
Tensor from_blob(void *Data, IntArrayRef Size, TensorOptions Options = {});
} // namespace at
