#include "checkpoint/Json.h"

#include <unordered_set>

#include <c10/util/Exception.h>

namespace meshguard {
namespace checkpoint {

namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::string& what, JsonLimits limits)
      : s_(text),
        what_(what),
        limits_(limits) {}

  JsonValue run() {
    JsonValue v = value(0);
    skip_space();
    check(pos_ == s_.size(), "text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    TORCH_CHECK(false, what_, ": malformed JSON at byte ", pos_, ": ", why);
  }
  void check(bool ok, const char* why) const {
    if (!ok) {
      fail(why);
    }
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
            s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  char peek() {
    check(pos_ < s_.size(), "unexpected end");
    return s_[pos_];
  }

  void expect_word(const char* word) {
    for (const char* c = word; *c != '\0'; ++c) {
      check(pos_ < s_.size() && s_[pos_] == *c, "not a JSON value");
      ++pos_;
    }
  }

  JsonValue value(size_t depth) {
    check(depth < limits_.max_depth, "nested too deeply");
    check(++values_ <= limits_.max_values, "too many values");
    skip_space();
    JsonValue v;
    const char c = peek();
    if (c == '{') {
      v.kind = JsonValue::Kind::kObject;
      object(v, depth);
    } else if (c == '[') {
      v.kind = JsonValue::Kind::kArray;
      array(v, depth);
    } else if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      v.text = string();
    } else if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = c == 't';
      expect_word(v.boolean ? "true" : "false");
    } else if (c == 'n') {
      expect_word("null");
    } else {
      v.kind = JsonValue::Kind::kNumber;
      number(v);
    }
    return v;
  }

  void object(JsonValue& v, size_t depth) {
    ++pos_;
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    std::unordered_set<std::string> keys;
    while (true) {
      skip_space();
      check(peek() == '"', "an object key is not a string");
      std::string key = string();
      // Two values for one key: which would a reader take? Refused.
      check(keys.insert(key).second, "a duplicate object key");
      skip_space();
      check(peek() == ':', "':' expected");
      ++pos_;
      v.members.emplace_back(std::move(key), value(depth + 1));
      skip_space();
      const char c = peek();
      ++pos_;
      if (c == '}') {
        return;
      }
      check(c == ',', "',' or '}' expected");
    }
  }

  void array(JsonValue& v, size_t depth) {
    ++pos_;
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      v.items.push_back(value(depth + 1));
      skip_space();
      const char c = peek();
      ++pos_;
      if (c == ']') {
        return;
      }
      check(c == ',', "',' or ']' expected");
    }
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      ++pos_;
      u <<= 4;
      if (c >= '0' && c <= '9') {
        u |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        u |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        u |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("a bad \\u escape");
      }
    }
    return u;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++pos_;
    std::string out;
    while (true) {
      const char c = peek();
      ++pos_;
      if (c == '"') {
        return out;
      }
      check(
          static_cast<unsigned char>(c) >= 0x20,
          "a control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            check(
                pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u',
                "a lone surrogate");
            pos_ += 2;
            const unsigned low = hex4();
            check(low >= 0xDC00 && low < 0xE000, "a lone surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else {
            check(cp < 0xDC00 || cp >= 0xE000, "a lone surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail("a bad escape");
      }
    }
  }

  bool digit() const {
    return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9';
  }

  void number(JsonValue& v) {
    if (s_[pos_] == '-') {
      v.negative = true;
      ++pos_;
    }
    check(digit(), "not a JSON value");
    const bool leading_zero = s_[pos_] == '0';
    bool fits = true;
    size_t digits = 0;
    while (digit()) {
      const auto d = static_cast<uint64_t>(s_[pos_] - '0');
      fits = fits && v.magnitude <= (UINT64_MAX - d) / 10;
      v.magnitude = fits ? v.magnitude * 10 + d : 0;
      ++pos_;
      ++digits;
    }
    check(!(leading_zero && digits > 1), "a number with a leading zero");
    bool whole = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      check(digit(), "a bad number");
      while (digit()) {
        ++pos_;
      }
      whole = false;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        ++pos_;
      }
      check(digit(), "a bad number");
      while (digit()) {
        ++pos_;
      }
      whole = false;
    }
    v.integer = whole && fits;
  }

  const std::string& s_;
  const std::string& what_;
  JsonLimits limits_;
  size_t pos_ = 0;
  size_t values_ = 0;
};

} // namespace

const JsonValue* JsonValue::find(const std::string& key) const {
  for (const auto& [k, v] : members) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

JsonValue parse_json(
    const std::string& text,
    const std::string& what,
    const JsonLimits& limits) {
  return Parser(text, what, limits).run();
}

std::string json_quote(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

} // namespace checkpoint
} // namespace meshguard
