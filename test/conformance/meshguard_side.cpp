// One rank of the conformance run on meshguard's DTensor (Gloo): the same
// cases as pytorch_side.py, the same result fields (results.py). Each case
// calls its aten overload through the dispatcher with DTensor operands, as
// user code reaches it.
//
//   meshguard_conformance --list-rules            the rule table's overloads
//   meshguard_conformance CASES.pt OUT [FIRST]  one rank (meshguard-launch);
//                                                rank 0 appends a record per
//                                                case to OUT
//
// As in pytorch_side.py, the ranks compare each case's outcome through the
// store; when they differ the case is recorded as "diverged" and the program
// exits with 3 (run.py starts a fresh one after it). Collectives time out
// after results.py's COLLECTIVE_TIMEOUT_S.

#include <array>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <meshguard/meshguard.h>
#include <meshguard/runtime/ShardingRules.h>

#include "CountingGroup.h"
#include "SideSupport.h"

using namespace meshguard;
using namespace meshguard::conformance;
using Record = c10::impl::GenericDict;

namespace {

Record new_record() {
  return Record(c10::StringType::get(), c10::AnyType::get());
}

// A Tensor?[] argument (index's indices): its list holds optional tensors.
bool optional_elements(const c10::Argument& arg) {
  const auto list = arg.type()->cast<c10::ListType>();
  return list != nullptr &&
      list->getElementType()->kind() == c10::TypeKind::OptionalType;
}

c10::impl::GenericList new_list() {
  return c10::impl::GenericList(c10::AnyType::get());
}

Placement parse_placement(const std::string& text) {
  if (text == "R") {
    return Replicate{};
  }
  if (text.rfind("S(", 0) == 0) {
    return Shard{std::stoll(text.substr(2))};
  }
  const std::string op = text.substr(2, text.size() - 3);
  if (op == "sum") {
    return Partial{ReduceOp::SUM};
  }
  if (op == "avg") {
    return Partial{ReduceOp::AVG};
  }
  if (op == "max") {
    return Partial{ReduceOp::MAX};
  }
  throw std::runtime_error("unknown placement " + text);
}

c10::List<std::string> placement_texts(const Placements& ps) {
  c10::List<std::string> out;
  for (const auto& p : ps) {
    if (is_replicate(p)) {
      out.push_back("R");
    } else if (is_shard(p)) {
      out.push_back("S(" + std::to_string(std::get<Shard>(p).dim) + ")");
    } else {
      out.push_back(
          std::string("P(") + to_string(std::get<Partial>(p).reduce_op) + ")");
    }
  }
  return out;
}

// results.py's partial_factor.
double partial_factor(
    const std::vector<std::string>& texts,
    const DeviceMesh& mesh) {
  double f = 1.0;
  for (size_t m = 0; m < texts.size(); ++m) {
    const double n = static_cast<double>(mesh.size(static_cast<int64_t>(m)));
    const double c = static_cast<double>(mesh.coordinate()[m]);
    if (texts[m] == "P(sum)") {
      f *= (2 * c + 1) / (n * n);
    } else if (texts[m] == "P(avg)") {
      f *= (2 * c + 1) / n;
    }
  }
  return f;
}

at::Tensor make_input(
    const c10::Dict<c10::IValue, c10::IValue>& spec,
    const DeviceMesh& mesh,
    bool requires_grad) {
  at::Tensor full =
      spec.at("full")
          .toTensor()
          .clone(); // cases share their full tensors; in-place ops write
  std::vector<std::string> texts;
  Placements placements, base;
  bool partial = false;
  for (const auto& t : elements(spec.at("placements"))) {
    texts.push_back(t.toStringRef());
    placements.push_back(parse_placement(texts.back()));
    partial = partial || is_partial(placements.back());
    base.push_back(
        is_partial(placements.back()) ? Placement(Replicate{})
                                      : placements.back());
  }
  at::Tensor dt;
  if (!partial) {
    dt = distribute_tensor(full, mesh, placements);
  } else {
    at::Tensor local = to_local(distribute_tensor(full, mesh, base))
                           .mul(partial_factor(texts, mesh));
    dt = from_local(
        local, mesh, placements, /*run_check=*/false, full.sizes().vec());
  }
  return requires_grad ? dt.requires_grad_(true) : dt;
}

// A pickled value as the schema's type wants it on the stack.
c10::IValue typed_value(const c10::IValue& v, const c10::TypePtr& type) {
  if (v.isNone()) {
    return v;
  }
  c10::TypePtr t = type;
  if (auto opt = t->cast<c10::OptionalType>()) {
    t = opt->getElementType();
  }
  if (t->kind() == c10::TypeKind::ListType && (v.isList() || v.isTuple())) {
    const std::vector<c10::IValue> items = elements(v);
    const c10::TypePtr elem = t->castRaw<c10::ListType>()->getElementType();
    if (elem->kind() == c10::TypeKind::NumberType) {
      c10::impl::GenericList scalars(elem); // Scalar[] (_foreach_ ops)
      for (const auto& e : items) {
        scalars.push_back(e);
      }
      return scalars;
    }
    if (!items.empty() && items[0].isBool()) {
      c10::List<bool> bools;
      for (const auto& e : items) {
        bools.push_back(e.toBool());
      }
      return bools;
    }
    c10::List<int64_t> ints;
    for (const auto& e : items) {
      ints.push_back(e.toInt());
    }
    return ints;
  }
  if (t->kind() == c10::TypeKind::FloatType && v.isInt()) {
    return static_cast<double>(v.toInt());
  }
  return v;
}

int64_t mesh_numel(const c10::IValue& shape) {
  int64_t n = 1;
  for (const auto& s : elements(shape)) {
    n *= s.toInt();
  }
  return n;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// A plain dense copy the pickler accepts (a gradient can be a ZeroTensor).
at::Tensor storable(const at::Tensor& t) {
  at::Tensor plain = is_dtensor(t) ? full_tensor(t) : t;
  if (plain._is_zerotensor()) {
    return at::zeros(plain.sizes(), plain.options().dtype());
  }
  return plain.detach().resolve_conj().resolve_neg().contiguous().clone();
}

Record record_tensor(const at::Tensor& o, bool with_value) {
  Record r = new_record();
  if (is_dtensor(o)) {
    r.insert("placements", placement_texts(*placements_of(o)));
  } else {
    r.insert("placements", c10::IValue());
  }
  r.insert("shape", c10::List<int64_t>(o.sizes().vec()));
  r.insert("stride", c10::List<int64_t>(o.strides().vec()));
  r.insert("value", with_value ? c10::IValue(storable(o)) : c10::IValue());
  return r;
}

std::vector<at::Tensor> tensor_outputs(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> outs;
  for (const auto& v : stack) {
    if (v.isTensor()) {
      outs.push_back(v.toTensor());
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) {
        outs.push_back(t);
      }
    }
  }
  return outs;
}

c10::Dict<std::string, int64_t> comm_counts(
    const std::vector<c10::intrusive_ptr<testing::CountingGroup>>& counters) {
  int64_t reduces = 0, gathers = 0, broadcasts = 0;
  for (const auto& c : counters) {
    reduces += c->all_reduces;
    gathers += c->all_gathers;
    broadcasts += c->broadcasts;
    c->reset();
  }
  c10::Dict<std::string, int64_t> counts;
  if (reduces) {
    counts.insert("all_reduce", reduces);
  }
  if (gathers) {
    counts.insert("all_gather", gathers);
  }
  if (broadcasts) {
    counts.insert("broadcast", broadcasts);
  }
  return counts;
}

void record_outputs(
    const std::vector<at::Tensor>& outs,
    const std::vector<at::Tensor>& ins,
    const DeviceMesh& mesh,
    const std::vector<c10::intrusive_ptr<testing::CountingGroup>>& counters,
    bool backward,
    bool values,
    Record& r) {
  c10::impl::GenericList recorded = new_list();
  for (const auto& o : outs) {
    recorded.push_back(record_tensor(o, values));
  }
  r.insert("outputs", recorded);
  if (backward && !outs.empty() && is_dtensor(outs[0]) &&
      outs[0].requires_grad()) {
    const auto n = static_cast<int64_t>(outs[0].numel());
    at::Tensor w =
        at::arange(n, at::kFloat).reshape(outs[0].sizes()).remainder(7).sub(3);
    at::Tensor wd =
        distribute_tensor(w, mesh, Placements(mesh.ndim(), Replicate{}));
    comm_counts(counters);
    (outs[0] * wd).sum().backward();
    r.insert("comm_bwd", comm_counts(counters));
    c10::impl::GenericList grads = new_list();
    for (const auto& t : ins) {
      if (!t.requires_grad() || !t.grad().defined()) {
        grads.push_back(c10::IValue());
        continue;
      }
      Record g = new_record();
      g.insert(
          "placements",
          is_dtensor(t.grad())
              ? c10::IValue(placement_texts(*placements_of(t.grad())))
              : c10::IValue());
      g.insert("value", storable(t.grad()));
      grads.push_back(g);
    }
    r.insert("grads", grads);
  }
}

Record run_case(
    const c10::Dict<c10::IValue, c10::IValue>& c,
    const DeviceMesh& mesh,
    const std::vector<c10::intrusive_ptr<testing::CountingGroup>>& counters) {
  const bool backward = c.at("backward").toBool();
  const bool values = c.at("values").toBool();
  std::vector<at::Tensor> ins;
  for (const auto& spec : elements(c.at("inputs"))) {
    auto d = spec.toGenericDict();
    ins.push_back(make_input(
        d, mesh, backward && d.at("full").toTensor().is_floating_point()));
  }
  std::string overload = c.at("overload").toStringRef();
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(
      c.at("op").toStringRef().c_str(),
      overload == "default" ? "" : overload.c_str());
  const auto& schema_args = op.schema().arguments();
  torch::jit::Stack stack;
  size_t i = 0;
  for (const auto& a : elements(c.at("args"))) {
    auto d = a.toGenericDict();
    const std::string kind = d.at("kind").toStringRef();
    if (kind == "input") {
      stack.emplace_back(ins.at(d.at("index").toInt()));
    } else if (kind == "inputs" && optional_elements(schema_args.at(i))) {
      // Tensor?[] (indices): -1 is None.
      c10::List<c10::optional<at::Tensor>> list;
      for (const auto& j : elements(d.at("indices"))) {
        list.push_back(
            j.toInt() < 0 ? c10::optional<at::Tensor>() : ins.at(j.toInt()));
      }
      stack.emplace_back(list);
    } else if (kind == "inputs") {
      c10::List<at::Tensor> list;
      for (const auto& j : elements(d.at("indices"))) {
        list.push_back(ins.at(j.toInt()));
      }
      stack.emplace_back(list);
    } else {
      stack.push_back(typed_value(d.at("value"), schema_args.at(i).type()));
    }
    ++i;
  }
  // Arguments the case leaves out take the schema's defaults, as in Python;
  // the boxed call reads exactly one value per schema argument.
  for (; i < schema_args.size(); ++i) {
    if (!schema_args[i].default_value()) {
      throw std::runtime_error(
          "case " + c.at("id").toStringRef() +
          " gives no value for argument '" + schema_args[i].name() +
          "', which has no default");
    }
    stack.push_back(*schema_args[i].default_value());
  }
  if (stack.size() != schema_args.size()) {
    throw std::runtime_error(
        "case " + c.at("id").toStringRef() + " gives " +
        std::to_string(stack.size()) + " arguments for " +
        std::to_string(schema_args.size()));
  }
  Record r = new_record();
  r.insert("id", c.at("id"));
  comm_counts(counters); // drops the inputs' own collectives
  try {
    op.callBoxed(&stack);
  } catch (const std::exception& e) {
    comm_counts(counters);
    r.insert("status", std::string("refused"));
    r.insert("error", first_line(e.what()));
    return r;
  }
  r.insert("status", std::string("ok"));
  r.insert("comm_fwd", comm_counts(counters));
  try {
    record_outputs(
        tensor_outputs(stack), ins, mesh, counters, backward, values, r);
  } catch (const std::exception&
               e) { // the op ran; reading or differentiating its output failed
    r.insert_or_assign("status", std::string("error"));
    r.insert_or_assign("error", first_line(e.what()));
  }
  return r;
}

// results.py's append_record: length, then the pickle.
void append_record(std::ofstream& sink, const Record& r) {
  std::vector<char> bytes = torch::pickle_save(r);
  const uint64_t n = bytes.size();
  std::array<char, 8> head{};
  for (int k = 0; k < 8; ++k) {
    head[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  }
  sink.write(head.data(), head.size());
  sink.write(bytes.data(), static_cast<std::streamsize>(n));
  sink.flush();
  if (!sink) {
    throw std::runtime_error("cannot write the results file");
  }
}

// results.py's COLLECTIVE_TIMEOUT_S and STORE_TIMEOUT_S.
std::string get_string(c10d::Store& store, const std::string& key) {
  std::vector<uint8_t> v = store.get(key);
  return std::string(v.begin(), v.end());
}

// results.py's agree(): empty when every rank had the same outcome.
std::string disagreement(
    c10d::Store& store,
    int64_t index,
    int64_t rank,
    int64_t world,
    const Record& r) {
  const std::string mine = r.at("status").toStringRef() + "|" +
      (r.contains("error") ? r.at("error").toStringRef() : std::string());
  store.set(
      "case" + std::to_string(index) + "/" + std::to_string(rank),
      std::vector<uint8_t>(mine.begin(), mine.end()));
  std::vector<std::string> theirs;
  bool same_status = true, same_text = true;
  for (int64_t k = 0; k < world; ++k) {
    theirs.push_back(get_string(
        store, "case" + std::to_string(index) + "/" + std::to_string(k)));
    same_status = same_status &&
        theirs[k].substr(0, theirs[k].find('|')) ==
            theirs[0].substr(0, theirs[0].find('|'));
    same_text = same_text && theirs[k] == theirs[0];
  }
  if (same_status && (theirs[0].rfind("ok|", 0) == 0 || same_text)) {
    return "";
  }
  std::string text;
  for (int64_t k = 0; k < world; ++k) {
    std::string t = theirs[k];
    t.replace(t.find('|'), 1, ": ");
    text += (k ? "; rank " : "rank ") + std::to_string(k) + " " + t;
  }
  return text;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list-rules") {
    for (const auto& op : sharding_rule_ops()) {
      std::cout << op << "\n";
    }
    return 0;
  }
  if (argc != 3 && argc != 4) {
    std::cerr
        << "usage: " << argv[0]
        << " --list-rules | CASES.pt OUT.pt [FIRST] (one rank, through meshguard-launch)\n";
    return 2;
  }
  int code = 0;
  try {
    MeshOptions mesh_options = conformance::launched_mesh_options();
    const int64_t world = mesh_options.world_size, rank = mesh_options.rank;
    const int64_t first = argc > 3 ? std::atoll(argv[3]) : 0;
    c10d::Store* store = mesh_options.store.get();

    c10::IValue cases = torch::pickle_load(read_bytes(argv[1]));
    std::vector<c10::impl::GenericDict> mine;
    for (const auto& v : elements(cases)) {
      if (mesh_numel(v.toGenericDict().at("mesh")) == world) {
        mine.push_back(v.toGenericDict());
      }
    }
    std::map<
        std::vector<int64_t>,
        std::pair<
            DeviceMesh,
            std::vector<c10::intrusive_ptr<testing::CountingGroup>>>>
        meshes;
    std::ofstream sink;
    if (rank == 0) {
      sink.open(argv[2], std::ios::binary | std::ios::trunc);
      if (!sink) {
        throw std::runtime_error(std::string("cannot write ") + argv[2]);
      }
    }
    const bool trace = std::getenv("MESHGUARD_CONFORMANCE_TRACE") != nullptr;
    for (int64_t index = first; index < static_cast<int64_t>(mine.size());
         ++index) {
      const auto& c = mine[index];
      std::vector<int64_t> shape;
      for (const auto& s : elements(c.at("mesh"))) {
        shape.push_back(s.toInt());
      }
      auto it = meshes.find(shape);
      if (it == meshes.end()) {
        std::vector<c10::intrusive_ptr<testing::CountingGroup>> counters;
        DeviceMesh counted = testing::counting_mesh(
            init_device_mesh("cpu", shape, mesh_options), counters);
        it = meshes.emplace(shape, std::make_pair(counted, counters)).first;
      }
      if (trace) {
        std::cout << "case " << index << ": " << c.at("id").toStringRef()
                  << '\n'
                  << std::flush;
      }
      Record r = new_record();
      try {
        r = run_case(c, it->second.first, it->second.second);
      } catch (const std::exception&
                   e) { // making the inputs failed; the ranks compare below
        r.insert("id", c.at("id"));
        r.insert("status", std::string("error"));
        r.insert("error", first_line(e.what()));
      }
      const std::string diverged = disagreement(*store, index, rank, world, r);
      if (!diverged.empty()) {
        r = new_record();
        r.insert("id", c.at("id"));
        r.insert("status", std::string("diverged"));
        r.insert("error", diverged);
        code = 3;
      }
      if (rank == 0) {
        append_record(sink, r);
      }
      if (code != 0) {
        break;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "meshguard_conformance: " << e.what() << "\n";
    return 1;
  }
  if (code != 0) {
    std::cout.flush();
    std::_Exit(code); // the groups are out of step: no orderly shutdown
  }
  return 0;
}
