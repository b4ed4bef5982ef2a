// Stub of c10d's TCPStore (libtorch) for meshguard's check tests.
#pragma once
#include <optional>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {
struct TCPStoreOptions {
  std::uint16_t port = 29500;
  bool isServer = false;
  std::optional<std::size_t> numWorkers = std::nullopt;
  bool waitWorkers = true;
};
class TCPStore : public Store {
public:
  explicit TCPStore(std::string Host, const TCPStoreOptions &Opts = {});
  // The deprecated form: the server is the rank that passes true.
  TCPStore(const std::string &MasterAddr, std::uint16_t MasterPort,
           std::optional<int> NumWorkers = std::nullopt, bool IsServer = false);
};
} // namespace c10d
