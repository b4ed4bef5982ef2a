#pragma once

// Writes a pickle (protocol 2) opcode by opcode: enough for DCP's metadata
// objects (instances of named classes with a state, torch.Size, dtypes),
// which Python's pickle.load, and so dcp.load, reads back.

#include <cstdint>
#include <string>

namespace meshguard {
namespace checkpoint {

class PickleWriter {
 public:
  PickleWriter();

  void none();
  void boolean(bool v);
  void integer(int64_t v);
  void str(const std::string& s);
  // The named class or function (module, qualified name).
  void global(const std::string& module, const std::string& name);
  // Containers: begin with mark() (or empty_dict/empty_list), add the
  // items, then close with the matching call.
  void mark();
  void tuple(); // MARK ... -> tuple
  void empty_list();
  void appends(); // list MARK items -> list
  void empty_dict();
  void setitems(); // dict MARK k v ... -> dict
  // Calls: `global` then the argument tuple, then reduce() (a function) or
  // newobj() (a class; its state follows, then build()).
  void reduce();
  void newobj();
  void build();
  // The finished pickle.
  std::string finish();

 private:
  std::string out_;
};

} // namespace checkpoint
} // namespace meshguard
