// The collective-consistency mode: a fingerprint exchange through the c10d
// Store before each collective (docs/runtime/debug-collectives.md).
//
// Unlike PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL (ProcessGroupWrapper, which
// runs an extra Gloo all-gather of op and shapes and can itself hang or
// mis-pair when ranks diverge), the exchange goes through the store with a
// bounded wait, so a rank that never arrives is named rather than waited
// for, and the fingerprint carries what the user called (full_tensor,
// redistribute, ...), where, and the placements.

#include "ConsistencyCheck.h"
#include "Internal.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <c10/util/Exception.h>

#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/DebugCollectives.h>
#include <meshguard/runtime/Errors.h>

namespace meshguard {
namespace detail {

bool env_flag(const char* name) {
  const char* env = std::getenv(name);
  return env != nullptr && *env != '\0' && std::string(env) != "0";
}

namespace {

thread_local const UserCallInfo* current_call = nullptr;

struct Channel {
  c10::intrusive_ptr<c10d::Store> store;
  std::vector<int64_t> ranks; // global, in group-rank order
  int64_t group_rank = 0;
  std::chrono::milliseconds timeout{0};
  std::mutex mu;
  int64_t seq = 0;
  // Each rank's fingerprint of the last collective that passed the check.
  std::vector<std::string> last;
};

std::mutex registry_mu;
std::map<const c10d::ProcessGroup*, std::shared_ptr<Channel>>& registry() {
  static auto* channels =
      new std::map<const c10d::ProcessGroup*, std::shared_ptr<Channel>>();
  return *channels;
}

std::shared_ptr<Channel> channel_of(const c10d::ProcessGroup& pg) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto it = registry().find(&pg);
  return it == registry().end() ? nullptr : it->second;
}

std::chrono::milliseconds debug_timeout(
    std::chrono::milliseconds mesh_timeout) {
  const char* env = std::getenv("MESHGUARD_DEBUG_TIMEOUT_S");
  if (env == nullptr || *env == '\0') {
    return mesh_timeout;
  }
  char* end = nullptr;
  const double s = std::strtod(env, &end);
  if (end == env || *end != '\0' || !(s > 0)) {
    throw MeshInitError(
        std::string(
            "MESHGUARD_DEBUG_TIMEOUT_S must be a positive number of seconds, got '") +
        env + "'");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

std::string shape_of(const at::Tensor& t) {
  std::ostringstream os;
  os << t.sizes() << " " << c10::toString(t.scalar_type());
  return os.str();
}

// What this rank is about to run. Equal strings on every rank are the
// condition to go ahead; the call site is part of it, because a skipped
// collective otherwise pairs silently with the next one of the same shape.
std::string fingerprint(
    const char* op,
    const std::vector<at::Tensor>& tensors,
    const std::string& args) {
  std::ostringstream os;
  const UserCallInfo* call = current_call;
  if (call != nullptr) {
    os << call->api;
    if (call->where.known()) {
      os << " at " << call->where.file << ":" << call->where.line;
    } else {
      os << " (call site unknown)";
    }
    if (!call->detail.empty()) {
      os << " [" << call->detail << "]";
    }
    os << " -> ";
  } else {
    os << "(no meshguard entry point recorded) -> ";
  }
  os << "c10d " << op << "(";
  for (size_t i = 0; i < tensors.size(); ++i) {
    os << (i > 0 ? ", " : "") << shape_of(tensors[i]);
  }
  os << (args.empty() ? "" : tensors.empty() ? "" : "; ") << args << ")";
  return os.str();
}

std::string key(int64_t seq, int64_t group_rank) {
  return std::to_string(seq) + "/" + std::to_string(group_rank);
}

std::string text(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::string group_name(const Channel& ch) {
  std::ostringstream os;
  os << "the group of global ranks [";
  for (size_t i = 0; i < ch.ranks.size(); ++i) {
    os << (i > 0 ? ", " : "") << ch.ranks[i];
  }
  os << "]";
  return os.str();
}

std::string rank_label(const Channel& ch, int64_t j) {
  return "rank " + std::to_string(ch.ranks[j]) +
      (j == ch.group_rank ? " (this rank)" : "");
}

[[noreturn]] void fail_mismatch(
    const Channel& ch,
    const std::vector<std::string>& fps) {
  std::ostringstream os;
  os << "collectives differ across ranks (MESHGUARD_DEBUG_COLLECTIVES): at collective #"
     << ch.seq << " of " << group_name(ch) << " the ranks called:\n";
  for (size_t j = 0; j < fps.size(); ++j) {
    os << "  " << rank_label(ch, static_cast<int64_t>(j)) << ": " << fps[j]
       << "\n";
  }
  os << "Every rank of a group must run the same collectives, in the same order, on tensors of the same shapes "
        "(a collective inside a rank-dependent branch such as `if (rank == 0)` is the usual cause; "
        "dtensor-rank-divergent-collective finds it statically). Nothing was sent; the group cannot be used after "
        "this error.";
  throw CollectiveMismatchError(os.str());
}

[[noreturn]] void
fail_missing(Channel& ch, const std::string& mine, const std::string& why) {
  std::ostringstream os;
  os << "collective #" << ch.seq << " of " << group_name(ch)
     << " did not start on every rank within "
     << std::chrono::duration<double>(ch.timeout).count()
     << " s (MESHGUARD_DEBUG_COLLECTIVES; MESHGUARD_DEBUG_TIMEOUT_S sets the wait):\n";
  for (size_t j = 0; j < ch.ranks.size(); ++j) {
    const auto jj = static_cast<int64_t>(j);
    os << "  " << rank_label(ch, jj) << ": ";
    if (jj == ch.group_rank) {
      os << mine << "\n";
      continue;
    }
    bool arrived = false;
    std::string theirs;
    try {
      arrived = ch.store->check({key(ch.seq, jj)});
      if (arrived) {
        theirs = text(ch.store->get(key(ch.seq, jj)));
      }
    } catch (const std::exception&) {
      arrived =
          false; // the store itself is gone (its server, global rank 0, ended)
    }
    if (arrived) {
      os << theirs << "\n";
    } else {
      os << "never arrived; its last collective on this group was "
         << (ch.seq > 1 && !ch.last[j].empty()
                 ? "#" + std::to_string(ch.seq - 1) + ": " + ch.last[j]
                 : std::string("none (this is the group's first)"))
         << "\n";
    }
  }
  os << "A rank that skipped a collective (it sits in a rank-dependent branch), ended early, or is stuck in other "
        "work is the usual cause."
     << why;
  throw CollectiveTimeoutError(os.str());
}

} // namespace

std::string describe_operands(const std::vector<at::Tensor>& tensors) {
  std::ostringstream os;
  for (size_t i = 0; i < tensors.size(); ++i) {
    os << (i > 0 ? "; " : "");
    const auto& t = tensors[i];
    if (!t.defined()) {
      os << "undefined";
    } else if (const auto* impl = get_dtensor_impl(t)) {
      const auto& spec = impl->spec();
      os << to_string(spec.placements) << ", global "
         << c10::IntArrayRef(spec.shape) << " "
         << c10::toString(t.scalar_type()) << " on " << spec.mesh.to_string();
    } else {
      os << "plain " << t.sizes() << " " << c10::toString(t.scalar_type());
    }
  }
  return os.str();
}

std::atomic<bool> debug_collectives_flag{
    env_flag("MESHGUARD_DEBUG_COLLECTIVES")};

const UserCallInfo* current_user_call() {
  return current_call;
}

void set_current_user_call(const UserCallInfo* call) {
  current_call = call;
}

void register_debug_channel(
    const c10d::ProcessGroup* pg,
    c10::intrusive_ptr<c10d::Store> store,
    std::vector<int64_t> ranks,
    std::chrono::milliseconds mesh_timeout) {
  auto ch = std::make_shared<Channel>();
  ch->store = std::move(store);
  ch->group_rank = pg->getRank();
  ch->last.resize(ranks.size());
  ch->ranks = std::move(ranks);
  ch->timeout = debug_timeout(mesh_timeout);
  std::lock_guard<std::mutex> lock(registry_mu);
  registry()[pg] = std::move(ch);
}

void forget_debug_channel(const c10d::ProcessGroup* pg) {
  std::lock_guard<std::mutex> lock(registry_mu);
  registry().erase(pg);
}

void check_collective(
    const c10d::ProcessGroup& pg,
    const char* op,
    const std::vector<at::Tensor>& tensors,
    const std::string& args) {
  if (pg.getSize() == 1) {
    return;
  }
  auto ch = channel_of(pg);
  if (!ch) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      TORCH_WARN(
          "MESHGUARD_DEBUG_COLLECTIVES: a DeviceMesh built from your own process groups has no store to compare "
          "collectives through; its collectives are not checked (meshes from init_device_mesh are)");
    });
    return;
  }
  std::lock_guard<std::mutex> lock(ch->mu);
  const int64_t seq = ++ch->seq;
  const std::string mine = fingerprint(op, tensors, args);
  std::vector<std::string> others;
  for (int64_t j = 0; j < static_cast<int64_t>(ch->ranks.size()); ++j) {
    if (j != ch->group_rank) {
      others.push_back(key(seq, j));
    }
  }
  try {
    ch->store->set(
        key(seq, ch->group_rank),
        std::vector<uint8_t>(mine.begin(), mine.end()));
    ch->store->wait(others, ch->timeout);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool timed_out = what.find("imeout") != std::string::npos ||
        what.find("imed out") != std::string::npos;
    fail_missing(
        *ch,
        mine,
        timed_out ? std::string()
                  : " The store stopped answering (" +
                what.substr(0, what.find('\n')) +
                "): the rank that serves it (global rank 0) has probably ended.");
  }
  std::vector<std::string> fps(ch->ranks.size());
  bool same = true;
  for (int64_t j = 0; j < static_cast<int64_t>(ch->ranks.size()); ++j) {
    fps[j] = j == ch->group_rank ? mine : text(ch->store->get(key(seq, j)));
    same = same && fps[j] == mine;
  }
  // Every rank has published #seq-1, so all are done reading #seq-2.
  if (seq > 2) {
    ch->store->deleteKey(key(seq - 2, ch->group_rank));
  }
  if (!same) {
    fail_mismatch(*ch, fps);
  }
  ch->last = std::move(fps);
}

} // namespace detail

bool debug_collectives_enabled() {
  return detail::debug_collectives_on();
}

void set_debug_collectives(bool enabled) {
  detail::debug_collectives_flag.store(enabled, std::memory_order_relaxed);
}

} // namespace meshguard
