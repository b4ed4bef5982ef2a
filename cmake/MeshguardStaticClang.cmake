# How the stand-alone tools (tool/) and the unit tests (unittests/) link the
# static LLVM/Clang archives; see tool/CMakeLists.txt for why.
# include() it in each directory that links such an executable.

set(MESHGUARD_LLVM_LIBDIR ${LLVM_LIBRARY_DIR})

# The clang archives clang-tidy's driver and every upstream module need.
set(MESHGUARD_CLANG_CORE_LIBS
  clangAPINotes clangAST clangASTMatchers clangAnalysis
  clangAnalysisFlowSensitive clangAnalysisFlowSensitiveModels clangBasic
  clangCrossTU clangDriver clangDynamicASTMatchers clangEdit clangExtractAPI
  clangFormat clangFrontend clangIncludeCleaner clangIndex clangInstallAPI
  clangLex clangParse clangRewrite clangRewriteFrontend clangSema
  clangSerialization clangStaticAnalyzerCheckers clangStaticAnalyzerCore
  clangStaticAnalyzerFrontend clangSupport clangTooling clangToolingCore
  clangToolingInclusions clangToolingInclusionsStdlib clangToolingRefactoring
  clangToolingSyntax clangTransformer)
# The module's own list, when lib/Tidy exports one (names of clang archives).
if(DEFINED MESHGUARD_TIDY_CLANG_LIBS)
  list(APPEND MESHGUARD_CLANG_CORE_LIBS ${MESHGUARD_TIDY_CLANG_LIBS})
endif()
file(GLOB _tidy_module_archives ${MESHGUARD_LLVM_LIBDIR}/libclangTidy*Module.a)
set(MESHGUARD_CLANG_TIDY_LIBS clangTidyMain clangTidy clangTidyUtils)
foreach(_a ${_tidy_module_archives})
  get_filename_component(_n ${_a} NAME_WE)
  string(REGEX REPLACE "^lib" "" _n ${_n})
  list(APPEND MESHGUARD_CLANG_TIDY_LIBS ${_n})
endforeach()
set(MESHGUARD_CLANGD_LIBS
  clangdMain clangDaemon clangDaemonTweaks clangdSupport clangdRemoteIndex
  clangdRemoteIndexProto clangdRemoteIndexServiceProto
  clangdMonitoringServiceProto clangdRemoteMarshalling clangPseudo
  clangPseudoCXX clangPseudoGrammar clangDependencyScanning clangCodeGen)

# name list -> archive paths (only names that are clang archives; LLVM names
# and anything else are ignored here and provided by the LLVM list below).
function(meshguard_clang_archives out)
  set(_paths)
  foreach(_n ${ARGN})
    if(_n MATCHES "^clang" AND NOT _n STREQUAL "clang-cpp")
      set(_p ${MESHGUARD_LLVM_LIBDIR}/lib${_n}.a)
      if(NOT EXISTS ${_p})
        message(FATAL_ERROR "meshguard tools: missing static archive ${_p} (libclang-19-dev / libclang-cpp19-dev?)")
      endif()
      list(APPEND _paths ${_p})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _paths)
  set(${out} ${_paths} PARENT_SCOPE)
endfunction()

# Every static LLVM component archive: clang-tidy and clangd initialise all
# targets (InitializeAllTargetInfos/MCs/AsmParsers), so nearly all of them are
# used anyway; an archive member that nothing references is not linked.
file(GLOB MESHGUARD_LLVM_ARCHIVES ${MESHGUARD_LLVM_LIBDIR}/libLLVM*.a)
if(NOT MESHGUARD_LLVM_ARCHIVES)
  message(FATAL_ERROR "meshguard tools: no static LLVM archives in ${MESHGUARD_LLVM_LIBDIR} (llvm-19-dev)")
endif()
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_library(MESHGUARD_ZSTD_LIB NAMES zstd REQUIRED)
find_library(MESHGUARD_XML2_LIB NAMES xml2)
find_library(MESHGUARD_Z3_LIB NAMES z3)
set(MESHGUARD_LLVM_SYSTEM_LIBS Threads::Threads ZLIB::ZLIB ${MESHGUARD_ZSTD_LIB} ${CMAKE_DL_LIBS} rt m)
foreach(_l MESHGUARD_XML2_LIB MESHGUARD_Z3_LIB)
  if(${_l})
    list(APPEND MESHGUARD_LLVM_SYSTEM_LIBS ${${_l}})
  endif()
endforeach()

# The static LLVM/Clang link line for an executable. lld needs no order; for
# GNU ld the archives are wrapped in one --start-group/--end-group.
function(meshguard_link_static_clang target)
  meshguard_clang_archives(_clang ${ARGN})
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${_clang} ${MESHGUARD_LLVM_ARCHIVES} -Wl,--end-group
    ${MESHGUARD_LLVM_SYSTEM_LIBS})
  # Internal clang headers (ClangTidyMain.h, ...) and the LLVM flags.
  target_link_libraries(${target} PRIVATE meshguard_llvm_flags)
  # LLVM's archives are built with -ffunction-sections/-fdata-sections, as
  # LLVM links its own tools: drop the unreferenced sections.
  target_link_options(${target} PRIVATE -Wl,--gc-sections)
endfunction()

