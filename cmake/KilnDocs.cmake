# The manual (docs/manual and the API reference from the public headers) as HTML, built by
# `cmake --build <build> --target kiln_docs` into ${CMAKE_BINARY_DIR}/docs/html. Not part of ALL.
# It is `make docs` (which writes build/docs/html) with the output moved: Doxygen reads
# docs/Doxyfile from its standard input, in the source tree, with OUTPUT_DIRECTORY set after it
# (a later assignment wins), warnings as errors. The old html folder is removed first, so a page
# that is gone does not linger. The links are checked by the ctest docs_manual_links
# (scripts/check_doc_links.py).
find_program(KILN_DOXYGEN doxygen)
set(KILN_DOCS_DIR ${CMAKE_BINARY_DIR}/docs)
if(KILN_DOXYGEN)
  add_custom_target(kiln_docs
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${KILN_DOCS_DIR}/html
    COMMAND sh -c "{ cat docs/Doxyfile; printf 'OUTPUT_DIRECTORY = \"%s\"\\n' \"$1\"; } | \"$0\" -"
            ${KILN_DOXYGEN} ${KILN_DOCS_DIR}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Building the manual into ${KILN_DOCS_DIR}/html"
    VERBATIM)
else()
  add_custom_target(kiln_docs
    COMMAND ${CMAKE_COMMAND} -E echo "kiln_docs: doxygen is not installed (scripts/bootstrap.sh)"
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
endif()
