// meshguard-checkpoint: looks into a DCP checkpoint (PyTorch's or
// meshguard's) before a job is launched on it.
//
//   meshguard-checkpoint info DIR     every entry: dtype, global shape, its
//                                     chunks and where their bytes are
//   meshguard-checkpoint verify DIR   bounds, overlap, coverage, every chunk
//                                     read back; exit 1 naming the file and
//                                     entry of the first problem
// Docs: docs/runtime/checkpoint.md.

#include <iostream>
#include <string>

#include <c10/util/Exception.h>

#include <meshguard/runtime/Checkpoint.h>

namespace {

std::string shape_str(const std::vector<int64_t> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(v[i]);
  }
  return out + "]";
}

void info(const std::string &dir) {
  const auto ck = meshguard::checkpoint::read_info(dir);
  for (const auto &[name, e] : ck.tensors) {
    std::cout << name << "  " << c10::toString(e.dtype) << " "
              << shape_str(e.shape) << ", " << e.chunks.size() << " chunk(s)\n";
    for (const auto &c : e.chunks) {
      std::cout << "    at " << shape_str(c.offsets) << " size "
                << shape_str(c.sizes) << ": " << c.file << " bytes " << c.offset
                << ".." << c.offset + c.length << "\n";
    }
  }
  for (const auto &[name, o] : ck.objects) {
    std::cout << name << "  object: " << o.file << " bytes " << o.offset << ".."
              << o.offset + o.length << "\n";
  }
}

int usage() {
  std::cerr << "usage: meshguard-checkpoint info DIR | verify DIR\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    return usage();
  }
  const std::string command = argv[1];
  const std::string dir = argv[2];
  try {
    if (command == "info") {
      info(dir);
    } else if (command == "verify") {
      std::cout << meshguard::checkpoint::verify(dir,
                                                 [](const std::string &entry) {
                                                   std::cerr << "verified "
                                                             << entry << "\n";
                                                 })
                << "\n";
    } else {
      return usage();
    }
  } catch (const c10::Error &e) {
    std::cerr << "meshguard-checkpoint: " << e.what_without_backtrace() << "\n";
    return 1;
  }
  return 0;
}
