// The _copy forms of views (view_copy, expand_copy, split_with_sizes_copy,
// as functionalization emits them): the view's rule, the result a fresh
// contiguous copy of the local view. The arguments are the view's, in the
// same places.

#include "RuleTable.h"

#include <array>

namespace meshguard {
namespace ops {

void add_view_copy_rules(RuleTable& table) {
  const std::array<std::pair<const char*, const char*>, 3> copies = {{
      {"aten::view_copy.default", "aten::view.default"},
      {"aten::expand_copy.default", "aten::expand.default"},
      {"aten::split_with_sizes_copy.default", "aten::split_with_sizes.default"},
  }};
  for (const auto& [copy, view] : copies) {
    auto base = table.find(view);
    if (base == table.end() ||
        !operators_by_name().count(
            std::string(copy).substr(0, std::string(copy).rfind('.')))) {
      continue;
    }
    RuleEntry entry = base->second;
    entry.strategies = "as `" + std::string(view) + "`, the result copied";
    const RuleFn view_rule = base->second.rule;
    entry.rule = [view_rule](const CallInfo& call) {
      RuleResult r = view_rule(call);
      // Without a local runner the op itself runs on the locals: a copy.
      if (r.run_local) {
        auto local_view = r.run_local;
        r.run_local = [local_view](
                          const std::vector<at::Tensor>& locals,
                          const LocalContext& ctx) {
          std::vector<at::Tensor> out = local_view(locals, ctx);
          for (at::Tensor& t : out) {
            t = t.clone(at::MemoryFormat::Contiguous);
          }
          return out;
        };
      }
      return r;
    };
    table[copy] = std::move(entry);
  }
}

} // namespace ops
} // namespace meshguard
