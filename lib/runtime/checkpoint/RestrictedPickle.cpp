#include "checkpoint/RestrictedPickle.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <c10/util/Exception.h>

namespace meshguard {
namespace checkpoint {

namespace {

class Reader {
 public:
  Reader(const std::string& data, const std::string& what, PickleKind kind)
      : data_(data),
        what_(what),
        kind_(kind) {}

  PyRef run() {
    while (true) {
      const uint8_t op = byte();
      if (op == '.') {
        TORCH_CHECK(
            stack_.size() == 1 && marks_.empty(),
            what_,
            ": malformed pickle (STOP with ",
            stack_.size(),
            " values on the stack)");
        return stack_.back();
      }
      step(op);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    TORCH_CHECK(false, what_, ": ", why, " (at byte ", pos_, ")");
  }

  uint8_t byte() {
    if (pos_ >= data_.size()) {
      fail("truncated pickle");
    }
    return static_cast<uint8_t>(data_[pos_++]);
  }

  std::string bytes(uint64_t n) {
    if (n > data_.size() - pos_) {
      fail("truncated pickle (a length of " + std::to_string(n) + ")");
    }
    std::string out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  // Little-endian unsigned of `n` bytes.
  uint64_t le(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      v |= static_cast<uint64_t>(byte()) << (8 * i);
    }
    return v;
  }

  std::string line() {
    const size_t end = data_.find('\n', pos_);
    if (end == std::string::npos) {
      fail("truncated pickle (a GLOBAL without its newline)");
    }
    std::string out = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }

  static PyRef make(PyValue::Kind kind) {
    auto v = std::make_shared<PyValue>();
    v->kind = kind;
    return v;
  }

  void push(PyRef v) {
    stack_.push_back(std::move(v));
  }

  PyRef pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) {
      fail("malformed pickle (a value popped from an empty stack)");
    }
    PyRef v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }

  PyRef& top() {
    if (stack_.empty()) {
      fail("malformed pickle (empty stack)");
    }
    return stack_.back();
  }

  // The values above the last MARK, which is removed.
  std::vector<PyRef> pop_mark() {
    if (marks_.empty()) {
      fail("malformed pickle (no MARK)");
    }
    const size_t at = marks_.back();
    marks_.pop_back();
    std::vector<PyRef> out(
        stack_.begin() + static_cast<std::ptrdiff_t>(at), stack_.end());
    stack_.resize(at);
    return out;
  }

  PyRef tuple(std::vector<PyRef> items) {
    PyRef t = make(PyValue::Kind::kTuple);
    t->items = std::move(items);
    return t;
  }

  PyRef global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    if (!allowed_global(full, kind_)) {
      fail(
          "the pickle names '" + full + "', which " +
          (kind_ == PickleKind::kMetadata
               ? "a checkpoint's metadata may not (only DCP's metadata "
                 "classes, torch.Size, dtypes and layouts are read"
               : "a checkpoint's tensor may not (only _rebuild_tensor_v2 "
                 "of a storage is read") +
          "; nothing is executed)");
    }
    PyRef g = make(PyValue::Kind::kGlobal);
    g->text = full;
    return g;
  }

  PyRef call(const PyRef& callable, const PyRef& args) {
    if (!callable->is(PyValue::Kind::kGlobal) ||
        !args->is(PyValue::Kind::kTuple)) {
      fail(
          "malformed pickle (a call of a " + kind_name(*callable) + " with " +
          kind_name(*args) + ")");
    }
    PyRef o = make(PyValue::Kind::kObject);
    o->text = callable->text;
    o->items = args->items;
    return o;
  }

  void setitems(const PyRef& dict, std::vector<PyRef>& kv) {
    if (!dict->is(PyValue::Kind::kDict) || kv.size() % 2 != 0) {
      fail("malformed pickle (SETITEMS on a " + kind_name(*dict) + ")");
    }
    for (size_t i = 0; i < kv.size(); i += 2) {
      dict->entries.emplace_back(kv[i], kv[i + 1]);
    }
  }

