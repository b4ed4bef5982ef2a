// parallelize_module and the tensor-parallel styles' layouts.

#include <meshguard/runtime/Parallelize.h>

#include <array>
#include <sstream>

#include <fnmatch.h>

#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Errors.h>
#include <meshguard/runtime/Module.h>

#include "Internal.h"
#include "ParallelStyleInternal.h"

namespace meshguard {

namespace {

// The style applied to a module, kept on the module itself as a child
// without parameters (C++ modules have no attribute dictionary), so that
// it lives and dies with the module.
struct AppliedStyleImpl : torch::nn::Module {
  AppliedStyleImpl(ParallelStyle s, DeviceMesh m, bool embedding)
      : style(s),
        mesh(std::move(m)),
        is_embedding(embedding) {}
  ParallelStyle style;
  // The 1-D mesh of parallelize_module, or, once fully_shard has made the
  // parameters 2-D, the 2-D mesh with the style on its dim `mesh_dim`.
  DeviceMesh mesh;
  bool is_embedding;
  int64_t mesh_dim = 0;
  // Set by fully_shard when a style of the module tree hands back local
  // tensors: the model computes on each rank's own rows between its layers
  // (FSDP2's convention), so a plain tensor is read as Shard(0) on the
  // other (dp) dim.
  bool plain_is_rows = false;
};

constexpr const char* kStyleChild = "meshguard_parallel_style";

AppliedStyleImpl* applied_style(const torch::nn::Module& module) {
  for (const auto& child : module.named_children()) {
    if (child.key() == kStyleChild) {
      return dynamic_cast<AppliedStyleImpl*>(child.value().get());
    }
  }
  return nullptr;
}

const char* style_name(const ParallelStyle& style) {
  static const std::array<const char*, 5> names = {
      "ColwiseParallel",
      "RowwiseParallel",
      "SequenceParallel",
      "PrepareModuleInput",
      "PrepareModuleOutput"};
  return names[style.index()];
}

// What a style does around a module's forward, as in PyTorch's style.py.
struct Layouts {
  std::optional<Placement> input; // a plain input is read as this; nullopt:
                                  // the input passes as it is
  std::optional<Placement> desired_input; // the forward computes on this
  bool local_input =
      false; // the forward gets the local tensor (PrepareModuleInput)
  std::optional<Placement>
      plain_output; // a plain output is read as this; nullopt: an error
  std::optional<Placement>
      output; // the output is redistributed to this; nullopt: left as it is
  bool use_local_output = false;
};

Layouts layouts_of(const AppliedStyleImpl& applied) {
  const ParallelStyle& style = applied.style;
  if (auto* c = std::get_if<ColwiseParallel>(&style)) {
    return {
        c->input_layouts.value_or(Replicate{}),
        Replicate{},
        false,
        std::nullopt,
        c->output_layouts.value_or(Shard{-1}),
        c->use_local_output};
  }
  if (auto* r = std::get_if<RowwiseParallel>(&style)) {
    const Placement desired =
        applied.is_embedding ? Placement(Replicate{}) : Placement(Shard{-1});
    return {
        r->input_layouts.value_or(desired),
        desired,
        false,
        std::nullopt,
        r->output_layouts.value_or(Replicate{}),
        r->use_local_output};
  }
  if (auto* sp = std::get_if<SequenceParallel>(&style)) {
    const Placement seq = Shard{sp->sequence_dim};
    return {seq, seq, false, std::nullopt, std::nullopt, sp->use_local_output};
  }
  if (auto* in = std::get_if<PrepareModuleInput>(&style)) {
    return {
        in->input_layouts,
        in->desired_input_layouts ? in->desired_input_layouts
                                  : in->input_layouts,
        in->use_local_output,
        std::nullopt,
        std::nullopt,
        false};
  }
  const auto& out = std::get<PrepareModuleOutput>(style);
  return {
      std::nullopt,
      std::nullopt,
      false,
      out.output_layouts,
      out.desired_output_layouts,
      out.use_local_output};
}

// Whether the style hands a local tensor to what follows it (its output,
// or PrepareModuleInput's input to the module).
bool hands_back_local(const AppliedStyleImpl& applied) {
  const Layouts l = layouts_of(applied);
  return l.use_local_output || l.local_input;
}

bool shards_parameters(const ParallelStyle& style) {
  return std::holds_alternative<ColwiseParallel>(style) ||
      std::holds_alternative<RowwiseParallel>(style);
}

// PrepareModuleInput/Output only convert; the others distribute parameters.
bool distributes_parameters(const ParallelStyle& style) {
  return shards_parameters(style) ||
      std::holds_alternative<SequenceParallel>(style);
}

// Partition: parameter name -> placement on the 1-D mesh.
Placement param_placement(
    const ParallelStyle& style,
    bool embedding,
    const std::string& name) {
  if (std::holds_alternative<SequenceParallel>(style)) {
    return Replicate{};
  }
  const bool colwise = std::holds_alternative<ColwiseParallel>(style);
  if (embedding) {
    return colwise ? Placement(Shard{1}) : Placement(Shard{0});
  }
  if (colwise) {
    return Shard{0};
  }
  return name == "weight" ? Placement(Shard{1}) : Placement(Replicate{});
}

struct Target {
  std::string name;
  torch::nn::Module* module;
  ParallelStyle style;
  bool embedding;
};

// The submodules a plan key names, as PyTorch's parallelize_module reads
// it: a dotted path whose tokens are fnmatch patterns over child names
// ("layers.*.mlp.fc1", "fc[12]"). Empty when a token matches no child;
// `unmatched` then holds that token.
void match_key(
    torch::nn::Module& module,
    const std::vector<std::string>& tokens,
    size_t i,
    const std::string& prefix,
    std::vector<std::pair<std::string, torch::nn::Module*>>& out,
    std::string& unmatched) {
  if (i == tokens.size()) {
    out.emplace_back(prefix, &module);
    return;
  }
  bool any = false;
  for (const auto& child : module.named_children()) {
    if (::fnmatch(tokens[i].c_str(), child.key().c_str(), 0) == 0) {
      any = true;
      match_key(
          *child.value(),
          tokens,
          i + 1,
          prefix.empty() ? child.key() : prefix + "." + child.key(),
          out,
          unmatched);
    }
  }
  if (!any && unmatched.empty()) {
    unmatched = tokens[i];
  }
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> tokens;
  std::stringstream in(key);
  for (std::string token; std::getline(in, token, '.');) {
    tokens.push_back(token);
  }
  return tokens;
}

Target check_target(
    const std::string& name,
    torch::nn::Module* found,
    const ParallelStyle& style) {
  const bool linear = dynamic_cast<torch::nn::LinearImpl*>(found) != nullptr;
  const bool embedding =
      dynamic_cast<torch::nn::EmbeddingImpl*>(found) != nullptr;
  if (shards_parameters(style) && !linear && !embedding) {
    throw PlacementError(
        "parallelize_module: '" + name + "' is a " + found->name() + "; " +
        style_name(style) +
        " applies to torch::nn::Linear and torch::nn::Embedding only");
  }
  for (const auto& p : found->named_parameters(/*recurse=*/false)) {
    if (distributes_parameters(style) && is_dtensor(p.value())) {
      throw PlacementError(
          "parallelize_module: parameter '" + name + (name.empty() ? "" : ".") +
          p.key() +
          "' already is a DTensor (parallelized or distributed twice?)");
    }
  }
  if (applied_style(*found) != nullptr) {
    throw PlacementError(
        "parallelize_module: '" + name + "' already has a parallel style");
  }
  return {name, found, style, embedding};
}

// Every submodule `key` names. A key that names none is skipped with
// PyTorch's warning (a plan written for a larger model stays usable).
std::vector<Target> resolve(
    torch::nn::Module& root,
    const std::string& key,
    const ParallelStyle& style) {
  std::vector<Target> targets;
  if (key.empty()) {
    targets.push_back(check_target(key, &root, style));
    return targets;
  }
  std::vector<std::pair<std::string, torch::nn::Module*>> found;
  std::string unmatched;
  match_key(root, split_key(key), 0, "", found, unmatched);
  if (found.empty()) {
    std::ostringstream os;
    os << "Parallelize plan key '" << key
       << "' could not be resolved: no submodule matching token '" << unmatched
       << "' (submodules:";
    for (const auto& item : root.named_modules("", /*include_self=*/false)) {
      os << " " << item.key();
    }
    os << "), skipping this plan entry.";
    TORCH_WARN(os.str());
  }
  for (const auto& [name, module] : found) {
    targets.push_back(check_target(name, module, style));
  }
  return targets;
}

// PyTorch's Shard(-1) means the last dim of the tensor at hand.
Placements normalized(const Placement& p, int64_t ndim) {
  return detail::normalize_placements({p}, ndim);
}

// `current` with the style's mesh dim set to `p` (the other dims of a 2-D
// mesh keep their placements: the batch stays sharded on the dp dim).
Placements on_style_dim(
    const AppliedStyleImpl& applied,
    Placements current,
    const Placement& p,
    int64_t ndim) {
  current[applied.mesh_dim] = normalized(p, ndim)[0];
  return current;
}

} // namespace

namespace detail {

std::optional<int64_t> parallel_style_mesh_dim(
    const torch::nn::Module& module) {
  const AppliedStyleImpl* applied = applied_style(module);
  return applied ? std::optional<int64_t>(applied->mesh_dim) : std::nullopt;
}

void move_parallel_styles(
    torch::nn::Module& root,
    const DeviceMesh& from,
    const DeviceMesh& to,
    int64_t dim) {
  std::vector<torch::nn::Module*> modules{&root};
  for (const auto& child : root.modules(/*include_self=*/false)) {
    modules.push_back(child.get());
  }
  std::vector<AppliedStyleImpl*> moved;
  for (torch::nn::Module* m : modules) {
    AppliedStyleImpl* applied = applied_style(*m);
    if (applied != nullptr && applied->mesh == from) {
      applied->mesh = to;
      applied->mesh_dim = dim;
      moved.push_back(applied);
    }
  }
  bool local = false;
  for (const AppliedStyleImpl* applied : moved) {
    local = local || hands_back_local(*applied);
  }
  for (AppliedStyleImpl* applied : moved) {
    applied->plain_is_rows = local;
  }
}

std::optional<int64_t> local_activations_dp_dim(const torch::nn::Module& root) {
  std::vector<const torch::nn::Module*> modules{&root};
  for (const auto& child : root.modules(/*include_self=*/false)) {
    modules.push_back(child.get());
  }
  for (const torch::nn::Module* m : modules) {
    const AppliedStyleImpl* applied = applied_style(*m);
    if (applied != nullptr && applied->plain_is_rows) {
      return 1 - applied->mesh_dim;
    }
  }
  return std::nullopt;
}

} // namespace detail

DeviceMesh mesh_dim_mesh(const DeviceMesh& mesh, int64_t dim) {
  TORCH_CHECK(
      dim >= 0 && dim < mesh.ndim(),
      "mesh_dim_mesh: mesh dim ",
      dim,
      " out of range for ",
      mesh);
  return DeviceMesh(
      mesh.device_type(),
      {mesh.size(dim)},
      mesh.group_ranks(dim),
      {mesh.get_group(dim)},
      mesh.get_rank());
}

void parallelize_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const ParallelizePlan& plan) {
  if (mesh.ndim() != 1) {
    throw PlacementError(
        "parallelize_module: tensor parallelism runs on a 1-D mesh, got " +
        mesh.to_string() +
        "; pass mesh_dim_mesh(mesh, dim) for one of its dimensions");
  }
  // Every entry is checked before any parameter changes.
  std::vector<Target> targets;
  for (const auto& entry : plan) {
    for (Target& t : resolve(module, entry.first, entry.second)) {
      for (const auto& earlier : targets) {
        if (earlier.module == t.module) {
          throw PlacementError(
              "parallelize_module: the plan names '" + t.name +
              "' twice (key '" + entry.first + "')");
        }
      }
      targets.push_back(std::move(t));
    }
  }
  for (const auto& t : targets) {
    if (distributes_parameters(t.style)) {
      distribute_module(
          *t.module,
          mesh,
          [&t](const std::string& name, const at::Tensor&, const DeviceMesh&) {
            return Placements{param_placement(t.style, t.embedding, name)};
          });
    }
    t.module->register_module(
        kStyleChild,
        std::make_shared<AppliedStyleImpl>(t.style, mesh, t.embedding));
  }
}

