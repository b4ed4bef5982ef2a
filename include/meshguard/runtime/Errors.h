#pragma once

// Exceptions thrown by the runtime. All derive from meshguard::Error so
// callers can catch the runtime's diagnoses apart from libtorch's.

#include <stdexcept>
#include <string>

namespace meshguard {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A mesh-inferred collective found no DeviceMesh on its arguments. what()
// starts with PyTorch's wording: "found no DeviceMesh from dtensor args for
// c10d.broadcast_.default", then explains every argument.
class MeshNotFoundError : public Error {
 public:
  using Error::Error;
};

// Arguments (or a guard and its arguments) live on different meshes.
class MeshMismatchError : public Error {
 public:
  using Error::Error;
};

// A placement, shape, dtype or device that the operation cannot accept.
class PlacementError : public Error {
 public:
  using Error::Error;
};

// A plain tensor was handed to a guard in strict mode, or a module still has
// plain parameters.
class NotDistributedError : public Error {
 public:
  using Error::Error;
};

// Replicas of a "Replicate" tensor differ across ranks.
class ReplicaMismatchError : public Error {
 public:
  using Error::Error;
};

// Ranks called one collective with tensors that do not match (a different
// number of elements); what() names the sizes where this rank can see them.
// In the collective-consistency mode also: ranks called different
// collectives, or from different lines; what() lists each rank's call.
class CollectiveMismatchError : public Error {
 public:
  using Error::Error;
};

// In the collective-consistency mode (DebugCollectives.h): a rank of the
// group did not reach a collective within the debug timeout; what() names
// it with its last collective, and what the other ranks called where.
class CollectiveTimeoutError : public Error {
 public:
  using Error::Error;
};

// Rendezvous problems: missing environment variables, bad mesh shapes.
class MeshInitError : public Error {
 public:
  using Error::Error;
};

} // namespace meshguard
