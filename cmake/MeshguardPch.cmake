# Precompiled headers for the translation units that include libtorch: each
# costs 60-120 s on 2 cores without one, most of it parsing <torch/torch.h>.
# The runtime precompiles its own set; the programs that use the runtime (tests,
# examples, benchmarks) share one header compiled once for them all.
# MESHGUARD_PCH=OFF turns both off (e.g. to check that every file includes
# what it uses).
option(MESHGUARD_PCH "Precompile libtorch's headers" ON)

# The shared header of the runtime's users: an object library that exists
# only to own it (its one source file is empty).
function(meshguard_add_user_pch)
  if(NOT MESHGUARD_PCH OR TARGET meshguard_user_pch)
    return()
  endif()
  add_library(meshguard_user_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/empty.cpp)
  target_link_libraries(meshguard_user_pch PRIVATE meshguard::runtime)
  target_precompile_headers(meshguard_user_pch PRIVATE <torch/torch.h> <meshguard/meshguard.h>)
endfunction()

# meshguard_use_user_pch(target...): the targets reuse the shared header. They
# must link meshguard::runtime and add no flags that change its meaning.
function(meshguard_use_user_pch)
  if(NOT MESHGUARD_PCH)
    return()
  endif()
  meshguard_add_user_pch()
  foreach(_target ${ARGN})
    target_precompile_headers(${_target} REUSE_FROM meshguard_user_pch)
  endforeach()
endfunction()
