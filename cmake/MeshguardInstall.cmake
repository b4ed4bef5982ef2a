# Install rules for the runtime and the find_package(meshguard CONFIG)
# package exporting meshguard::runtime. Included (OPTIONAL) by the top level.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(TARGET meshguard_runtime_shared)
  set(MESHGUARD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/meshguard)

  # The shared library (lib/runtime/CMakeLists.txt: the static archive's
  # objects) is what is installed, as meshguard::runtime.
  install(TARGETS meshguard_runtime_shared
    EXPORT meshguardTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/include/meshguard/meshguard.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/meshguard COMPONENT runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/meshguard/runtime
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/meshguard COMPONENT runtime
    FILES_MATCHING PATTERN "*.h")
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/meshguard-launch
    DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

  install(EXPORT meshguardTargets
    NAMESPACE meshguard::
    DESTINATION ${MESHGUARD_CMAKE_DIR}
    COMPONENT runtime)

  # The consumer's find_package(meshguard) looks for the same libtorch.
  set(MESHGUARD_TORCH_DIR "${Torch_DIR}")
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/meshguardConfig.cmake.in
    ${PROJECT_BINARY_DIR}/meshguardConfig.cmake
    INSTALL_DESTINATION ${MESHGUARD_CMAKE_DIR})
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/meshguardConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/meshguardConfig.cmake
    ${PROJECT_BINARY_DIR}/meshguardConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/meshguardTorchLibs.cmake
    DESTINATION ${MESHGUARD_CMAKE_DIR}
    COMPONENT runtime)
endif()
