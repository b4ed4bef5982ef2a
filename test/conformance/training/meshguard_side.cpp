// One rank of the side-by-side training run on meshguard's DTensor: the
// models of models.py in C++, with the same parameter names, the same
// initial values and batches (read from DATA.pt) and the same plan as
// pytorch_side.py.
//
//   meshguard_training DATA.pt PARALLEL OUT.json [--time]   (meshguard-launch)
//
// PARALLEL: tp (parallelize_module, 1-D mesh), sp (the same with sequence
// parallelism, the block and the llama), fsdp (fully_shard, 1-D mesh),
// fsdp_tp (parallelize_module on the tp dim, fully_shard on the dp dim of a
// 2 x (world / 2) mesh). Rank 0 writes, per step, the whole batch's loss and
// the collectives the step issued (kind -> [count, bytes], counted by
// CountingGroup); with --time, the wall time of each step instead.

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <torch/serialize.h>
#include <torch/torch.h>

#include <meshguard/meshguard.h>

#include "CountingGroup.h"
#include "NnCompat.h"
#include "../SideSupport.h"

using namespace meshguard;
using namespace meshguard::conformance;

namespace {

using Sizes = std::map<std::string, int64_t>;

struct MlpImpl : torch::nn::Module {
  explicit MlpImpl(Sizes s)
      : fc1(register_module("fc1", torch::nn::Linear(s["dim"], s["hidden"]))),
        fc2(register_module("fc2", torch::nn::Linear(s["hidden"], s["out"]))) {}
  at::Tensor forward(const at::Tensor& x) {
    return parallel_forward(fc2, at::relu(parallel_forward(fc1, x)));
  }
  static at::Tensor loss(const at::Tensor& out, const at::Tensor& y) {
    return torch::mse_loss(out, y);
  }
  static ParallelizePlan plan(bool local_last) {
    ColwiseParallel colwise;
    RowwiseParallel rowwise;
    rowwise.use_local_output = local_last;
    return {{"fc1", colwise}, {"fc2", rowwise}};
  }
  static ParallelizePlan sequence_parallel_plan() {
    throw std::invalid_argument("sequence parallelism (sp) is for the block: the MLP has no sequence dim");
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

torch::nn::Linear linear(int64_t in, int64_t out, bool bias = true) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

struct BlockImpl : torch::nn::Module {
  explicit BlockImpl(Sizes s)
      : head_dim(s["dim"] / s["heads"]),
        tok(register_module("tok", torch::nn::Embedding(s["vocab"], s["dim"]))),
        ln1(register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s["dim"]})))),
        wq(register_module("wq", linear(s["dim"], s["dim"], false))),
        wk(register_module("wk", linear(s["dim"], s["dim"], false))),
        wv(register_module("wv", linear(s["dim"], s["dim"], false))),
        wo(register_module("wo", linear(s["dim"], s["dim"], false))),
        ln2(register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s["dim"]})))),
        w1(register_module("w1", linear(s["dim"], s["hidden"]))),
        w2(register_module("w2", linear(s["hidden"], s["dim"]))),
        head(register_module("head", linear(s["dim"], s["vocab"], false))) {}

  // -1: under tensor parallelism each rank's local tensor holds heads / tp.
  at::Tensor heads(const at::Tensor& t, int64_t b, int64_t n) const {
    return t.view({b, n, -1, head_dim}).transpose(1, 2);
  }
  at::Tensor forward(const at::Tensor& tokens) {
    at::Tensor x = parallel_forward(tok, tokens); // under sequence parallelism: this rank's positions
    // b: x's rows (under fsdp_tp a local tensor of this rank's rows, as
    // PyTorch's); n: the whole sequence (under sp x holds this rank's part).
    const int64_t b = x.size(0), n = tokens.size(1);
    at::Tensor h = parallel_forward(ln1, x);
    at::Tensor q = heads(parallel_forward(wq, h), b, n), k = heads(parallel_forward(wk, h), b, n),
               v = heads(parallel_forward(wv, h), b, n);
    at::Tensor a = at::softmax(at::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim)), -1);
    a = at::matmul(a, v);
    x = x + parallel_forward(wo, a.transpose(1, 2).reshape({b, n, -1}));
    x = x + parallel_forward(w2, at::relu(parallel_forward(w1, parallel_forward(ln2, x))));
    return parallel_forward(head, x);
  }
  static at::Tensor loss(const at::Tensor& out, const at::Tensor& y) {
    return torch::cross_entropy_loss(out.reshape({-1, out.size(-1)}), y.reshape({-1}));
  }
  static ParallelizePlan plan(bool local_last) {
    ColwiseParallel colwise, head;
    RowwiseParallel rowwise, tok;
    tok.input_layouts = Replicate{};
    head.output_layouts = Replicate{};
    head.use_local_output = local_last;
    return {{"tok", tok}, {"wq", colwise}, {"wk", colwise}, {"wv", colwise}, {"wo", rowwise},
            {"w1", colwise},  {"w2", rowwise}, {"head", head}};
  }
  // pytorch_side.py's SP_PLANS: the residual stream sharded on the sequence
  // dim between the layers, the norms SequenceParallel.
  static ParallelizePlan sequence_parallel_plan() {
    ColwiseParallel colwise, head;
    RowwiseParallel rowwise, tok;
    colwise.input_layouts = head.input_layouts = Shard{1};
    rowwise.output_layouts = tok.output_layouts = Shard{1};
    tok.input_layouts = Replicate{};
    head.output_layouts = Replicate{};
    return {{"tok", tok},    {"ln1", SequenceParallel{}}, {"ln2", SequenceParallel{}}, {"wq", colwise},
            {"wk", colwise}, {"wv", colwise},             {"wo", rowwise},            {"w1", colwise},
            {"w2", rowwise}, {"head", head}};
  }
  int64_t head_dim;
  torch::nn::Embedding tok;
  torch::nn::LayerNorm ln1;
  torch::nn::Linear wq, wk, wv, wo;
  torch::nn::LayerNorm ln2;
  torch::nn::Linear w1, w2, head;
};
TORCH_MODULE(Block);

