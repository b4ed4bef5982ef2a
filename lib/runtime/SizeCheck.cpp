#include "SizeCheck.h"

#include <cstdlib>
#include <sstream>
#include <string>

#include <ATen/ATen.h>

#include <meshguard/runtime/Errors.h>

#include "compat/TorchCompat.h"

namespace meshguard {
namespace detail {

namespace {

// What one rank passes, as int64s of a fixed count (so the exchange itself
// can never mismatch): count, elements, bytes, the first dtype, and a hash
// of every tensor's (elements, dtype) in order.
enum Field { kCount, kNumel, kBytes, kFirstType, kSignature, kFields };

bool enabled() {
  static const bool on = [] {
    const char* env = std::getenv("MESHGUARD_CHECK_SIZES");
    return env != nullptr && *env != '\0' && std::string(env) != "0";
  }();
  return on;
}

at::Tensor header_of(const std::vector<at::Tensor>& tensors) {
  at::Tensor header = at::zeros({kFields}, at::kLong);
  auto h = header.accessor<int64_t, 1>();
  uint64_t signature = 1469598103934665603ull; // FNV-1a
  auto mix = [&](uint64_t v) {
    signature = (signature ^ v) * 1099511628211ull;
  };
  h[kCount] = static_cast<int64_t>(tensors.size());
  h[kFirstType] = tensors.empty()
      ? -1
      : static_cast<int64_t>(tensors.front().scalar_type());
  for (const auto& t : tensors) {
    h[kNumel] += t.numel();
    h[kBytes] += static_cast<int64_t>(t.nbytes());
    mix(static_cast<uint64_t>(t.numel()));
    mix(static_cast<uint64_t>(t.scalar_type()));
  }
  h[kSignature] = static_cast<int64_t>(signature);
  return header;
}

std::string describe(const at::TensorAccessor<int64_t, 1>& h) {
  std::ostringstream os;
  if (h[kCount] != 1) {
    os << h[kCount] << " tensors, ";
  }
  os << h[kNumel] << " elements";
  if (h[kFirstType] >= 0) {
    os << " of " << c10::toString(static_cast<c10::ScalarType>(h[kFirstType]));
  }
  os << " (" << h[kBytes] << " bytes)";
  return os.str();
}

} // namespace

void check_same_sizes(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& tensors,
    const char* op,
    std::chrono::milliseconds timeout) {
  const int64_t k = pg->getSize();
  if (k == 1 || !enabled() || (!tensors.empty() && tensors.front().is_cuda())) {
    return;
  }
  at::Tensor mine = header_of(tensors);
  std::vector<at::Tensor> all;
  all.reserve(k);
  for (int64_t j = 0; j < k; ++j) {
    all.push_back(at::empty_like(mine));
  }
  compat::all_gather_unchecked(pg, all, mine, timeout);
  bool same = true;
  for (int64_t j = 1; j < k && same; ++j) {
    same = at::equal(all[j], all[0]);
  }
  if (same) {
    return;
  }
  std::ostringstream os;
  os << op
     << ": the ranks of the group passed tensors that do not match, so the collective was not run: ";
  for (int64_t j = 0; j < k; ++j) {
    os << (j > 0 ? "; " : "") << "group rank " << j
       << (j == pg->getRank() ? " (this rank)" : "") << ": "
       << describe(all[j].accessor<int64_t, 1>());
  }
  bool sizes_equal = true;
  for (int64_t j = 1; j < k; ++j) {
    sizes_equal = sizes_equal &&
        at::equal(all[j].narrow(0, 0, kBytes + 1),
                  all[0].narrow(0, 0, kBytes + 1));
  }
  os << (sizes_equal
             ? ". How the elements split into tensors, or their types, differ"
             : ". The sizes differ")
     << " across ranks; every rank must pass the same shapes and dtypes to a collective.";
  throw CollectiveMismatchError(os.str());
}

} // namespace detail
} // namespace meshguard
