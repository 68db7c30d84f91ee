#pragma once
/// \file
/// The library's version. CMakeLists.txt reads its project version from these lines, so the two cannot differ.
#define CUDP_VERSION_MAJOR 0
#define CUDP_VERSION_MINOR 1
#define CUDP_VERSION_PATCH 0

#define CUDP_VERSION_TEXT_(x) #x
#define CUDP_VERSION_TEXT(x) CUDP_VERSION_TEXT_(x)
/// "0.1.0"
#define CUDP_VERSION_STRING                                                                              \
  CUDP_VERSION_TEXT(CUDP_VERSION_MAJOR) "." CUDP_VERSION_TEXT(CUDP_VERSION_MINOR) "." CUDP_VERSION_TEXT( \
      CUDP_VERSION_PATCH)
