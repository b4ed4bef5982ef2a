// Stub of c10d's Backend and ProcessGroupGloo (libtorch) for meshguard's
// check tests.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

namespace gloo {
namespace transport {
class Device {};
} // namespace transport
} // namespace gloo

namespace c10d {
class Backend : public ProcessGroup {
public:
  struct Options {
    std::chrono::milliseconds timeout;
  };
};
class ProcessGroupGloo : public Backend {
public:
  struct Options : Backend::Options {
    static c10::intrusive_ptr<Options> create(
        std::chrono::milliseconds Timeout = std::chrono::milliseconds(30000));
    std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
    int threads = 2;
  };
  static std::shared_ptr<::gloo::transport::Device>
  createDeviceForHostname(const std::string &Hostname);
  static std::shared_ptr<::gloo::transport::Device> createDefaultDevice();
  ProcessGroupGloo(const c10::intrusive_ptr<Store> &Store, int Rank, int Size,
                   c10::intrusive_ptr<Options> Options = Options::create());
};
} // namespace c10d
