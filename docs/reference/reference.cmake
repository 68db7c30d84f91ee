# The API reference, generated from the headers by Doxygen: cmake --build build --target docs-reference writes
# build/docs/reference/html/index.html (docs/README.md). Without doxygen there is no such target. Included by
# tests/docs/CMakeLists.txt, which runs the covered set as the test docs_reference.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "cudp: doxygen not found; no docs-reference target, and the test docs_reference is not registered")
  return()
endif()
set(CUDP_REFERENCE_OUTPUT ${PROJECT_BINARY_DIR}/docs/reference)
set(CUDP_REFERENCE_DOXYFILE ${CUDP_REFERENCE_OUTPUT}/Doxyfile)
configure_file(${CMAKE_CURRENT_LIST_DIR}/Doxyfile.in ${CUDP_REFERENCE_DOXYFILE} @ONLY)
add_custom_target(docs-reference
                  COMMAND ${DOXYGEN_EXECUTABLE} ${CUDP_REFERENCE_DOXYFILE}
                  COMMAND ${CMAKE_COMMAND} -E echo "cudp: API reference in ${CUDP_REFERENCE_OUTPUT}/html/index.html"
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  COMMENT "Generating the API reference with Doxygen"
                  VERBATIM)
