# The warnings meshguard's own code builds clean under (libtorch's and
# LLVM's headers are system headers and stay quiet). scripts/build.py (make
# build, CI) fails on any warning in meshguard's own code; MESHGUARD_WERROR
# turns them into errors at the first one.
# Unused parameters (overrides, callbacks) and aggregates initialised in part
# (their members have defaults) are the house style, not mistakes.
option(MESHGUARD_WERROR "Treat warnings in meshguard's own code as errors" OFF)

function(meshguard_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
    $<$<BOOL:${MESHGUARD_WERROR}>:-Werror>)
endfunction()
