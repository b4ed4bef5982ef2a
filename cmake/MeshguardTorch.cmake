# libtorch: by default the pip wheel's (make's TORCH=pip: Torch_DIR from
# scripts/torch-venv.sh); Debian's libtorch-dev (1.13.1) when Torch_DIR is not
# set (TORCH=debian). docs/building.md lists the tested versions.

include(meshguardTorchLibs)
meshguard_pin_torch_libraries("${Torch_DIR}")
find_package(Torch REQUIRED CONFIG)
message(STATUS "meshguard: libtorch ${Torch_VERSION} (${Torch_DIR})")
set(MESHGUARD_TORCH_VERSION ${Torch_VERSION})

# The C++ standard libtorch's headers need: C++17 up to 2.13; 2.14's ATen.h
# stops with "#error C++20 or later compatible compiler is required". Read from
# that #error line, not from the version, nor from the CXX_STANDARD 20 that
# TorchConfig sets on the torch target (2.13 sets it too, yet builds as C++17;
# and the property does not reach the targets linking torch). lib/runtime makes
# it a PUBLIC compile feature of meshguard_runtime, so tests, examples and
# installed consumers get it too.
set(MESHGUARD_TORCH_CXX_STANDARD 17)
foreach(_inc ${TORCH_INCLUDE_DIRS})
  if(EXISTS "${_inc}/ATen/ATen.h")
    file(STRINGS "${_inc}/ATen/ATen.h" _aten_std REGEX "C\\+\\+[0-9]+ or later" LIMIT_COUNT 1)
    if(_aten_std MATCHES "C\\+\\+([0-9]+) or later")
      set(_aten_std ${CMAKE_MATCH_1})
      if(_aten_std GREATER MESHGUARD_TORCH_CXX_STANDARD)
        set(MESHGUARD_TORCH_CXX_STANDARD ${_aten_std})
      endif()
    endif()
    break()
  endif()
endforeach()
if(MESHGUARD_TORCH_CXX_STANDARD GREATER 17)
  message(STATUS "meshguard: libtorch ${Torch_VERSION} needs C++${MESHGUARD_TORCH_CXX_STANDARD}; the runtime and its users build with it")
endif()

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
# nvidia-nccl wheel (site-packages/nvidia/nccl/{include,lib}, beside torch/),
# not in torch/include. That wheel comes first: it is the NCCL libtorch_cuda.so
# loads (its RPATH), where a system NCCL may be another version. Through
# ATen/cuda/CUDAContext.h it also includes the CUDA libraries' headers
# (cusparse.h, cublas_v2.h, cublasLt.h, cusolverDn.h), which a CUDA toolkit
# with only nvcc and cudart lacks and the wheels have: nvidia/cu13/include
# (CUDA 13 wheels), nvidia/<library>/include (CUDA 12 wheels).
# MESHGUARD_NCCL_INCLUDE_DIRS collects them for lib/runtime.
set(MESHGUARD_NCCL_INCLUDE_DIRS "")
if(MESHGUARD_HAVE_NCCL)
  set(_nccl_hints $ENV{NCCL_HOME} $ENV{NCCL_ROOT})
  set(_cuda_inc_hints "")
  if(Torch_DIR)
    # <site-packages>/torch/share/cmake/Torch -> <site-packages>
    get_filename_component(_torch_site "${Torch_DIR}/../../../.." ABSOLUTE)
    if(EXISTS "${_torch_site}/nvidia/nccl")
      list(APPEND _nccl_hints "${_torch_site}/nvidia/nccl")
    endif()
    file(GLOB _cuda_inc_hints LIST_DIRECTORIES true "${_torch_site}/nvidia/*/include")
  endif()
  list(APPEND _nccl_hints $ENV{CUDA_HOME} /usr/local/cuda)
  find_path(MESHGUARD_NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} ${TORCH_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(MESHGUARD_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64)
  if(NOT MESHGUARD_NCCL_INCLUDE_DIR)
    message(WARNING "meshguard: libtorch has NCCL but nccl.h was not found (set MESHGUARD_NCCL_INCLUDE_DIR); "
                    "building without the NCCL path")
    set(MESHGUARD_HAVE_NCCL OFF)
  else()
    list(APPEND MESHGUARD_NCCL_INCLUDE_DIRS ${MESHGUARD_NCCL_INCLUDE_DIR})
  endif()
endif()
if(MESHGUARD_HAVE_NCCL)
  foreach(_h cusparse.h cublas_v2.h cublasLt.h cusolverDn.h)
    string(MAKE_C_IDENTIFIER "MESHGUARD_CUDA_${_h}_DIR" _var)
    string(TOUPPER "${_var}" _var)
    find_path(${_var} ${_h} HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDA_INCLUDE_DIRS} $ENV{CUDA_HOME}/include
              /usr/local/cuda/include ${_cuda_inc_hints})
    if(NOT ${_var})
      message(WARNING "meshguard: libtorch has NCCL but ${_h} (a CUDA library header that ProcessGroupNCCL.hpp "
                      "includes) was not found (set ${_var}, or CUDA_HOME to a full CUDA toolkit); "
                      "building without the NCCL path")
      set(MESHGUARD_HAVE_NCCL OFF)
      break()
    endif()
    list(APPEND MESHGUARD_NCCL_INCLUDE_DIRS ${${_var}})
  endforeach()
  list(REMOVE_DUPLICATES MESHGUARD_NCCL_INCLUDE_DIRS)
endif()
if(MESHGUARD_HAVE_NCCL)
  message(STATUS "meshguard: NCCL path ON (nccl.h in ${MESHGUARD_NCCL_INCLUDE_DIR})")
else()
  message(STATUS "meshguard: NCCL path OFF (init_device_mesh(\"cuda\") throws an error that says why)")
endif()