// models.py's Llama: torchtitan's module names, so that the plan names the
// same modules on both sides.

// A plain constant (the rotary tables, the target) beside a DTensor `like`:
// Replicate on its mesh (no communication), as PyTorch's loss_parallel
// reads a plain target; a plain `like` leaves it plain.
at::Tensor replicated_like(const at::Tensor& t, const at::Tensor& like) {
  if (!is_dtensor(like) || is_dtensor(t)) {
    return t;
  }
  const DeviceMesh mesh = *mesh_of(like);
  return from_local(t, mesh, Placements(static_cast<size_t>(mesh.ndim()), Replicate{}));
}

// nn.RMSNorm(dim, eps): libtorch has no C++ module; at::rms_norm is the
// function PyTorch's module calls. The weight is read from the registry
// (no member copy), which parallelize_module and fully_shard replace.
struct RMSNormImpl : torch::nn::Module {
  RMSNormImpl(int64_t dim, double eps) : dim(dim), eps(eps) {
    register_parameter("weight", torch::ones({dim}));
  }
  at::Tensor forward(const at::Tensor& x) {
    return training_compat::rms_norm(x, dim, named_parameters(/*recurse=*/false)["weight"], eps);
  }
  int64_t dim;
  double eps;
};
TORCH_MODULE(RMSNorm);

// models.py's rotary_tables and rotate (the rotate-half form).
std::pair<at::Tensor, at::Tensor> rotary_tables(int64_t seq, int64_t head_dim, double theta = 10000.0) {
  const at::Tensor inv = 1.0 / at::pow(theta, at::arange(0, head_dim, 2, at::kFloat) / static_cast<double>(head_dim));
  const at::Tensor freqs = at::outer(at::arange(seq, at::kFloat), inv);
  const at::Tensor emb = at::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
}

