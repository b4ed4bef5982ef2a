#include "checkpoint/PickleWriter.h"

#include <limits>

namespace meshguard {
namespace checkpoint {

namespace {

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

} // namespace

PickleWriter::PickleWriter() {
  out_ += "\x80\x02"; // PROTO 2
}

void PickleWriter::none() {
  out_.push_back('N');
}

void PickleWriter::boolean(bool v) {
  out_.push_back(static_cast<char>(v ? 0x88 : 0x89));
}

void PickleWriter::integer(int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() &&
      v <= std::numeric_limits<int32_t>::max()) {
    out_.push_back('J'); // BININT
    put_le(out_, static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
    return;
  }
  out_.push_back(static_cast<char>(0x8a)); // LONG1, 8 bytes two's complement
  out_.push_back(8);
  put_le(out_, static_cast<uint64_t>(v), 8);
}

void PickleWriter::str(const std::string& s) {
  out_.push_back('X'); // BINUNICODE (the caller's bytes are UTF-8)
  put_le(out_, s.size(), 4);
  out_ += s;
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  out_ += "c" + module + "\n" + name + "\n";
}

void PickleWriter::mark() {
  out_.push_back('(');
}

void PickleWriter::tuple() {
  out_.push_back('t');
}

void PickleWriter::empty_list() {
  out_.push_back(']');
}

void PickleWriter::appends() {
  out_.push_back('e');
}

void PickleWriter::empty_dict() {
  out_.push_back('}');
}

void PickleWriter::setitems() {
  out_.push_back('u');
}

void PickleWriter::reduce() {
  out_.push_back('R');
}

void PickleWriter::newobj() {
  out_.push_back(static_cast<char>(0x81));
}

void PickleWriter::build() {
  out_.push_back('b');
}

std::string PickleWriter::finish() {
  out_.push_back('.');
  return std::move(out_);
}

} // namespace checkpoint
} // namespace meshguard
