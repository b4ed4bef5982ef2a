// Prints docs/runtime/operator-table.md from the runtime's sharding-rule
// table; with --check FILE, exits 1 (and says so) when FILE differs. The
// pointwise overloads come from the dispatcher's op list, which differs
// between libtorch releases: the committed page is that of libtorch 2.13,
// the default, so the check is skipped (and says why) on another release.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <torch/version.h>

#include <meshguard/runtime/ShardingRules.h>

int main(int argc, char **argv) {
  const std::string Page = meshguard::sharding_rules_markdown();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    if (TORCH_VERSION_MAJOR != 2 || TORCH_VERSION_MINOR != 13) {
      std::cout << "skipped: the committed page lists libtorch 2.13's "
                   "overloads; this is libtorch "
                << TORCH_VERSION << "\n";
      return 0;
    }
    std::ifstream In(argv[2]);
    std::stringstream Committed;
    Committed << In.rdbuf();
    if (!In || Committed.str() != Page) {
      std::cerr
          << argv[2]
          << " does not match the sharding-rule table; regenerate it with\n  "
          << argv[0] << " > " << argv[2] << "\n";
      return 1;
    }
    std::cout << "operator table matches ("
              << meshguard::sharding_rule_ops().size() << " overloads)\n";
    return 0;
  }
  if (argc != 1) {
    std::cerr << "usage: " << argv[0] << " [--check FILE]\n";
    return 2;
  }
  std::cout << Page;
  return 0;
}
