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

# ProcessGroupNCCL.hpp includes <nccl.h>, which a pip PyTorch keeps in the
# nvidia-nccl wheel, not in torch/include.
if(MESHGUARD_HAVE_NCCL)
  set(_nccl_hints $ENV{NCCL_HOME} $ENV{NCCL_ROOT} $ENV{CUDA_HOME} /usr/local/cuda)
  find_path(MESHGUARD_NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} ${TORCH_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(MESHGUARD_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64)
  if(NOT MESHGUARD_NCCL_INCLUDE_DIR)
    message(WARNING "meshguard: libtorch has NCCL but nccl.h was not found (set MESHGUARD_NCCL_INCLUDE_DIR); "
                    "building without the NCCL path")
    set(MESHGUARD_HAVE_NCCL OFF)
  endif()
endif()
if(MESHGUARD_HAVE_NCCL)
  message(STATUS "meshguard: NCCL path ON (nccl.h in ${MESHGUARD_NCCL_INCLUDE_DIR})")
else()
  message(STATUS "meshguard: NCCL path OFF (init_device_mesh(\"cuda\") throws an error that says why)")
endif()