at::Tensor rotate(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const int64_t half = x.size(-1) / 2, n = x.size(1);
  const at::Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * replicated_like(cos.view({1, n, 1, -1}), x) + rotated * replicated_like(sin.view({1, n, 1, -1}), x);
}

struct AttentionImpl : torch::nn::Module {
  explicit AttentionImpl(Sizes s)
      : head_dim(s["dim"] / s["heads"]),
        wq(register_module("wq", linear(s["dim"], s["dim"], false))),
        wk(register_module("wk", linear(s["dim"], s["dim"], false))),
        wv(register_module("wv", linear(s["dim"], s["dim"], false))),
        wo(register_module("wo", linear(s["dim"], s["dim"], false))) {
    std::tie(cos, sin) = rotary_tables(s["seq"], head_dim);
  }
  at::Tensor forward(const at::Tensor& x) {
    const int64_t b = x.size(0), n = x.size(1);
    // -1: under tensor parallelism each rank's local tensor holds heads / tp.
    at::Tensor q = rotate(parallel_forward(wq, x).view({b, n, -1, head_dim}), cos, sin);
    at::Tensor k = rotate(parallel_forward(wk, x).view({b, n, -1, head_dim}), cos, sin);
    at::Tensor v = parallel_forward(wv, x).view({b, n, -1, head_dim});
    at::Tensor a = training_compat::causal_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2));
    return parallel_forward(wo, a.transpose(1, 2).reshape({b, n, -1}));
  }
  int64_t head_dim;
  torch::nn::Linear wq, wk, wv, wo;
  at::Tensor cos, sin; // constants, not buffers (as models.py's)
};
TORCH_MODULE(Attention);

struct FeedForwardImpl : torch::nn::Module {
  explicit FeedForwardImpl(Sizes s)
      : w1(register_module("w1", linear(s["dim"], s["hidden"], false))),
        w2(register_module("w2", linear(s["hidden"], s["dim"], false))),
        w3(register_module("w3", linear(s["dim"], s["hidden"], false))) {}
  at::Tensor forward(const at::Tensor& x) {
    return parallel_forward(w2, at::silu(parallel_forward(w1, x)) * parallel_forward(w3, x));
  }
  torch::nn::Linear w1, w2, w3;
};
TORCH_MODULE(FeedForward);

constexpr double kRmsEps = 1e-5; // models.py's RMS_EPS

