#pragma once

// The pointwise ops (PointwiseOps.cpp) and how a Partial operand may pass
// through each unreduced: data for PointwiseRules.cpp's one rule.

#include <string>
#include <unordered_map>

namespace meshguard {
namespace ops {

// How a Partial operand may pass through the op unreduced.
enum class PartialRule {
  kNone, // not linear: reduce first
  kAllSame, // every operand Partial of the same op: a + b, copies
  kAllSameSum, // the same, but only for sum/avg (negation, sums)
  kOneScaled, // one operand Partial(sum/avg), the others Replicate: a * r
  kSelfScaled, // the dividend only: a / r
  kZeroFill, // masked_fill(a, mask, 0): zeros sum to zero (norm's backward)
};

// By name without overload ("add", "sigmoid_backward"); in-place names are
// looked up by their functional name.
const std::unordered_map<std::string, PartialRule>& pointwise_ops();

} // namespace ops
} // namespace meshguard
