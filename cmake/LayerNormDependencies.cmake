# The native build's dependencies, found one way. CMakeLists.txt includes this file, and so does
# cmake/probe/CMakeLists.txt, which web/scripts/setup.mjs configures to check them: setup accepts
# exactly what the build finds, and refuses what it would not.
#
# SIMDe is found on CMake's own search paths (CMAKE_PREFIX_PATH, CMAKE_INCLUDE_PATH, the system
# prefixes) and, as the compiler finds headers, on CPLUS_INCLUDE_PATH and CPATH.
# GoogleTest (only when LAYERNORM_BUILD_TESTS) is CMake's GTest package: its config file
# (GTestConfig.cmake) or, through CMake's FindGTest, its headers and libraries, on the same paths
# or GTEST_ROOT.
#
# In:  LAYERNORM_BUILD_TESTS; LAYERNORM_DEPENDENCIES_REPORT_ONLY (the probe: report what is
#      missing instead of stopping).
# Out: SIMDE_INCLUDE_DIR; GTest_FOUND and the GTest::gtest_main target.
find_path(SIMDE_INCLUDE_DIR simde/wasm/simd128.h HINTS ENV CPLUS_INCLUDE_PATH ENV CPATH)
if(NOT SIMDE_INCLUDE_DIR AND NOT LAYERNORM_DEPENDENCIES_REPORT_ONLY)
  message(FATAL_ERROR
    "SIMDe (simde/wasm/simd128.h) not found: install libsimde-dev (Debian) or `brew install simde`, "
    "or put SIMDe's prefix on CMAKE_PREFIX_PATH (or its include folder on CPLUS_INCLUDE_PATH)")
endif()

if(LAYERNORM_BUILD_TESTS)
  find_package(GTest)
  if(NOT GTest_FOUND AND NOT LAYERNORM_DEPENDENCIES_REPORT_ONLY)
    message(FATAL_ERROR
      "GoogleTest's CMake package not found: install libgtest-dev (Debian) or `brew install googletest`, "
      "or put its prefix on CMAKE_PREFIX_PATH; or configure with -DLAYERNORM_BUILD_TESTS=OFF")
  endif()
endif()
