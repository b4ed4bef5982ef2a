#include "checkpoint/TensorArchive.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <utility>

#include <c10/util/accumulate.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include "checkpoint/RestrictedPickle.h"

namespace meshguard {
namespace checkpoint {

namespace {

// The archive's bytes, read from the file where they lie.
class FileRange : public caffe2::serialize::ReadAdapterInterface {
 public:
  FileRange(int fd, uint64_t base, uint64_t length)
      : fd_(fd),
        base_(base),
        length_(length) {}

  size_t size() const override {
    return length_;
  }

  size_t read(uint64_t pos, void* buf, size_t n, const char* what)
      const override {
    if (pos >= length_) {
      return 0;
    }
    n = static_cast<size_t>(std::min<uint64_t>(n, length_ - pos));
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(
          fd_,
          static_cast<char*>(buf) + done,
          n - done,
          static_cast<off_t>(base_ + pos + done));
      if (got <= 0) {
        break;
      }
      done += static_cast<size_t>(got);
    }
    return done;
  }

 private:
  int fd_;
  uint64_t base_;
  uint64_t length_;
};

std::optional<at::ScalarType> storage_dtype(const std::string& name) {
  static const std::array<std::pair<const char*, at::ScalarType>, 12>
      kStorages = {{
          {"torch.FloatStorage", at::kFloat},
          {"torch.DoubleStorage", at::kDouble},
          {"torch.HalfStorage", at::kHalf},
          {"torch.BFloat16Storage", at::kBFloat16},
          {"torch.LongStorage", at::kLong},
          {"torch.IntStorage", at::kInt},
          {"torch.ShortStorage", at::kShort},
          {"torch.CharStorage", at::kChar},
          {"torch.ByteStorage", at::kByte},
          {"torch.BoolStorage", at::kBool},
          {"torch.ComplexFloatStorage", at::kComplexFloat},
          {"torch.ComplexDoubleStorage", at::kComplexDouble},
      }};
  for (const auto& [n, t] : kStorages) {
    if (name == n) {
      return t;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ints(const PyValue& v) {
  if (!v.is(PyValue::Kind::kTuple)) {
    return std::nullopt;
  }
  std::vector<int64_t> out;
  for (const PyRef& i : v.items) {
    if (!i->is(PyValue::Kind::kInt) || i->integer < 0) {
      return std::nullopt;
    }
    out.push_back(i->integer);
  }
  return out;
}

// _rebuild_tensor_v2(persistent_load(("storage", <T>Storage, key, "cpu",
// numel)), storage_offset, sizes, strides, ...), contiguous.
std::optional<StoredTensor> describe(
    const PyValue& root,
    caffe2::serialize::PyTorchStreamReader& reader,
    uint64_t offset,
    uint64_t length) {
  using K = PyValue::Kind;
  if (!root.is(K::kObject) || root.text != "torch._utils._rebuild_tensor_v2") {
    return std::nullopt;
  }
  const auto& args = root.items;
  if (args.size() < 4 || !args[0]->is(K::kObject) ||
      args[0]->text != "persistent_load" || args[0]->items.size() != 1 ||
      !args[1]->is(K::kInt)) {
    return std::nullopt;
  }
  const PyValue& pid = *args[0]->items[0];
  if (!pid.is(K::kTuple) || pid.items.size() != 5 ||
      !pid.items[1]->is(K::kGlobal) || !pid.items[2]->is(K::kStr) ||
      !pid.items[3]->is(K::kStr) || pid.items[3]->text != "cpu" ||
      !pid.items[4]->is(K::kInt)) {
    return std::nullopt;
  }
  const auto dtype = storage_dtype(pid.items[1]->text);
  const auto sizes = ints(*args[2]);
  const auto strides = ints(*args[3]);
  if (!dtype || !sizes || !strides || sizes->size() != strides->size() ||
      args[1]->integer < 0) {
    return std::nullopt;
  }
  int64_t expected = 1;
  for (size_t d = sizes->size(); d-- > 0;) {
    if ((*sizes)[d] != 1 && (*strides)[d] != expected) {
      return std::nullopt; // not row-major contiguous
    }
    expected *= (*sizes)[d];
  }
  const uint64_t item = c10::elementSize(*dtype);
  const uint64_t numel = c10::multiply_integers(*sizes);
  const auto storage_numel = static_cast<uint64_t>(pid.items[4]->integer);
  const auto first = static_cast<uint64_t>(args[1]->integer);
  if (first + numel > storage_numel) {
    return std::nullopt;
  }
  const uint64_t record = reader.getRecordOffset("data/" + pid.items[2]->text);
  if (record + storage_numel * item > length) {
    return std::nullopt;
  }
  return StoredTensor{*dtype, offset + record + first * item, *sizes};
}

} // namespace

std::optional<StoredTensor>
locate_tensor(const std::string& path, uint64_t offset, uint64_t length) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return std::nullopt;
  }
  std::optional<StoredTensor> out;
  try {
    const off_t end = ::lseek(fd, 0, SEEK_END);
    if (end >= 0 && offset <= static_cast<uint64_t>(end) &&
        length <= static_cast<uint64_t>(end) - offset) {
      caffe2::serialize::PyTorchStreamReader reader(
          std::make_shared<FileRange>(fd, offset, length));
      const auto [data, size] = reader.getRecord("data.pkl");
      const std::string pickle(static_cast<const char*>(data.get()), size);
      const PyRef root = read_pickle(pickle, path, PickleKind::kTensorArchive);
      out = describe(*root, reader, offset, length);
    }
  } catch (const std::exception&) {
    out = std::nullopt; // the general path reports what is wrong
  }
  ::close(fd);
  return out;
}

} // namespace checkpoint
} // namespace meshguard