void parallelize_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const ParallelStyle& style) {
  parallelize_module(module, mesh, ParallelizePlan{{"", style}});
}

namespace {

// The DTensors made of plain tensors under local activations, for one
// fully_sharded_forward (GatheredParameters forgets them). A plain tensor
// that several styles read with the same placements (the normed input of
// wq, wk and wv) is wrapped once: the readers' Partial input gradients then
// add up on it and are all-reduced once in backward, not once per reader as
// under PyTorch's styles, which wrap it per layer.
struct PlainRead {
  at::Tensor plain; // kept alive: its TensorImpl is the key
  int64_t version;
  bool grad_mode;
  DeviceMesh mesh;
  Placements placements;
  at::Tensor dtensor;
};

thread_local std::vector<PlainRead> plain_reads;

at::Tensor read_rows(
    const at::Tensor& t,
    const DeviceMesh& mesh,
    const Placements& placements) {
  const bool grad_mode = at::GradMode::is_enabled();
  for (const PlainRead& r : plain_reads) {
    if (r.plain.unsafeGetTensorImpl() == t.unsafeGetTensorImpl() &&
        r.version == static_cast<int64_t>(t._version()) &&
        r.grad_mode == grad_mode && r.placements == placements &&
        r.mesh == mesh) {
      return r.dtensor;
    }
  }
  at::Tensor dt = from_local(t, mesh, placements);
  plain_reads.push_back(
      {t, static_cast<int64_t>(t._version()), grad_mode, mesh, placements, dt});
  return dt;
}

// A plain tensor read as `p` on the style's dim. On a 2-D mesh a local
// tensor says nothing about the other (dp) dim: an error, unless the
// model's styles hand back local tensors (plain_is_rows), where it is this
// rank's rows of the batch, Shard(0) on dp, as FSDP2 runs a module (the
// global shape assumes every dp rank holds as many rows, as from_local's).
// `side`: "input" or "output".
at::Tensor from_plain(
    const AppliedStyleImpl& applied,
    const at::Tensor& t,
    const Placement& p,
    const std::string& side) {
  if (applied.mesh.ndim() > 1 && applied.plain_is_rows) {
    Placements rows(static_cast<size_t>(applied.mesh.ndim()), Shard{0});
    rows[applied.mesh_dim] = normalized(p, t.dim())[0];
    return read_rows(t, applied.mesh, rows);
  }
  if (applied.mesh.ndim() > 1) {
    throw PlacementError(
        "parallel_" + side + ": the " + style_name(applied.style) +
        " module runs on dim " + std::to_string(applied.mesh_dim) + " of " +
        applied.mesh.to_string() + " (fully_shard on the other dim); a plain " +
        side +
        " says nothing about its placement on the other dims: pass a DTensor (use_local_output = "
        "false on the style before it), or let the styles hand back local tensors (each rank's rows)");
  }
  return from_local(t, applied.mesh, normalized(p, t.dim()));
}

at::Tensor to_layout(
    const AppliedStyleImpl& applied,
    const at::Tensor& dt,
    const Placement& p) {
  const Placements wanted =
      on_style_dim(applied, *placements_of(dt), p, dt.dim());
  return *placements_of(dt) == wanted ? dt : redistribute(dt, wanted);
}

} // namespace

