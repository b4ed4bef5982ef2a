#include "checkpoint/Files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <c10/util/Exception.h>
#include <torch/csrc/jit/serialization/pickle.h>

namespace meshguard {
namespace checkpoint {

namespace {

std::string os_error() {
  return std::strerror(errno);
}

void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

std::string join(const std::string& dir, const std::string& file) {
  return dir.empty() || dir.back() == '/' ? dir + file : dir + "/" + file;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in.good(), path, ": cannot be opened (no checkpoint there?)");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void read_range_into(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry,
    void* dst) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  TORCH_CHECK(in.good(), path, ": cannot be opened (entry '", entry, "')");
  const auto size = static_cast<uint64_t>(in.tellg());
  TORCH_CHECK(
      offset <= size && length <= size - offset,
      path,
      ": truncated: entry '",
      entry,
      "' needs bytes ",
      offset,
      "..",
      offset + length,
      ", the file has ",
      size);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(length));
  TORCH_CHECK(in.good(), path, ": read failed (entry '", entry, "')");
}

std::vector<char> read_range(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry) {
  std::vector<char> bytes(length);
  read_range_into(path, offset, length, entry, bytes.data());
  return bytes;
}

c10::IValue read_item(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry) {
  const std::vector<char> bytes = read_range(path, offset, length, entry);
  try {
    return torch::jit::pickle_load(bytes);
  } catch (const c10::Error& e) {
    TORCH_CHECK(
        false,
        path,
        ": entry '",
        entry,
        "' is not a readable torch.save archive: ",
        e.what_without_backtrace());
  }
}

at::Tensor read_chunk(
    const std::string& dir,
    const std::string& entry,
    at::ScalarType dtype,
    const Chunk& chunk) {
  const std::string path = join(dir, chunk.file);
  if (chunk.encoding == Encoding::kRaw) {
    at::Tensor t = at::empty(chunk.sizes, at::TensorOptions().dtype(dtype));
    TORCH_CHECK(
        t.nbytes() == chunk.length,
        path,
        ": entry '",
        entry,
        "' has a chunk of ",
        chunk.length,
        " bytes where its sizes ",
        c10::IntArrayRef(chunk.sizes),
        " of ",
        dtype,
        " need ",
        t.nbytes());
    read_range_into(path, chunk.offset, chunk.length, entry, t.data_ptr());
    return t;
  }
  const c10::IValue item = read_item(path, chunk.offset, chunk.length, entry);
  TORCH_CHECK(
      item.isTensor() &&
          item.toTensor().sizes() == c10::IntArrayRef(chunk.sizes),
      path,
      ": entry '",
      entry,
      "' holds a chunk of another shape than the metadata says (",
      c10::IntArrayRef(chunk.sizes),
      ")");
  return item.toTensor();
}

FileWriter::FileWriter(const std::string& path)
    : path_(path),
      fd_(::open(
          path.c_str(),
          O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
          0644)) {
  TORCH_CHECK(fd_ >= 0, path, ": cannot be created: ", os_error());
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

uint64_t FileWriter::write(const char* data, size_t size) {
  const uint64_t at = size_;
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    TORCH_CHECK(n > 0, path_, ": write failed: ", os_error());
    data += n;
    size -= static_cast<size_t>(n);
    size_ += static_cast<uint64_t>(n);
  }
  return at;
}

void FileWriter::sync_and_close() {
  TORCH_CHECK(::fsync(fd_) == 0, path_, ": fsync failed: ", os_error());
  const int fd = fd_;
  fd_ = -1;
  TORCH_CHECK(::close(fd) == 0, path_, ": close failed: ", os_error());
}

void publish_file(
    const std::string& dir,
    const std::string& name,
    const std::string& bytes) {
  const std::string aside = join(dir, name + ".tmp");
  FileWriter f(aside);
  f.write(bytes.data(), bytes.size());
  f.sync_and_close();
  std::error_code ec;
  std::filesystem::rename(aside, join(dir, name), ec);
  TORCH_CHECK(!ec, join(dir, name), ": cannot be put in place: ", ec.message());
  sync_directory(dir);
}

} // namespace checkpoint
} // namespace meshguard
