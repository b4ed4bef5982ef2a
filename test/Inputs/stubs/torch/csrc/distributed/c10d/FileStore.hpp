// Stub of c10d's FileStore and PrefixStore (libtorch) for meshguard's check
// tests.
#pragma once
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {
class FileStore : public Store {
public:
  explicit FileStore(std::string Path, int NumWorkers);
};
class PrefixStore : public Store {
public:
  explicit PrefixStore(std::string Prefix, c10::intrusive_ptr<Store> Store);
};
} // namespace c10d