struct LlamaImpl : torch::nn::Module {
  explicit LlamaImpl(Sizes s)
      : tok_embeddings(register_module("tok_embeddings", torch::nn::Embedding(s["vocab"], s["dim"]))),
        attention_norm(register_module("attention_norm", RMSNorm(s["dim"], kRmsEps))),
        attention(register_module("attention", Attention(s))),
        ffn_norm(register_module("ffn_norm", RMSNorm(s["dim"], kRmsEps))),
        feed_forward(register_module("feed_forward", FeedForward(s))),
        norm(register_module("norm", RMSNorm(s["dim"], kRmsEps))),
        output(register_module("output", linear(s["dim"], s["vocab"], false))) {}
  at::Tensor forward(const at::Tensor& tokens) {
    at::Tensor h = parallel_forward(tok_embeddings, tokens);
    h = h + parallel_forward(attention, parallel_forward(attention_norm, h));
    h = h + parallel_forward(feed_forward, parallel_forward(ffn_norm, h));
    return parallel_forward(output, parallel_forward(norm, h));
  }
  // Under TP the logits are a DTensor sharded on the vocab (the head's
  // Shard(-1) output): cross_entropy on it is the vocab-parallel loss
  // (pytorch_side.py's loss_parallel); a plain target is read Replicate.
  static at::Tensor loss(const at::Tensor& out, const at::Tensor& y) {
    return torch::cross_entropy_loss(out.reshape({-1, out.size(-1)}), replicated_like(y, out).reshape({-1}));
  }
  // pytorch_side.py's PLANS["llama"]: torchtitan's llama3 plan without its
  // sequence parallelism; the head's logits stay a vocab-sharded DTensor.
  static ParallelizePlan plan(bool /*local_last: the logits stay a DTensor*/) {
    ColwiseParallel colwise, output;
    RowwiseParallel rowwise, tok;
    tok.input_layouts = Replicate{};
    output.output_layouts = Shard{-1};
    output.use_local_output = false;
    return {{"tok_embeddings", tok},     {"attention.wq", colwise},    {"attention.wk", colwise},
            {"attention.wv", colwise},   {"attention.wo", rowwise},    {"feed_forward.w1", colwise},
            {"feed_forward.w2", rowwise}, {"feed_forward.w3", colwise}, {"output", output}};
  }
  // pytorch_side.py's SP_PLANS["llama"]: torchtitan's plan as it is.
  static ParallelizePlan sequence_parallel_plan() {
    ColwiseParallel colwise, output;
    RowwiseParallel rowwise, tok;
    PrepareModuleInput gather;
    tok.input_layouts = Replicate{};
    tok.output_layouts = rowwise.output_layouts = Shard{1};
    gather.input_layouts = Shard{1};
    gather.desired_input_layouts = Replicate{};
    output.input_layouts = Shard{1};
    output.output_layouts = Shard{-1};
    output.use_local_output = false;
    return {{"tok_embeddings", tok},        {"attention_norm", SequenceParallel{}}, {"attention", gather},
            {"attention.wq", colwise},      {"attention.wk", colwise},              {"attention.wv", colwise},
            {"attention.wo", rowwise},      {"ffn_norm", SequenceParallel{}},       {"feed_forward", gather},
            {"feed_forward.w1", colwise},   {"feed_forward.w2", rowwise},           {"feed_forward.w3", colwise},
            {"norm", SequenceParallel{}},   {"output", output}};
  }
  torch::nn::Embedding tok_embeddings;
  RMSNorm attention_norm;
  Attention attention;
  RMSNorm ffn_norm;
  FeedForward feed_forward;
  RMSNorm norm;
  torch::nn::Linear output;
};
TORCH_MODULE(Llama);

// models.py's ConvNet. PyTorch's fully_shard runs a module on each rank's
// local tensors, so BatchNorm2d normalizes by the rank's own rows (no
// SyncBatchNorm); meshguard's fully_sharded_forward computes on DTensors
// as one process on the whole batch, whose batch norm would use the whole
// batch's statistics. The norm therefore runs on the local blocks, as
// FSDP2's does: weight and bias gathered (Replicate), read locally with a
// Partial gradient (each rank's is its rows' share), the running statistics
// plain buffers updated from this rank's rows, as PyTorch's are.
struct ConvNetImpl : torch::nn::Module {
  explicit ConvNetImpl(Sizes s)
      : conv(register_module(
            "conv",
            torch::nn::Conv2d(torch::nn::Conv2dOptions(s["channels"], s["filters"], 3).padding(1)))),
        bn(register_module("bn", torch::nn::BatchNorm2d(s["filters"]))),
        head(register_module("head", linear(s["filters"] * (s["image"] / 2) * (s["image"] / 2), s["classes"]))) {}

  at::Tensor per_rank_norm(const at::Tensor& x) {
    if (!is_dtensor(x)) {
      return bn->forward(x);
    }
    const Placements partial{Partial{}};
    {
      torch::NoGradGuard no_grad;
      bn->num_batches_tracked += 1; // as BatchNorm2d's forward (momentum is set: unused)
    }
    at::Tensor y = at::batch_norm(to_local(x), to_local(bn->weight, partial), to_local(bn->bias, partial),
                                  bn->running_mean, bn->running_var, is_training(), bn->options.momentum().value(),
                                  bn->options.eps(), false);
    return from_local(y, *mesh_of(x), *placements_of(x));
  }
  at::Tensor forward(const at::Tensor& x) {
    at::Tensor h = at::max_pool2d(at::relu(per_rank_norm(conv->forward(x))), {2, 2});
    return head->forward(h.flatten(1));
  }
  static at::Tensor loss(const at::Tensor& out, const at::Tensor& y) {
    return torch::cross_entropy_loss(out, y);
  }
  static ParallelizePlan plan(bool) {
    throw std::invalid_argument("the convnet trains with fsdp only");
  }
  static ParallelizePlan sequence_parallel_plan() {
    throw std::invalid_argument("the convnet trains with fsdp only");
  }
  torch::nn::Conv2d conv;
  torch::nn::BatchNorm2d bn;
  torch::nn::Linear head;
};
TORCH_MODULE(ConvNet);

