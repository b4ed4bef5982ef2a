// Stub of c10d's ProcessGroup (libtorch) for meshguard's check tests.
#pragma once
// <cstddef> first: the ATen stub uses size_t.
#include <cstddef>
#include <ATen/ATen.h>
#include <memory>
#include <vector>

namespace c10 {
template <typename T> class intrusive_ptr {
public:
  intrusive_ptr() = default;
  intrusive_ptr(std::nullptr_t) {}
  // Upcasts (intrusive_ptr<ProcessGroupGloo> to intrusive_ptr<Backend>).
  template <typename From> intrusive_ptr(const intrusive_ptr<From> &Other);
  T *operator->() const { return Ptr; }
  T &operator*() const { return *Ptr; }
  T *get() const { return Ptr; }
  bool defined() const { return Ptr != nullptr; }
  explicit operator bool() const { return Ptr != nullptr; }
  template <typename... Args> static intrusive_ptr make(Args &&...args);

private:
  T *Ptr = nullptr;
};
template <typename T>
bool operator==(const intrusive_ptr<T> &P, std::nullptr_t) {
  return !P;
}
template <typename T>
bool operator!=(const intrusive_ptr<T> &P, std::nullptr_t) {
  return static_cast<bool>(P);
}
template <typename T, typename... Args>
intrusive_ptr<T> make_intrusive(Args &&...args) {
  return intrusive_ptr<T>::make(static_cast<Args &&>(args)...);
}
} // namespace c10

namespace c10d {
struct ReduceOp {
  enum RedOpType { SUM, AVG, PRODUCT, MIN, MAX };
  ReduceOp(RedOpType Op = SUM) : Op(Op) {}
  RedOpType Op;
};
struct BroadcastOptions {
  int64_t rootRank = 0;
};
struct AllreduceOptions {
  ReduceOp reduceOp;
};
struct AllgatherOptions {};
struct ReduceScatterOptions {};
struct ReduceOptions {
  ReduceOp reduceOp;
  int64_t rootRank = 0;
};
struct GatherOptions {
  int64_t rootRank = 0;
};
struct ScatterOptions {
  int64_t rootRank = 0;
};
struct AllToAllOptions {};
struct BarrierOptions {};

class Work {
public:
  virtual ~Work() = default;
  virtual bool isCompleted();
  virtual bool isSuccess() const;
  virtual bool wait();
};

class ProcessGroup {
public:
  virtual ~ProcessGroup() = default;
  int getRank() const;
  int getSize() const;
  virtual c10::intrusive_ptr<Work>
  broadcast(std::vector<at::Tensor> &Tensors,
            const BroadcastOptions &Opts = BroadcastOptions());
  virtual c10::intrusive_ptr<Work>
  allreduce(std::vector<at::Tensor> &Tensors,
            const AllreduceOptions &Opts = AllreduceOptions());
  virtual c10::intrusive_ptr<Work>
  allgather(std::vector<std::vector<at::Tensor>> &OutputTensors,
            std::vector<at::Tensor> &InputTensors,
            const AllgatherOptions &Opts = AllgatherOptions());
  virtual c10::intrusive_ptr<Work>
  reduce_scatter(std::vector<at::Tensor> &OutputTensors,
                 std::vector<std::vector<at::Tensor>> &InputTensors,
                 const ReduceScatterOptions &Opts = ReduceScatterOptions());
  virtual c10::intrusive_ptr<Work>
  reduce(std::vector<at::Tensor> &Tensors,
         const ReduceOptions &Opts = ReduceOptions());
  virtual c10::intrusive_ptr<Work>
  gather(std::vector<std::vector<at::Tensor>> &OutputTensors,
         std::vector<at::Tensor> &InputTensors,
         const GatherOptions &Opts = GatherOptions());
  virtual c10::intrusive_ptr<Work>
  scatter(std::vector<at::Tensor> &OutputTensors,
          std::vector<std::vector<at::Tensor>> &InputTensors,
          const ScatterOptions &Opts = ScatterOptions());
  virtual c10::intrusive_ptr<Work>
  alltoall(std::vector<at::Tensor> &OutputTensors,
           std::vector<at::Tensor> &InputTensors,
           const AllToAllOptions &Opts = AllToAllOptions());
  virtual c10::intrusive_ptr<Work>
  barrier(const BarrierOptions &Opts = BarrierOptions());
  virtual void monitoredBarrier(const BarrierOptions &Opts = BarrierOptions(),
                                bool WaitAllRanks = false);
  // Point to point: one sender, one receiver, by design rank-dependent.
  virtual c10::intrusive_ptr<Work> send(std::vector<at::Tensor> &Tensors,
                                        int DstRank, int Tag);
  virtual c10::intrusive_ptr<Work> recv(std::vector<at::Tensor> &Tensors,
                                        int SrcRank, int Tag);
  virtual c10::intrusive_ptr<Work>
  recvAnysource(std::vector<at::Tensor> &Tensors, int Tag);
  // The ranks of \p Ranks get a new group; the others get nullptr.
  virtual c10::intrusive_ptr<ProcessGroup>
  splitGroup(const std::vector<int> &Ranks, int TimeoutMs = 0);
};
} // namespace c10d