void detail::forget_plain_reads() {
  plain_reads.clear();
}

at::Tensor parallel_input(
    const torch::nn::Module& module,
    const at::Tensor& input) {
  const AppliedStyleImpl* applied = applied_style(module);
  if (applied == nullptr) {
    return input;
  }
  const Layouts l = layouts_of(*applied);
  if (!l.input) {
    return input;
  }
  at::Tensor dt = input;
  if (!is_dtensor(input)) {
    dt = from_plain(*applied, input, *l.input, "input");
  } else if (*mesh_of(input) != applied->mesh) {
    throw MeshMismatchError(
        "parallel_input: the input lives on " + mesh_of(input)->to_string() +
        ", the " + style_name(applied->style) + " module on " +
        applied->mesh.to_string());
  }
  dt = to_layout(*applied, dt, *l.desired_input);
  return l.local_input ? to_local(dt) : dt;
}

at::Tensor parallel_output(
    const torch::nn::Module& module,
    const at::Tensor& output) {
  const AppliedStyleImpl* applied = applied_style(module);
  if (applied == nullptr) {
    return output;
  }
  const Layouts l = layouts_of(*applied);
  at::Tensor out = output;
  if (!is_dtensor(out)) {
    if (!l.plain_output) { // Colwise/Rowwise compute on DTensors; the other
                           // styles leave the output alone
      TORCH_CHECK(
          !l.output,
          "parallel_output: the ",
          style_name(applied->style),
          " module's forward returned a plain tensor");
      return out;
    }
    out = from_plain(*applied, out, *l.plain_output, "output");
  }
  if (l.output) {
    out = to_layout(*applied, out, *l.output);
  }
  return l.use_local_output ? to_local(out) : out;
}

} // namespace meshguard
