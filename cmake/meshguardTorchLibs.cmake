# meshguard_pin_torch_libraries(TORCH_DIR): makes find_package(Torch) take
# Caffe2Config.cmake, libc10.so and libtorch.so from TORCH_DIR's own prefix.
# TorchConfig.cmake finds them with find_package(Caffe2 PATHS ...) and
# find_library(... PATHS ...), whose system paths come before the PATHS they
# name: with Debian's libtorch-dev also installed, a pip libtorch 2.x silently
# got Debian's 1.13 targets (libtorch.so.1.13, glog's definitions) and
# libc10.so. Used by meshguard's build and by its installed package
# (meshguardConfig.cmake), so consumers get the same fix.
macro(meshguard_pin_torch_libraries torch_dir)
  if(NOT "${torch_dir}" STREQUAL "")
    _meshguard_pin_torch_libraries("${torch_dir}")
  endif()
endmacro()

function(_meshguard_pin_torch_libraries torch_dir)
  get_filename_component(_prefix "${torch_dir}/../../.." ABSOLUTE)
  get_filename_component(_caffe2 "${torch_dir}/../Caffe2" ABSOLUTE)
  if(EXISTS "${_caffe2}/Caffe2Config.cmake" AND NOT "${Caffe2_DIR}" STREQUAL "${_caffe2}")
    set(Caffe2_DIR "${_caffe2}" CACHE PATH "libtorch's Caffe2 package" FORCE)
  endif()
  foreach(_pair "c10_LIBRARY=c10" "TORCH_LIBRARY=torch")
    string(REPLACE "=" ";" _pair "${_pair}")
    list(GET _pair 0 _var)
    list(GET _pair 1 _lib)
    set(_file "${_prefix}/lib/lib${_lib}.so")
    if(EXISTS "${_file}" AND NOT "${${_var}}" STREQUAL "${_file}")
      set(${_var} "${_file}" CACHE FILEPATH "libtorch's lib${_lib}.so" FORCE)
    elseif(NOT EXISTS "${_file}" AND "${${_var}}" MATCHES "/site-packages/torch/")
      # Switched away from a pip libtorch: look again.
      unset(${_var} CACHE)
    endif()
  endforeach()
endfunction()
