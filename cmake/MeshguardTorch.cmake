# libtorch: Debian's libtorch-dev (1.13.1) by default; Torch_DIR overrides it,
# e.g. a pip PyTorch's `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'`/Torch.
find_package(Torch REQUIRED CONFIG)
message(STATUS "meshguard: libtorch ${Torch_VERSION} (${Torch_DIR})")

# NCCL is there when torch says so in its interface definitions.
set(MESHGUARD_HAVE_NCCL OFF)
foreach(_t torch_cpu torch_cuda torch)
  if(TARGET ${_t})
    get_target_property(_defs ${_t} INTERFACE_COMPILE_DEFINITIONS)
    if(_defs AND "${_defs}" MATCHES "USE_C10D_NCCL")
      set(MESHGUARD_HAVE_NCCL ON)
    endif()
  endif()
endforeach()
message(STATUS "meshguard: NCCL path ${MESHGUARD_HAVE_NCCL}")
