//===- MeshguardTidyPlugin.cpp - version-checking loader for clang-tidy ---===//
//
// `clang-tidy -load MeshguardTidyPlugin.so` dlopens this file. It holds no
// clang or LLVM code and references no clang/LLVM symbol, so it loads into any
// clang-tidy. Its constructor:
//   1. finds the host's LLVM version: LLVMGetVersion() (LLVM's C API, exported
//      by libLLVM.so since LLVM 16), else clang::getClangFullVersion()
//      (libclang-cpp / a clang-tidy that exports its symbols), else the
//      soname of a libLLVM.so mapped into the process;
//   2. refuses -- a message on stderr, nothing registered, no crash -- when
//      that is not the LLVM major.minor this plugin was compiled against
//      (LLVM keeps the ABI, and libLLVM's soname, stable across patch
//      releases of one major.minor), or when it cannot tell;
//   3. otherwise loads MeshguardTidyPluginImpl.so from its own directory,
//      whose static initializers register the dtensor module with the host.
// MESHGUARD_PLUGIN_VERBOSE=1 in the environment reports what it found.
//
//===----------------------------------------------------------------------===//

#include "llvm/Config/llvm-config.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <string>

#ifndef MESHGUARD_PLUGIN_IMPL_FILE
#define MESHGUARD_PLUGIN_IMPL_FILE "MeshguardTidyPluginImpl.so"
#endif

namespace {

struct HostVersion {
  bool Known = false;
  unsigned Major = 0, Minor = 0, Patch = 0;
  std::string Source;
};

bool verbose() {
  const char *V = std::getenv("MESHGUARD_PLUGIN_VERBOSE");
  return V && *V && std::strcmp(V, "0") != 0;
}

// Parses "19.1.7" (patch optional) at S.
bool parseVersion(const char *S, HostVersion &H) {
  unsigned Ma = 0, Mi = 0, Pa = 0;
  int N = std::sscanf(S, "%u.%u.%u", &Ma, &Mi, &Pa);
  if (N < 2)
    return false;
  H.Known = true;
  H.Major = Ma;
  H.Minor = Mi;
  H.Patch = N == 3 ? Pa : 0;
  return true;
}

int findLibLLVM(struct dl_phdr_info *Info, size_t, void *Data) {
  auto &H = *static_cast<HostVersion *>(Data);
  if (!Info->dlpi_name)
    return 0;
  const char *Base = std::strrchr(Info->dlpi_name, '/');
  Base = Base ? Base + 1 : Info->dlpi_name;
  // libLLVM.so.19.1 (LLVM >= 18) or libLLVM-17.so (older).
  if (std::strncmp(Base, "libLLVM.so.", 11) == 0 &&
      parseVersion(Base + 11, H)) {
    H.Source = std::string("mapped ") + Base;
    return 1;
  }
  unsigned Major = 0;
  if (std::sscanf(Base, "libLLVM-%u.so", &Major) == 1 && Major) {
    H = HostVersion();
    H.Known = true;
    H.Major = Major;
    H.Minor = Major >= 18 ? 1 : 0;
    H.Source = std::string("mapped ") + Base;
    return 1;
  }
  return 0;
}

HostVersion detectHostVersion() {
  HostVersion H;
  using GetVersionFn = void (*)(unsigned *, unsigned *, unsigned *);
  if (auto *Get = reinterpret_cast<GetVersionFn>(
          dlsym(RTLD_DEFAULT, "LLVMGetVersion"))) {
    Get(&H.Major, &H.Minor, &H.Patch);
    H.Known = true;
    H.Source = "LLVMGetVersion()";
    return H;
  }
  // std::string clang::getClangFullVersion(), e.g.
  // "Debian clang version 19.1.7 (3+b1)".
  using FullVersionFn = std::string (*)();
  if (auto *Full = reinterpret_cast<FullVersionFn>(
          dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev"))) {
    std::string S = Full();
    auto Pos = S.find("version ");
    if (Pos != std::string::npos && parseVersion(S.c_str() + Pos + 8, H)) {
      H.Source = "clang::getClangFullVersion() = \"" + S + "\"";
      return H;
    }
  }
  dl_iterate_phdr(findLibLLVM, &H);
  return H;
}

std::string ownDirectory() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&detectHostVersion), &Info) ||
      !Info.dli_fname)
    return ".";
  std::string Path = Info.dli_fname;
  auto Slash = Path.rfind('/');
  return Slash == std::string::npos ? "." : Path.substr(0, Slash);
}

__attribute__((constructor)) void meshguardPluginLoad() {
  const HostVersion H = detectHostVersion();
  if (!H.Known) {
    std::fprintf(
        stderr,
        "meshguard: MeshguardTidyPlugin.so was built for LLVM %s, but "
        "cannot tell which LLVM this clang-tidy uses (no "
        "LLVMGetVersion, no clang::getClangFullVersion, no libLLVM.so "
        "in the process); refusing to load: the dtensor-* checks are "
        "not available. Use meshguard-tidy, or a clang-tidy-%d that is "
        "linked against libLLVM.so.\n",
        LLVM_VERSION_STRING, LLVM_VERSION_MAJOR);
    return;
  }
  if (verbose())
    std::fprintf(stderr,
                 "meshguard: host LLVM %u.%u.%u (from %s); plugin built for "
                 "LLVM %s\n",
                 H.Major, H.Minor, H.Patch, H.Source.c_str(),
                 LLVM_VERSION_STRING);
  if (H.Major != LLVM_VERSION_MAJOR || H.Minor != LLVM_VERSION_MINOR) {
    std::fprintf(stderr,
                 "meshguard: this clang-tidy uses LLVM %u.%u.%u, but "
                 "MeshguardTidyPlugin.so was built for LLVM %s; refusing to "
                 "load (a plugin only works in the clang-tidy of the LLVM it "
                 "was built against): the dtensor-* checks are not available. "
                 "Use meshguard-tidy, clang-tidy-%d, or rebuild meshguard "
                 "against LLVM %u.\n",
                 H.Major, H.Minor, H.Patch, LLVM_VERSION_STRING,
                 LLVM_VERSION_MAJOR, H.Major);
    return;
  }
  const std::string Impl = ownDirectory() + "/" MESHGUARD_PLUGIN_IMPL_FILE;
  // RTLD_NOW: a symbol the host does not provide is reported here, now, with
  // its name, instead of failing later in the middle of a check.
  void *Handle = dlopen(Impl.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!Handle) {
    const char *Err = dlerror();
    std::fprintf(stderr,
                 "meshguard: cannot load %s: %s; the dtensor-* checks are not "
                 "available.\n",
                 Impl.c_str(), Err ? Err : "unknown error");
    return;
  }
  const char *ImplVersion = static_cast<const char *>(
      dlsym(Handle, "MeshguardTidyPluginImplLLVMVersion"));
  if (!ImplVersion || std::strcmp(ImplVersion, LLVM_VERSION_STRING) != 0)
    std::fprintf(stderr,
                 "meshguard: warning: %s was built for LLVM %s, the loader for "
                 "LLVM %s (files from two different builds?)\n",
                 Impl.c_str(), ImplVersion ? ImplVersion : "?",
                 LLVM_VERSION_STRING);
  if (verbose())
    std::fprintf(stderr, "meshguard: loaded %s\n", Impl.c_str());
}

} // namespace
