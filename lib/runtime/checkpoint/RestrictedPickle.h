#pragma once

// A restricted pickle reader for the metadata of PyTorch's Distributed
// Checkpoint (.metadata, pickled by Python's pickle, protocols 2-5).
// libtorch's own unpickler reads protocol 2 and no Python classes. This one
// builds a tree of plain values and never runs anything: a class or function
// is only a name, and a name outside the allow-list (the DCP metadata
// classes, torch.Size, dtypes, layouts; for a chunk's torch.save archive,
// the tensor rebuild and its storage classes) is an error, as is every
// opcode it does not know. What the names mean is DcpMetadata.cpp's business.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace meshguard {
namespace checkpoint {

struct PyValue;
using PyRef = std::shared_ptr<PyValue>;

struct PyValue {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kBytes,
    kList,
    kTuple,
    kDict,
    kSet,
    kGlobal, // a class or function, by name: "module.qualname"
    kObject, // a call of a global (REDUCE, NEWOBJ), then its BUILD state
  };
  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  std::string text; // kStr, kBytes, kGlobal's name, kObject's class
  std::vector<PyRef> items; // kList, kTuple, kSet; kObject: its arguments
  std::vector<std::pair<PyRef, PyRef>> entries; // kDict, in order
  PyRef state; // kObject: what BUILD gave (a dict, or a tuple)

  bool is(Kind k) const {
    return kind == k;
  }
};

// What a pickle may hold: DCP's .metadata, or the data.pkl of a
// torch.save archive of one tensor (_rebuild_tensor_v2 of a storage named
// by a persistent id, read as a kObject "persistent_load").
enum class PickleKind { kMetadata, kTensorArchive };

// Globals a pickle of `kind` may name ("module.qualname";
// PickleAllowList.cpp).
bool allowed_global(const std::string& name, PickleKind kind);

// Reads one pickle. `what` names the input in errors (the file). Throws
// c10::Error on a malformed, truncated or disallowed pickle.
PyRef read_pickle(
    const std::string& data,
    const std::string& what,
    PickleKind kind = PickleKind::kMetadata);

// A readable name of a value's kind, for errors ("dict", "int", ...).
std::string kind_name(const PyValue& v);

} // namespace checkpoint
} // namespace meshguard