  void append(const PyRef& list, std::vector<PyRef>& items) {
    if (!list->is(PyValue::Kind::kList) && !list->is(PyValue::Kind::kSet)) {
      fail("malformed pickle (APPENDS on a " + kind_name(*list) + ")");
    }
    list->items.insert(list->items.end(), items.begin(), items.end());
  }

  void memo_put(uint64_t key) {
    memo_[key] = top();
  }

  PyRef memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      fail("malformed pickle (memo " + std::to_string(key) + " unset)");
    }
    return it->second;
  }

  PyRef integer(int64_t v) {
    PyRef i = make(PyValue::Kind::kInt);
    i->integer = v;
    return i;
  }

  PyRef long_integer(uint64_t n) {
    if (n > 8) {
      fail("an integer of " + std::to_string(n) + " bytes (more than 64 bits)");
    }
    const std::string b = bytes(n);
    uint64_t v = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
    }
    if (n > 0 && n < 8 && (static_cast<uint8_t>(b.back()) & 0x80) != 0) {
      v |= ~uint64_t{0} << (8 * n); // sign-extend
    }
    return integer(static_cast<int64_t>(v));
  }

  PyRef text(PyValue::Kind kind, uint64_t n) {
    PyRef s = make(kind);
    s->text = bytes(n);
    return s;
  }

  void step(uint8_t op) {
    using K = PyValue::Kind;
    switch (op) {
      case 0x80: { // PROTO
        const uint8_t proto = byte();
        if (proto < 2 || proto > 5) {
          fail(
              "pickle protocol " + std::to_string(proto) +
              " (2 to 5 are read)");
        }
        return;
      }
      case 0x95: // FRAME: a length hint
        le(8);
        return;
      case '(':
        marks_.push_back(stack_.size());
        return;
      case '0':
        pop();
        return;
      case '1':
        pop_mark();
        return;
      case '2':
        push(top());
        return;
      case 'N':
        return push(make(K::kNone));
      case 0x88:
      case 0x89: {
        PyRef b = make(K::kBool);
        b->boolean = op == 0x88;
        return push(b);
      }
      case 'J':
        return push(integer(static_cast<int32_t>(le(4))));
      case 'K':
        return push(integer(static_cast<int64_t>(le(1))));
      case 'M':
        return push(integer(static_cast<int64_t>(le(2))));
      case 0x8a:
        return push(long_integer(le(1)));
      case 0x8b:
        return push(long_integer(le(4)));
      case 'G': {
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) {
          bits = (bits << 8) | byte(); // big-endian
        }
        PyRef f = make(K::kFloat);
        std::memcpy(&f->real, &bits, sizeof bits);
        return push(f);
      }
      case 'X':
        return push(text(K::kStr, le(4)));
      case 0x8c:
        return push(text(K::kStr, le(1)));
      case 0x8d:
        return push(text(K::kStr, le(8)));
      case 'B':
        return push(text(K::kBytes, le(4)));
      case 'C':
        return push(text(K::kBytes, le(1)));
      case 0x8e:
      case 0x96:
        return push(text(K::kBytes, le(8)));
      case ')':
        return push(tuple({}));
      case 't':
        return push(tuple(pop_mark()));
      case 0x85:
      case 0x86:
      case 0x87: {
        std::vector<PyRef> items(op - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) {
          *it = pop();
        }
        return push(tuple(std::move(items)));
      }
      case ']':
        return push(make(K::kList));
      case 'l': {
        PyRef l = make(K::kList);
        l->items = pop_mark();
        return push(l);
      }
      case 'a': {
        std::vector<PyRef> one{pop()};
        append(top(), one);
        return;
      }
      case 'e': {
        std::vector<PyRef> items = pop_mark();
        append(top(), items);
        return;
      }
      case '}':
        return push(make(K::kDict));
      case 'd': {
        std::vector<PyRef> kv = pop_mark();
        PyRef d = make(K::kDict);
        setitems(d, kv);
        return push(d);
      }
      case 's': {
        std::vector<PyRef> kv(2);
        kv[1] = pop();
        kv[0] = pop();
        setitems(top(), kv);
        return;
      }
      case 'u': {
        std::vector<PyRef> kv = pop_mark();
        setitems(top(), kv);
        return;
      }
      case 0x8f:
        return push(make(K::kSet));
      case 0x90: {
        std::vector<PyRef> items = pop_mark();
        append(top(), items);
        return;
      }
      case 0x91: {
        PyRef s = make(K::kSet);
        s->items = pop_mark();
        return push(s);
      }
      case 'q':
        return memo_put(le(1));
      case 'r':
        return memo_put(le(4));
      case 0x94:
        return memo_put(memo_.size());
      case 'h':
        return push(memo_get(le(1)));
      case 'j':
        return push(memo_get(le(4)));
      case 'c': {
        const std::string module = line();
        return push(global(module, line()));
      }
      case 0x93: {
        PyRef name = pop();
        PyRef module = pop();
        if (!module->is(K::kStr) || !name->is(K::kStr)) {
          fail("malformed pickle (STACK_GLOBAL of non-strings)");
        }
        return push(global(module->text, name->text));
      }
      case 'R':
      case 0x81: {
        PyRef args = pop();
        PyRef callable = pop();
        return push(call(callable, args));
      }
      case 0x92: { // NEWOBJ_EX: cls, args, kwargs
        PyRef kwargs = pop();
        PyRef args = pop();
        PyRef callable = pop();
        PyRef o = call(callable, args);
        o->state = kwargs;
        return push(o);
      }
      case 'Q': { // BINPERSID: a torch.save archive's storage reference
        if (kind_ != PickleKind::kTensorArchive) {
          fail("pickle opcode 0x51 (a persistent id) has no place here");
        }
        PyRef o = make(PyValue::Kind::kObject);
        o->text = "persistent_load";
        o->items.push_back(pop());
        return push(o);
      }
      case 'b': {
        PyRef state = pop();
        PyRef& target = top();
        if (!target->is(K::kObject)) {
          fail("malformed pickle (BUILD on a " + kind_name(*target) + ")");
        }
        target->state = std::move(state);
        return;
      }
      default: {
        std::array<char, 8> hex{};
        std::snprintf(hex.data(), hex.size(), "0x%02x", op);
        fail(
            std::string("pickle opcode ") + hex.data() +
            " is not read (persistent ids, extensions and protocol 0/1 "
            "text opcodes have no place in a checkpoint's metadata)");
      }
    }
  }

  const std::string& data_;
  const std::string& what_;
  const PickleKind kind_;
  size_t pos_ = 0;
  std::vector<PyRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PyRef> memo_;
};

} // namespace

PyRef read_pickle(
    const std::string& data,
    const std::string& what,
    PickleKind kind) {
  return Reader(data, what, kind).run();
}

std::string kind_name(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::kNone:
      return "None";
    case PyValue::Kind::kBool:
      return "bool";
    case PyValue::Kind::kInt:
      return "int";
    case PyValue::Kind::kFloat:
      return "float";
    case PyValue::Kind::kStr:
      return "str";
    case PyValue::Kind::kBytes:
      return "bytes";
    case PyValue::Kind::kList:
      return "list";
    case PyValue::Kind::kTuple:
      return "tuple";
    case PyValue::Kind::kDict:
      return "dict";
    case PyValue::Kind::kSet:
      return "set";
    case PyValue::Kind::kGlobal:
      return "global " + v.text;
    case PyValue::Kind::kObject:
      return v.text + " object";
  }
  return "value";
}

} // namespace checkpoint
} // namespace meshguard