struct Data {
  std::string kind;
  Sizes sizes;
  double lr = 0;
  std::map<std::string, at::Tensor> values;
  std::vector<std::pair<at::Tensor, at::Tensor>> batches;
};

Data read_data(const std::string& path) {
  auto items = elements(torch::pickle_load(read_bytes(path)));
  Data d;
  d.kind = items.at(0).toStringRef();
  for (const auto& pair : elements(items.at(1))) {
    auto kv = elements(pair);
    d.sizes[kv.at(0).toStringRef()] = kv.at(1).toInt();
  }
  d.lr = items.at(2).toDouble();
  auto names = elements(items.at(3)), values = elements(items.at(4));
  for (size_t i = 0; i < names.size(); ++i) {
    d.values[names[i].toStringRef()] = values[i].toTensor();
  }
  auto xs = elements(items.at(5)), ys = elements(items.at(6));
  for (size_t i = 0; i < xs.size(); ++i) {
    d.batches.emplace_back(xs[i].toTensor(), ys[i].toTensor());
  }
  return d;
}

// The mesh of each parallelism (its groups counted when not timing).
struct Layout {
  DeviceMesh mesh;
  std::vector<c10::intrusive_ptr<testing::CountingGroup>> counters;
  int64_t dp = 1; // data-parallel degree: how many chunks the batch is cut into
  int64_t dp_rank = 0;
  Placements batch; // the batch's placements (empty: a plain tensor)
};

// `counted`: every dim's group wrapped in a CountingGroup (not when timing:
// the counting would be in the timed steps).
Layout make_layout(const std::string& parallel, const MeshOptions& options, bool counted) {
  const int64_t world = options.world_size;
  std::vector<int64_t> shape = parallel == "fsdp_tp" ? std::vector<int64_t>{2, world / 2} : std::vector<int64_t>{world};
  std::vector<c10::intrusive_ptr<testing::CountingGroup>> counters;
  DeviceMesh mesh = init_device_mesh("cpu", shape, options);
  if (counted) {
    mesh = testing::counting_mesh(mesh, counters);
  }
  Layout l{mesh, counters};
  if (parallel == "fsdp") {
    l.dp = world;
    l.dp_rank = options.rank;
    l.batch = {Shard{0}};
  } else if (parallel == "fsdp_tp") {
    l.dp = 2;
    l.dp_rank = options.rank / shape[1];
    l.batch = {Shard{0}, Replicate{}};
  } else if (parallel != "tp" && parallel != "sp") {
    throw std::invalid_argument("PARALLEL must be tp, sp, fsdp or fsdp_tp, not '" + parallel + "'");
  }
  return l;
}

template <typename Model>
void parallelize(Model& model, const std::string& parallel, const Layout& l) {
  using Impl = typename Model::Impl;
  if (parallel == "tp") {
    parallelize_module(*model, l.mesh, Impl::plan(true));
  } else if (parallel == "sp") {
    parallelize_module(*model, l.mesh, Impl::sequence_parallel_plan());
  } else if (parallel == "fsdp") {
    fully_shard(*model, l.mesh);
  } else {
    // Between the layers local tensors, each rank's rows, as PyTorch's
    // styles hand back (use_local_output, the default); the last layer's
    // output stays a DTensor, so that the loss is the whole batch's.
    parallelize_module(*model, mesh_dim_mesh(l.mesh, 1), Impl::plan(false));
    fully_shard(*model, l.mesh, 0);
  }
}

// The whole batch's value of a loss (a DTensor under FSDP, plain under TP).
double whole_value(const at::Tensor& loss) {
  return (is_dtensor(loss) ? full_tensor(loss.detach()) : loss.detach()).item<double>();
}

