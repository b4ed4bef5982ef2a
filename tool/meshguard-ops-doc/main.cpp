// Prints docs/runtime/operator-table.md from the runtime's sharding-rule
// table, or with --analysis lib/Analysis/Placements/OperatorRules.def (what
// the static analysis compiles in), or with --list every overload the
// runtime shards by a rule, one `aten::name.overload` a line (derived
// in-place and out= forms included; docs/runtime/coverage.md reads it); with
// --check FILE, exits 1 (and says so) when FILE differs. Both list the
// dispatcher's operators, which differ between libtorch releases: the committed
// files are those of libtorch 2.13, the default, so the check is skipped (and
// says why) on another release.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/version.h>

#include <meshguard/runtime/ShardingRules.h>

int main(int argc, char **argv) {
  std::vector<std::string> Args(argv + 1, argv + argc);
  if (Args.size() == 1 && Args[0] == "--list") {
    for (const std::string &Op : meshguard::sharding_rule_ops())
      std::cout << Op << "\n";
    return 0;
  }
  const bool Analysis = !Args.empty() && Args.front() == "--analysis";
  if (Analysis)
    Args.erase(Args.begin());
  const std::string Text = Analysis ? meshguard::sharding_rules_analysis_table()
                                    : meshguard::sharding_rules_markdown();
  const char *What = Analysis ? "analysis operator table" : "operator table";
  if (Args.size() == 2 && Args[0] == "--check") {
    if (TORCH_VERSION_MAJOR != 2 || TORCH_VERSION_MINOR != 13) {
      std::cout << "skipped: the committed " << What
                << " lists libtorch 2.13's operators; this is libtorch "
                << TORCH_VERSION << "\n";
      return 0;
    }
    std::ifstream In(Args[1]);
    std::stringstream Committed;
    Committed << In.rdbuf();
    if (!In || Committed.str() != Text) {
      std::cerr
          << Args[1]
          << " does not match the sharding-rule table; regenerate it with\n  "
          << argv[0] << (Analysis ? " --analysis" : "") << " > " << Args[1]
          << "\n";
      return 1;
    }
    std::cout << What << " matches (" << meshguard::sharding_rule_ops().size()
              << " overloads)\n";
    return 0;
  }
  if (!Args.empty()) {
    std::cerr << "usage: " << argv[0]
              << " [--analysis] [--check FILE] | --list\n";
    return 2;
  }
  std::cout << Text;
  return 0;
}
