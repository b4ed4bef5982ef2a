#pragma once

// The file work of checkpoints: reading whole files and byte ranges (a
// short file is an error naming the entry), and writing durably (fsync) and
// atomically (written aside, renamed into place).

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <meshguard/runtime/Checkpoint.h>

namespace meshguard {
namespace checkpoint {

std::string join(const std::string& dir, const std::string& file);

std::string read_file(const std::string& path);

// `length` bytes at `offset` of `path`, for entry `entry`.
std::vector<char> read_range(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry);

// The same, into `dst` (`length` bytes of room).
void read_range_into(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry,
    void* dst);

// The torch.save archive at that range, unpickled (a chunk's tensor, an
// object); one that does not read is an error naming file and entry.
c10::IValue read_item(
    const std::string& path,
    uint64_t offset,
    uint64_t length,
    const std::string& entry);

// Chunk `chunk` of entry `entry` (dtype `dtype`) of the checkpoint in
// `dir`, read whatever its encoding, as a tensor of the chunk's sizes; bytes
// that do not make one are an error naming file and entry.
at::Tensor read_chunk(
    const std::string& dir,
    const std::string& entry,
    at::ScalarType dtype,
    const Chunk& chunk);

// Appends to a new file (truncated on open); sync() flushes it to disk.
class FileWriter {
 public:
  explicit FileWriter(const std::string& path);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Returns the offset the bytes start at.
  uint64_t write(const char* data, size_t size);
  // Bytes written so far.
  uint64_t size() const {
    return size_;
  }
  void sync_and_close();

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Writes `bytes` to `dir`/`name` through a temporary file renamed into
// place, both synced: readers see the old file or the new one, whole.
void publish_file(
    const std::string& dir,
    const std::string& name,
    const std::string& bytes);

} // namespace checkpoint
} // namespace meshguard
