#include "Propagator.h"

#include <c10/util/accumulate.h>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace meshguard {
namespace ops {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const Decision>> entries;
};

Cache& cache() {
  static auto* c = new Cache();
  return *c;
}

// Keys are raw bytes (not text): the lookup runs on every op call.
void put(std::string& key, int64_t v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_placement(std::string& key, const Placement& p) {
  if (auto* s = std::get_if<Shard>(&p)) {
    put(key, s->dim);
  } else if (auto* q = std::get_if<Partial>(&p)) {
    put(key, -10 - static_cast<int64_t>(q->reduce_op));
  } else {
    put(key, -1);
  }
}

void put_ints(std::string& key, c10::IntArrayRef v) {
  put(key, static_cast<int64_t>(v.size()));
  key.append(
      reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
}

// Everything a rule may read: operand specs and the int/bool/list/dtype
// arguments. Scalars do not change any rule's decision, except whether they
// are present (fixed by the overload).
// The dtype of each tensor argument and of each list element (-1: None or
// not a tensor), for rules that read them (RuleEntry::keys_tensor_kinds).
void put_tensor_kinds(std::string& key, const CallInfo& call) {
  auto kind = [&](const c10::IValue& v) {
    put(key,
        v.isTensor() && v.toTensor().defined()
            ? static_cast<int64_t>(v.toTensor().scalar_type())
            : -1);
  };
  for (size_t i = 0; i < call.num_args; ++i) {
    const c10::IValue& v = call.arg(i);
    if (v.isTensor()) {
      kind(v);
    } else if (v.isList()) {
      const auto list = v.toListRef();
      put(key, static_cast<int64_t>(list.size()));
      for (const c10::IValue& e : list) {
        kind(e);
      }
    }
  }
}

// Written into `key` (cleared first), so that a cache hit reuses one
// thread-local buffer instead of allocating a new string per call.
void cache_key(
    std::string& key,
    const RuleEntry& entry,
    const CallInfo& call,
    const DeviceMesh& mesh,
    const Fixed& fixed) {
  key.clear();
  put(key, reinterpret_cast<intptr_t>(&entry));
  put_ints(key, mesh.shape());
  put(key, fixed.written);
  put_ints(key, fixed.kept);
  for (const Placements* out : fixed.outputs) {
    key += out ? 'O' : 'o';
    for (size_t d = 0; out && d < out->size(); ++d) {
      put_placement(key, (*out)[d]);
    }
  }
  size_t next = 0;
  for (size_t i = 0; i < call.num_args; ++i) {
    const c10::IValue& v = call.arg(i);
    if (next < call.operands.size() && call.operands[next].arg_index == i) {
      key += 'D'; // one DTensor, or a Tensor[] of them
      for (; next < call.operands.size() && call.operands[next].arg_index == i;
           ++next) {
        const Operand& o = call.operands[next];
        put_ints(key, o.shape);
        for (const auto& p : o.placements) {
          put_placement(key, p);
        }
      }
    } else if (v.isTensor()) {
      key += v.toTensor().defined() ? 'p' : 'u';
    } else if (v.isInt()) {
      key += 'i';
      put(key, v.toInt());
    } else if (v.isBool()) {
      key += v.toBool() ? 'T' : 'F';
    } else if (v.isIntList()) {
      key += 'l';
      // The same bytes as put_ints, without copying the list into a vector.
      const auto list = v.toIntList();
      put(key, static_cast<int64_t>(list.size()));
      for (const int64_t x : list) {
        put(key, x);
      }
    } else if (v.isNone()) {
      key += 'N';
    } else {
      key += '?';
    }
  }
  if (entry.keys_tensor_kinds) {
    put_tensor_kinds(key, call);
  }
}

bool keeps_out_placements(const Strategy& s, const Fixed& fixed, int64_t d) {
  for (size_t o = 0; o < fixed.outputs.size(); ++o) {
    const Placements* out = fixed.outputs[o];
    if (out != nullptr &&
        (o >= s.outputs.size() || !(s.outputs[o] == (*out)[d]))) {
      return false;
    }
  }
  return true;
}

bool keeps_placements(
    const Strategy& s,
    c10::ArrayRef<int64_t> kept,
    const CallInfo& call,
    int64_t d) {
  for (const int64_t k : kept) {
    if (!(s.inputs[k] == call.operands[k].placements[d])) {
      return false;
    }
  }
  return true;
}

std::shared_ptr<const Decision> compute(
    const std::string& op_name,
    const RuleEntry& entry,
    const CallInfo& call,
    const DeviceMesh& mesh,
    const Fixed& fixed) {
  RuleResult rule = entry.rule(call);
  const int64_t written = fixed.written;
  auto decision = std::make_shared<Decision>();
  const size_t n = call.operands.size();
  const size_t outs = rule.output_shapes.size();
  decision->input_targets.assign(n, Placements(mesh.ndim(), Replicate{}));
  decision->output_placements.assign(
      outs, Placements(mesh.ndim(), Replicate{}));
  decision->output_shapes = rule.output_shapes;
  decision->run_local = rule.run_local;
  decision->shapes_from_locals = rule.shapes_from_locals;
  decision->global_dims = rule.global_dims;
  for (int64_t d = 0; d < mesh.ndim(); ++d) {
    const Strategy* best = nullptr;
    double best_cost = kInfinity;
    int best_changes = 0;
    for (const Strategy& s : rule.strategies) {
      TORCH_CHECK(
          s.inputs.size() == n && s.outputs.size() == outs,
          op_name,
          ": malformed sharding rule");
      if (written >= 0 &&
          (!(s.inputs[written] == call.operands[written].placements[d]) ||
           !(s.outputs[0] == call.operands[written].placements[d]))) {
        continue; // an in-place op cannot change its self's placement
      }
      if (!keeps_out_placements(s, fixed, d)) {
        continue; // nor can an out= op move its out tensors
      }
      if (!keeps_placements(s, fixed.kept, call, d)) {
        continue; // nor the other tensors it writes
      }
      double cost = 0;
      int changes = 0; // ties (e.g. empty tensors cost 0 anyway): fewer moved
                       // operands first
      for (size_t i = 0; i < n && cost < kInfinity; ++i) {
        cost += redistribute_cost(
            call.operands[i].shape,
            call.operands[i].placements,
            s.inputs[i],
            d,
            mesh);
        changes += !(s.inputs[i] == call.operands[i].placements[d]);
      }
      if (cost < best_cost ||
          (cost == best_cost && cost < kInfinity && changes < best_changes)) {
        best_cost = cost;
        best_changes = changes;
        best = &s;
      }
    }
    if (best == nullptr) {
      std::ostringstream os;
      os << op_name << ": no sharding strategy fits the operands on mesh dim "
         << d << " (placements";
      for (const auto& o : call.operands) {
        os << " " << to_string(o.placements);
      }
      os << ")";
      if (written >= 0) {
        os << "; an in-place op must keep its self's placement, as in PyTorch: redistribute first or "
              "use the out-of-place op";
      } else if (!fixed.outputs.empty()) {
        os << "; an out= op writes its out tensors in the placements they have (out";
        for (const Placements* out : fixed.outputs) {
          os << " " << (out ? to_string(*out) : std::string("-"));
        }
        os << "), as in PyTorch: redistribute them first or use the functional op";
      } else if (!fixed.kept.empty()) {
        os << "; the op writes some of its operands in place (running statistics), so they keep their "
              "placements: redistribute them first (e.g. to Replicate, or Shard(0) beside a channel-sharded "
              "input)";
      } else {
        os << "; a Partial operand must be reduced first (redistribute it to Replicate)";
      }
      TORCH_CHECK(false, os.str());
    }
    for (size_t i = 0; i < n; ++i) {
      decision->input_targets[i][d] = best->inputs[i];
    }
    for (size_t o = 0; o < outs; ++o) {
      decision->output_placements[o][d] = best->outputs[o];
    }
  }
  return decision;
}

} // namespace

double redistribute_cost(
    const Shape& shape,
    const Placements& from,
    const Placement& to,
    int64_t mesh_dim,
    const DeviceMesh& mesh) {
  const Placement& cur = from[mesh_dim];
  if (cur == to) {
    return 0;
  }
  if (is_partial(to)) {
    // Replicate -> Partial is local (partition the value, as PyTorch does
    // internally); a Shard or another Partial would need a reduction first.
    return is_replicate(cur) ? 0 : kInfinity;
  }
  if (is_shard(to) &&
      std::get<Shard>(to).dim >= static_cast<int64_t>(shape.size())) {
    return kInfinity;
  }
  double bytes = static_cast<double>(c10::multiply_integers(shape));
  for (size_t e = 0; e < from.size(); ++e) {
    if (is_shard(from[e])) {
      bytes /= static_cast<double>(mesh.size(static_cast<int64_t>(e)));
    }
  }
  const double k = static_cast<double>(mesh.size(mesh_dim));
  if (is_replicate(cur)) {
    return 0; // keep my chunk
  }
  if (is_shard(cur)) {
    return is_replicate(to) ? bytes * (k - 1)
                            : bytes * (k - 1) / k; // all-gather / all-to-all
  }
  // Partial: all-reduce to Replicate, reduce-scatter to Shard.
  return is_replicate(to) ? 2 * bytes * (k - 1) / k : bytes * (k - 1) / k;
}

std::shared_ptr<const Decision> decide(
    const std::string& op_name,
    const RuleEntry& entry,
    const CallInfo& call,
    const DeviceMesh& mesh,
    const Fixed& fixed) {
  // One buffer per thread: a hit allocates nothing. A miss copies the key
  // before compute(), so even a rule that re-entered decide() is safe.
  thread_local std::string key_buffer;
  cache_key(key_buffer, entry, call, mesh, fixed);
  const std::string& key = key_buffer;
  auto& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) {
      return it->second;
    }
  }
  std::string owned_key = key; // a miss: the map keeps its own copy
  auto decision = compute(op_name, entry, call, mesh, fixed);
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.entries.size() > 100000) {
    c.entries.clear(); // bounded: shapes that keep changing must not grow it
                       // forever
  }
  c.entries.emplace(std::move(owned_key), decision);
  return decision;
}

Shape global_shape_of(
    size_t o,
    const at::Tensor& local,
    const Placements& placements,
    const Decision& decision,
    const CallInfo& call) {
  Shape shape = local.sizes().vec();
  for (const Placement& p : placements) {
    if (!is_shard(p)) {
      continue;
    }
    const int64_t dim = std::get<Shard>(p).dim;
    bool found = false;
    for (const GlobalDim& g : decision.global_dims) {
      if (g.output == o && g.dim == dim && g.operand < call.operands.size()) {
        shape.at(dim) = call.operands[g.operand].shape.at(g.operand_dim);
        found = true;
        break;
      }
    }
    TORCH_CHECK(
        found,
        "output ",
        o,
        " is sharded on dim ",
        dim,
        " but its rule names no operand dim for it (a bug in the rule; please report it)");
  }
  return shape;
}

size_t decision_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().entries.size();
}

} // namespace ops
} // namespace meshguard
