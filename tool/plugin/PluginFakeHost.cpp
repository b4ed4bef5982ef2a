//===- PluginFakeHost.cpp - a host of another LLVM version, for tests -----===//
//
// Usage: meshguard-plugin-fakehost <major.minor.patch> <MeshguardTidyPlugin.so>
//
// Stands in for a clang-tidy of another LLVM version: like libLLVM.so it
// exports LLVMGetVersion (returning the version given), and it loads the
// plugin the way LLVM's PluginLoader does (dlopen RTLD_LAZY|RTLD_GLOBAL). It
// then reports whether the implementation part of the plugin got loaded.
// Nothing of the loader is stubbed: its real detection and refusal run.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <link.h>

static unsigned FakeMajor, FakeMinor, FakePatch;

// The name and signature of LLVM's C API function (llvm-c/Core.h).
// NOLINTBEGIN(readability-identifier-naming)
extern "C" __attribute__((visibility("default"))) void
LLVMGetVersion(unsigned *Major, unsigned *Minor, unsigned *Patch) {
  *Major = FakeMajor;
  *Minor = FakeMinor;
  *Patch = FakePatch;
}
// NOLINTEND(readability-identifier-naming)

static int findImpl(struct dl_phdr_info *Info, size_t, void *Found) {
  if (Info->dlpi_name &&
      std::strstr(Info->dlpi_name, "MeshguardTidyPluginImpl"))
    *static_cast<bool *>(Found) = true;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || std::sscanf(argv[1], "%u.%u.%u", &FakeMajor, &FakeMinor,
                               &FakePatch) != 3) {
    std::fprintf(stderr, "usage: %s <major.minor.patch> <plugin.so>\n",
                 argv[0]);
    return 2;
  }
  void *H = dlopen(argv[2], RTLD_LAZY | RTLD_GLOBAL);
  if (!H) {
    std::printf("fakehost: dlopen failed: %s\n", dlerror());
    return 1;
  }
  bool ImplLoaded = false;
  dl_iterate_phdr(findImpl, &ImplLoaded);
  std::printf("fakehost: LLVM %u.%u.%u: plugin loaded, checks %s\n", FakeMajor,
              FakeMinor, FakePatch,
              ImplLoaded ? "registered" : "not registered");
  return 0;
}
