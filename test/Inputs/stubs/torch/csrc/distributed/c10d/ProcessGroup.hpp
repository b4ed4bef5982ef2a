// Stub of c10d's ProcessGroup (libtorch) for meshguard's check tests.
#pragma once
#include <ATen/ATen.h>
#include <memory>
#include <vector>

namespace c10 {
template <typename T> class intrusive_ptr {
public:
  T *operator->() const { return Ptr; }
  T &operator*() const { return *Ptr; }

private:
  T *Ptr = nullptr;
};
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
  bool wait();
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
};
} // namespace c10d
