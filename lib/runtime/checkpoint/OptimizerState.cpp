// Adam's and AdamW's state under PyTorch's names (get_state_dict's
// optimizer state, flattened by DCP): libtorch keys the state by the
// parameter's TensorImpl, PyTorch's checkpoints by the parameter's name in
// the module.

#include <meshguard/runtime/Checkpoint.h>

#include <cmath>
#include <tuple>

#include <torch/nn/module.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "checkpoint/Files.h"
#include "checkpoint/LoadEntries.h"
#include "compat/OptimizerCompat.h"

namespace meshguard {
namespace checkpoint {

namespace {

// The moments and step of one parameter, whichever of the two it is.
struct Moments {
  at::Tensor* exp_avg;
  at::Tensor* exp_avg_sq;
  at::Tensor* max_exp_avg_sq;
  int64_t* step;
};

template <typename State>
Moments moments_of(State& s) {
  return {&s.exp_avg(), &s.exp_avg_sq(), &s.max_exp_avg_sq(), &s.step()};
}

// The names of `module`'s parameters, by their TensorImpl.
std::map<const void*, std::string> parameter_names(
    const torch::nn::Module& module) {
  std::map<const void*, std::string> out;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    out.emplace(p.value().unsafeGetTensorImpl(), p.key());
  }
  return out;
}

// Walks every parameter of `optimizer` with its group index, name and
// moments (created as zeros when it has not stepped yet).
template <typename Fn>
void for_each_parameter(
    torch::optim::Optimizer& optimizer,
    const torch::nn::Module& module,
    const char* doing,
    const Fn& fn) {
  const bool adamw = dynamic_cast<torch::optim::AdamW*>(&optimizer) != nullptr;
  TORCH_CHECK(
      adamw || dynamic_cast<torch::optim::Adam*>(&optimizer) != nullptr,
      "checkpoint::",
      doing,
      ": only Adam and AdamW are supported (their state has PyTorch's "
      "names); this optimizer is another");
  const auto names = parameter_names(module);
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const at::Tensor& p : groups[g].params()) {
      auto name = names.find(p.unsafeGetTensorImpl());
      TORCH_CHECK(
          name != names.end(),
          "checkpoint::",
          doing,
          ": a parameter of the optimizer (group ",
          g,
          ") is not one of the module's");
      auto* state = compat::find_param_state(optimizer, p);
      if (state == nullptr) {
        at::NoGradGuard no_grad;
        // As Adam's first step makes it (max_exp_avg_sq with amsgrad).
        const bool amsgrad = adamw
            ? static_cast<torch::optim::AdamWOptions&>(groups[g].options())
                  .amsgrad()
            : static_cast<torch::optim::AdamOptions&>(groups[g].options())
                  .amsgrad();
        auto fresh = [&](auto s) {
          s->exp_avg(at::zeros_like(p));
          s->exp_avg_sq(at::zeros_like(p));
          if (amsgrad) {
            s->max_exp_avg_sq(at::zeros_like(p));
          }
          state = s.get();
          compat::set_param_state(optimizer, p, std::move(s));
        };
        if (adamw) {
          fresh(std::make_unique<torch::optim::AdamWParamState>());
        } else {
          fresh(std::make_unique<torch::optim::AdamParamState>());
        }
      }
      Moments m = adamw
          ? moments_of(static_cast<torch::optim::AdamWParamState&>(*state))
          : moments_of(static_cast<torch::optim::AdamParamState&>(*state));
      fn(g, name->second, m, adamw);
    }
  }
}

// A group's hyperparameters as PyTorch 2.13's Adam writes them.
template <typename Options>
void group_objects(
    const Options& o,
    bool adamw,
    const std::string& at,
    std::map<std::string, c10::IValue>& out) {
  out[at + "lr"] = o.lr();
  out[at + "betas"] = c10::ivalue::Tuple::create(
      {std::get<0>(o.betas()), std::get<1>(o.betas())});
  out[at + "eps"] = o.eps();
  out[at + "weight_decay"] = o.weight_decay();
  out[at + "amsgrad"] = o.amsgrad();
  out[at + "maximize"] = false;
  out[at + "foreach"] = c10::IValue();
  out[at + "capturable"] = false;
  out[at + "differentiable"] = false;
  out[at + "fused"] = c10::IValue();
  out[at + "decoupled_weight_decay"] = adamw;
}

// The checkpoint's object `name`, or None when it has none.
c10::IValue object_or_none(
    const CheckpointInfo& info,
    const std::string& dir,
    const std::string& name) {
  auto it = info.objects.find(name);
  if (it == info.objects.end()) {
    return c10::IValue();
  }
  return read_item(
      join(dir, it->second.file), it->second.offset, it->second.length, name);
}

