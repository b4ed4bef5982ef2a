// The rule table as the static analysis reads it (lib/Analysis/Placements/
// OperatorRules.def): per aten operator, what the DTensor kernel does with a
// call that has a sharded or Partial operand, and two facts of its rules
// the placement analysis needs. One source of truth: the analysis compiles
// this output in, and a test checks that the committed file matches.

#include <map>
#include <sstream>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/version.h>

#include <meshguard/runtime/ShardingRules.h>

#include "CallPolicy.h"

namespace meshguard {
namespace {

// What one operator's rules say, merged over its overloads.
struct OperatorFacts {
  std::string family;
  bool has_rule = false;
  bool all_decompose = true;
  // The same over the overloads a C++ call of the name reaches: `out=`
  // overloads are `at::<name>_out` in C++, another name the analysis reads
  // apart (softmax.int decomposes into _softmax; softmax.int_out has no
  // kernel of its own for DTensors).
  bool called_decompose = true;
  bool any_called = false;
  bool partial_from_shard = false; // a Shard operand can give a Partial output
  bool keeps_partial = false; // a Partial operand can stay Partial
  std::vector<std::string> as_ops; // "mat1×mat2 as mm": also mm's facts
};

// Splits `text` at `sep` outside parentheses and brackets.
std::vector<std::string> split_outside(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : text) {
    depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
    if (depth == 0 && c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string> split_arrows(const std::string& text) {
  const std::string arrow = "→";
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at = 0; (at = text.find(arrow, from)) != std::string::npos;
       from = at + arrow.size()) {
    out.push_back(text.substr(from, at - from));
  }
  out.push_back(text.substr(from));
  return out;
}

// Reads "S(...) → P(...)" (Shard in, Partial out) and "P(...) → P(...)"
// (Partial kept) from an entry's strategies, the text written beside each
// rule (and shown in docs/runtime/operator-table.md): strategies are
// separated by ';', a strategy's operands and outputs by an arrow; after
// an output, ", " starts the next strategy's operands.
void read_strategies(const std::string& text, OperatorFacts& facts) {
  for (const auto& strategy : split_outside(text, ';')) {
    const auto parts = split_arrows(strategy);
    if (parts.size() == 1) {
      const auto as = strategy.find(" as "); // "mat1×mat2 as mm"
      if (as != std::string::npos) {
        facts.as_ops.push_back(strategy.substr(as + 4));
      }
      continue;
    }
    for (size_t k = 0; k + 1 < parts.size(); ++k) {
      const auto before = split_outside(parts[k], ',');
      const auto after = split_outside(parts[k + 1], ',');
      const std::string in = k == 0 ? parts[k] : before.back();
      std::string out = parts[k + 1];
      if (k + 2 < parts.size()) { // the last ", " starts the next operands
        out.resize(out.size() - after.back().size());
      }
      const bool partial_out = out.find("P(") != std::string::npos;
      facts.partial_from_shard |=
          partial_out && in.find("S(") != std::string::npos;
      facts.keeps_partial |= partial_out && in.find("P(") != std::string::npos;
    }
  }
}

} // namespace

std::string sharding_rules_analysis_table() {
  std::map<std::string, OperatorFacts> by_name;
  for (const auto& name : c10::Dispatcher::singleton().getAllOpNames()) {
    const std::string prefix = "aten::";
    if (name.name.compare(0, prefix.size(), prefix) != 0) {
      continue;
    }
    auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op.has_value()) {
      continue;
    }
    const auto decision = ops::sharded_call(*op);
    auto& facts = by_name[name.name.substr(prefix.size())];
    facts.all_decompose &= decision.kind == ShardedCall::kDecomposes;
    const std::string& overload = name.overload_name;
    const bool out_overload = overload == "out" ||
        (overload.size() > 4 &&
         overload.compare(overload.size() - 4, 4, "_out") == 0);
    if (!out_overload) {
      facts.any_called = true;
      facts.called_decompose &= decision.kind == ShardedCall::kDecomposes;
    }
    if (decision.kind == ShardedCall::kRule) {
      facts.has_rule = true;
      facts.family = decision.entry->family;
      read_strategies(decision.entry->strategies, facts);
    }
  }
  for (auto& kv : by_name) {
    for (const auto& other : kv.second.as_ops) {
      auto it = by_name.find(other);
      if (it != by_name.end()) {
        kv.second.partial_from_shard |= it->second.partial_from_shard;
        kv.second.keeps_partial |= it->second.keeps_partial;
      }
    }
  }
  std::ostringstream os;
  os << "// Generated from the runtime's sharding-rule table (lib/runtime/ops/) by\n"
     << "// `meshguard_ops_doc --analysis` on libtorch " << TORCH_VERSION_MAJOR
     << "." << TORCH_VERSION_MINOR << "; a test checks that\n"
     << "// this file matches. Do not edit by hand.\n"
     << "//\n"
     << "// MESHGUARD_OPERATOR(name, policy, family, partial_from_shard, keeps_partial)\n"
     << "//   policy: Rule (some overload has a sharding rule), Decomposes (every\n"
     << "//   overload a call of the name reaches decomposes before the DTensor\n"
     << "//   kernel: out= overloads are <name>_out in C++), Refused (some overload\n"
     << "//   is refused on a sharded or Partial operand, none has a rule).\n"
     << "//   partial_from_shard: a Shard operand can give a Partial output;\n"
     << "//   keeps_partial: a Partial operand can stay Partial (a linear op).\n";
  for (const auto& kv : by_name) {
    const auto& f = kv.second;
    const bool decomposes = f.any_called ? f.called_decompose : f.all_decompose;
    const char* policy = f.has_rule ? "Rule"
        : decomposes                ? "Decomposes"
                                    : "Refused";
    os << "MESHGUARD_OPERATOR(\"" << kv.first << "\", " << policy << ", \""
       << f.family << "\", " << (f.partial_from_shard ? "true" : "false")
       << ", " << (f.keeps_partial ? "true" : "false") << ")\n";
  }
  return os.str();
}

} // namespace meshguard
