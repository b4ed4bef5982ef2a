# Compiler cache and a fast linker when the machine has them.
find_program(MESHGUARD_CCACHE ccache)
if(MESHGUARD_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # base_dir makes paths under the checkout relative in ccache's keys, so a
  # fresh clone elsewhere (CI) hits what this one cached; the sloppiness lets
  # ccache cache translation units built with precompiled headers.
  set(CMAKE_CXX_COMPILER_LAUNCHER
    ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}
    "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
    ${MESHGUARD_CCACHE})
  message(STATUS "meshguard: using ccache (${MESHGUARD_CCACHE})")
endif()

# The clang tools link hundreds of MB of static archives: lld does that in
# seconds where GNU ld takes minutes.
find_program(MESHGUARD_LLD NAMES ld.lld-19 ld.lld)
if(MESHGUARD_LLD AND NOT MESHGUARD_NO_LLD)
  get_filename_component(_lld_dir ${MESHGUARD_LLD} DIRECTORY)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fuse-ld=lld;-B${_lld_dir}")
  check_cxx_source_compiles("int main() { return 0; }" MESHGUARD_HAVE_LLD)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(MESHGUARD_HAVE_LLD)
    add_link_options(-fuse-ld=lld -B${_lld_dir})
    message(STATUS "meshguard: linking with lld (${MESHGUARD_LLD})")
  endif()
endif()