template <typename Options>
void restore_group(
    Options& o,
    const CheckpointInfo& info,
    const std::string& dir,
    const std::string& at) {
  if (auto v = object_or_none(info, dir, at + "lr"); v.isDouble()) {
    o.lr(v.toDouble());
  }
  if (auto v = object_or_none(info, dir, at + "betas"); v.isTuple()) {
    const auto& b = v.toTupleRef().elements();
    TORCH_CHECK(b.size() == 2, dir, ": entry '", at, "betas' is not a pair");
    o.betas(std::make_tuple(b[0].toDouble(), b[1].toDouble()));
  }
  if (auto v = object_or_none(info, dir, at + "eps"); v.isDouble()) {
    o.eps(v.toDouble());
  }
  if (auto v = object_or_none(info, dir, at + "weight_decay"); v.isDouble()) {
    o.weight_decay(v.toDouble());
  }
  if (auto v = object_or_none(info, dir, at + "amsgrad"); v.isBool()) {
    o.amsgrad(v.toBool());
  }
}

} // namespace

OptimizerState optimizer_state(
    torch::optim::Optimizer& optimizer,
    const torch::nn::Module& module,
    const std::string& prefix) {
  OptimizerState out;
  std::vector<std::vector<std::string>> group_names(
      optimizer.param_groups().size());
  bool adamw = false;
  for_each_parameter(
      optimizer,
      module,
      "optimizer_state",
      [&](size_t g, const std::string& name, const Moments& m, bool is_adamw) {
        const std::string at = prefix + "state." + name + ".";
        out.tensors[at + "exp_avg"] = *m.exp_avg;
        out.tensors[at + "exp_avg_sq"] = *m.exp_avg_sq;
        if (m.max_exp_avg_sq->defined()) {
          out.tensors[at + "max_exp_avg_sq"] = *m.max_exp_avg_sq;
        }
        out.tensors[at + "step"] =
            at::scalar_tensor(static_cast<double>(*m.step), at::kFloat);
        group_names[g].push_back(name);
        adamw = is_adamw;
      });
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string at = prefix + "param_groups." + std::to_string(g) + ".";
    if (adamw) {
      group_objects(
          static_cast<torch::optim::AdamWOptions&>(groups[g].options()),
          true,
          at,
          out.objects);
    } else {
      group_objects(
          static_cast<torch::optim::AdamOptions&>(groups[g].options()),
          false,
          at,
          out.objects);
    }
    c10::List<std::string> params;
    for (const std::string& n : group_names[g]) {
      params.push_back(n);
    }
    out.objects[at + "params"] = params;
  }
  return out;
}

void load_optimizer(
    torch::optim::Optimizer& optimizer,
    const torch::nn::Module& module,
    const std::string& dir,
    const std::string& prefix) {
  OptimizerState state = optimizer_state(optimizer, module, prefix);
  const CheckpointInfo info = read_info(dir);
  // A state saved before amsgrad's first step has no max_exp_avg_sq.
  for (auto it = state.tensors.begin(); it != state.tensors.end();) {
    const bool optional = it->first.size() > 15 &&
        it->first.compare(it->first.size() - 15, 15, ".max_exp_avg_sq") == 0;
    it = optional && info.tensors.count(it->first) == 0
        ? state.tensors.erase(it)
        : std::next(it);
  }
  // The groups are checked before anything is loaded.
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string at = prefix + "param_groups." + std::to_string(g) + ".";
    const c10::IValue saved = object_or_none(info, dir, at + "params");
    if (saved.isList()) {
      const c10::IValue ours = state.objects.at(at + "params");
      bool same = saved.toListRef().size() == ours.toListRef().size();
      for (size_t i = 0; same && i < saved.toListRef().size(); ++i) {
        const c10::IValue& name = saved.toListRef()[i];
        same = name.isString() &&
            name.toStringRef() == ours.toListRef()[i].toStringRef();
      }
      TORCH_CHECK(
          same,
          "checkpoint::load_optimizer: group ",
          g,
          " has parameters ",
          ours,
          " here and ",
          saved,
          " in ",
          dir);
    }
  }
  load_entries(state.tensors, dir, info);
  for_each_parameter(
      optimizer,
      module,
      "load_optimizer",
      [&](size_t g, const std::string& name, const Moments& m, bool adamw) {
        const double step =
            state.tensors.at(prefix + "state." + name + ".step").item<double>();
        *m.step = static_cast<int64_t>(std::llround(step));
        (void)g;
        (void)adamw;
      });
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string at = prefix + "param_groups." + std::to_string(g) + ".";
    if (dynamic_cast<torch::optim::AdamW*>(&optimizer)) {
      restore_group(
          static_cast<torch::optim::AdamWOptions&>(groups[g].options()),
          info,
          dir,
          at);
    } else {
      restore_group(
          static_cast<torch::optim::AdamOptions&>(groups[g].options()),
          info,
          dir,
          at);
    }
  }
}

} // namespace checkpoint
} // namespace meshguard
