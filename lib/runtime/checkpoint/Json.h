#pragma once

// A small, strict JSON reader for the headers of safetensors files and their
// index (model.safetensors.index.json): RFC 8259 values into a tree, with
// limits on nesting depth and size so that a hostile header costs bounded
// time and memory; and the string quoting the writers need. Numbers keep
// only what headers use: integers (shapes, offsets) are exact, others are
// marked as not integers.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace meshguard {
namespace checkpoint {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  // A number: exact when `integer` (no fraction, no exponent) and it fits.
  bool integer = false;
  bool negative = false;
  uint64_t magnitude = 0;
  std::string text; // a string's value
  std::vector<JsonValue> items; // an array's
  std::vector<std::pair<std::string, JsonValue>> members; // in file order

  bool is(Kind k) const {
    return kind == k;
  }
  // The member named `key`, or nullptr.
  const JsonValue* find(const std::string& key) const;
};

struct JsonLimits {
  size_t max_depth = 16;
  size_t max_values = 1 << 22;
};

// Parses `text` (one value, surrounded by whitespace only). A syntax error,
// a duplicate object key, or a limit exceeded is a c10::Error naming `what`
// and the byte offset.
JsonValue parse_json(
    const std::string& text,
    const std::string& what,
    const JsonLimits& limits = {});

// `s` as a JSON string literal (quoted, escaped).
std::string json_quote(const std::string& s);

} // namespace checkpoint
} // namespace meshguard
