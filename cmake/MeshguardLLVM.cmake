# LLVM/Clang 19. Debian's /usr/lib/llvm-19 by default; LLVM_DIR / Clang_DIR
# override it. LLVMConfigVersion rejects a bare "19", so no version is asked
# of find_package; the major version is checked here instead.
set(MESHGUARD_LLVM_ROOT /usr/lib/llvm-19 CACHE PATH "Where LLVM/Clang 19 is installed")
find_package(LLVM REQUIRED CONFIG HINTS ${MESHGUARD_LLVM_ROOT}/lib/cmake/llvm)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "meshguard needs LLVM/Clang 19, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
endif()
find_package(Clang REQUIRED CONFIG HINTS ${LLVM_INSTALL_PREFIX}/lib/cmake/clang ${MESHGUARD_LLVM_ROOT}/lib/cmake/clang)
message(STATUS "meshguard: LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR})")

set(MESHGUARD_LLVM_TOOLS_DIR ${LLVM_TOOLS_BINARY_DIR})
find_program(MESHGUARD_HOST_CLANG_TIDY NAMES clang-tidy-19 clang-tidy HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(MESHGUARD_HOST_CLANGD NAMES clangd-19 clangd HINTS ${LLVM_TOOLS_BINARY_DIR})

# Flags every target that includes LLVM/Clang headers needs.
add_library(meshguard_llvm_flags INTERFACE)
target_include_directories(meshguard_llvm_flags SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
separate_arguments(_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_options(meshguard_llvm_flags INTERFACE ${_llvm_defs})
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(meshguard_llvm_flags INTERFACE -fno-rtti)
endif()

# Clang finds its builtin headers (stddef.h, ...) in <bin>/../lib/clang/<major>.
# Our tools live in <build>/bin, so point <build>/lib/clang at LLVM's.
set(MESHGUARD_CLANG_RESOURCE_PARENT ${LLVM_LIBRARY_DIR}/clang)
if(EXISTS ${MESHGUARD_CLANG_RESOURCE_PARENT} AND NOT EXISTS ${CMAKE_BINARY_DIR}/lib/clang)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  file(CREATE_LINK ${MESHGUARD_CLANG_RESOURCE_PARENT} ${CMAKE_BINARY_DIR}/lib/clang SYMBOLIC)
endif()

# CaDiCaL answers the dataflow framework's SAT queries (see CDCLSolver.h).
# Debian's libcadical-dev ships a static, position-independent archive.
find_path(MESHGUARD_CADICAL_INCLUDE cadical.hpp)
find_library(MESHGUARD_CADICAL_LIBRARY NAMES libcadical.a cadical)
if(NOT MESHGUARD_CADICAL_INCLUDE OR NOT MESHGUARD_CADICAL_LIBRARY)
  message(FATAL_ERROR "meshguard needs the CaDiCaL SAT solver: apt-get install libcadical-dev "
                      "(or run scripts/bootstrap.sh)")
endif()
add_library(meshguard_cadical INTERFACE)
target_include_directories(meshguard_cadical SYSTEM INTERFACE ${MESHGUARD_CADICAL_INCLUDE})
target_link_libraries(meshguard_cadical INTERFACE ${MESHGUARD_CADICAL_LIBRARY})
message(STATUS "meshguard: CaDiCaL ${MESHGUARD_CADICAL_LIBRARY}")