std::string json_step(const Layout& l) {
  std::map<std::string, std::pair<int64_t, int64_t>> total;
  for (const auto& c : l.counters) {
    for (const auto& [kind, nb] : c->by_kind()) {
      total[kind].first += nb.first;
      total[kind].second += nb.second;
    }
  }
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (const auto& [kind, nb] : total) {
    os << (first ? "" : ", ") << "\"" << kind << "\": [" << nb.first << ", " << nb.second << "]";
    first = false;
  }
  os << "}";
  return os.str();
}

template <typename Model>
void train(const Data& d, const std::string& parallel, const std::string& out_path, bool timing) {
  const MeshOptions options = launched_mesh_options();
  Layout l = make_layout(parallel, options, !timing);
  Model model(d.sizes);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model->named_parameters()) {
      p.value().copy_(d.values.at(p.key()));
    }
  }
  parallelize(model, parallel, l);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(d.lr));
  std::vector<double> losses, ms;
  std::vector<std::string> comms;
  for (const auto& [full_x, full_y] : d.batches) {
    at::Tensor x = full_x.chunk(l.dp)[l.dp_rank].contiguous(), y = full_y.chunk(l.dp)[l.dp_rank].contiguous();
    if (!l.batch.empty()) { // each rank's own rows, as FSDP's data loader gives them: no communication
      x = from_local(x, l.mesh, l.batch);
      y = from_local(y, l.mesh, l.batch);
    }
    for (auto& c : l.counters) {
      c->reset();
    }
    const auto start = std::chrono::steady_clock::now();
    at::Tensor loss = Model::Impl::loss(l.batch.empty() ? model->forward(x) : fully_sharded_forward(model, x), y);
    loss.backward();
    opt.step();
    opt.zero_grad();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    comms.push_back(json_step(l));
    losses.push_back(whole_value(loss));
  }
  if (options.rank != 0) {
    return;
  }
  std::ofstream out(out_path);
  out.precision(17);
  out << "{\"losses\": [";
  for (size_t i = 0; i < losses.size(); ++i) {
    out << (i ? ", " : "") << losses[i];
  }
  out << "], \"comms\": [";
  for (size_t i = 0; i < comms.size(); ++i) {
    out << (i ? ", " : "") << comms[i];
  }
  out << "], \"ms\": [";
  for (size_t i = 0; i < ms.size(); ++i) {
    out << (i ? ", " : "") << ms[i];
  }
  // Buffers (the running statistics) stay plain, each rank's its own: rank 0's.
  out << "], \"buffers\": {";
  bool first = true;
  for (const auto& b : model->named_buffers()) {
    at::Tensor v = b.value().detach().to(at::kDouble).flatten().contiguous();
    out << (first ? "" : ", ") << "\"" << b.key() << "\": [";
    for (int64_t i = 0; i < v.numel(); ++i) {
      out << (i ? ", " : "") << v[i].item<double>();
    }
    out << "]";
    first = false;
  }
  out << "}}\n";
  if (!out) {
    throw std::runtime_error("cannot write " + out_path);
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: " << argv[0] << " DATA.pt tp|fsdp|fsdp_tp OUT.json [--time] (one rank, through meshguard-launch)\n";
    return 2;
  }
  try {
    at::set_num_threads(1);
    const Data d = read_data(argv[1]);
    const bool timing = argc == 5 && std::string(argv[4]) == "--time";
    if (d.kind == "mlp") {
      train<Mlp>(d, argv[2], argv[3], timing);
    } else if (d.kind == "block") {
      train<Block>(d, argv[2], argv[3], timing);
    } else if (d.kind == "llama") {
      train<Llama>(d, argv[2], argv[3], timing);
    } else if (d.kind == "convnet") {
      train<ConvNet>(d, argv[2], argv[3], timing);
    } else {
      throw std::invalid_argument("unknown model '" + d.kind + "' in " + std::string(argv[1]));
    }
  } catch (const std::exception& e) {
    std::cerr << "meshguard_training: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
