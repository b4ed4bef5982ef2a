#include <meshguard/runtime/Placement.h>

namespace meshguard {

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return "sum";
    case ReduceOp::AVG:
      return "avg";
    case ReduceOp::PRODUCT:
      return "product";
    case ReduceOp::MIN:
      return "min";
    case ReduceOp::MAX:
      return "max";
  }
  return "?";
}

bool operator==(const Shard& a, const Shard& b) {
  return a.dim == b.dim;
}
bool operator==(const Replicate&, const Replicate&) {
  return true;
}
bool operator==(const Partial& a, const Partial& b) {
  return a.reduce_op == b.reduce_op;
}
bool operator!=(const Shard& a, const Shard& b) {
  return !(a == b);
}
bool operator!=(const Replicate& a, const Replicate& b) {
  return !(a == b);
}
bool operator!=(const Partial& a, const Partial& b) {
  return !(a == b);
}

bool is_shard(const Placement& p) {
  return std::holds_alternative<Shard>(p);
}
bool is_shard(const Placement& p, int64_t dim) {
  return is_shard(p) && std::get<Shard>(p).dim == dim;
}
bool is_replicate(const Placement& p) {
  return std::holds_alternative<Replicate>(p);
}
bool is_partial(const Placement& p) {
  return std::holds_alternative<Partial>(p);
}

std::string to_string(const Placement& p) {
  if (auto* s = std::get_if<Shard>(&p)) {
    return "Shard(dim=" + std::to_string(s->dim) + ")";
  }
  if (auto* q = std::get_if<Partial>(&p)) {
    return std::string("Partial(") + to_string(q->reduce_op) + ")";
  }
  return "Replicate()";
}

std::string to_string(const Placements& ps) {
  std::string out = "[";
  for (size_t i = 0; i < ps.size(); ++i) {
    out += (i ? ", " : "") + to_string(ps[i]);
  }
  return out + "]";
}

} // namespace meshguard
