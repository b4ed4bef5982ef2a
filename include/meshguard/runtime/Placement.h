#pragma once

// Placements say how a DTensor's global value is laid out over one mesh
// dimension, as in PyTorch's torch.distributed.tensor.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace meshguard {

// The reductions a Partial placement (and an all-reduce) can carry. Our own
// enum keeps the public API independent of c10d's ReduceOp, which changed
// between libtorch releases.
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };

const char* to_string(ReduceOp op);

// The tensor is split along `dim` with torch.chunk semantics: every rank but
// the last few holds ceil(n / k) elements, trailing ranks may hold fewer or
// none.
struct Shard {
  int64_t dim = 0;
};

// Every rank holds the whole tensor.
struct Replicate {};

// Every rank holds a partial value; the global value is their reduction.
struct Partial {
  ReduceOp reduce_op = ReduceOp::SUM;
};

using Placement = std::variant<Shard, Replicate, Partial>;
using Placements = std::vector<Placement>;

bool operator==(const Shard& a, const Shard& b);
bool operator==(const Replicate& a, const Replicate& b);
bool operator==(const Partial& a, const Partial& b);
bool operator!=(const Shard& a, const Shard& b);
bool operator!=(const Replicate& a, const Replicate& b);
bool operator!=(const Partial& a, const Partial& b);

bool is_shard(const Placement& p);
bool is_shard(const Placement& p, int64_t dim);
bool is_replicate(const Placement& p);
bool is_partial(const Placement& p);

// "Shard(dim=0)", "Replicate()", "Partial(sum)": PyTorch's spelling.
std::string to_string(const Placement& p);
// "[Shard(dim=0), Replicate()]"
std::string to_string(const Placements& ps);

} // namespace meshguard
