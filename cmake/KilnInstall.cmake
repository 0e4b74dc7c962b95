# Install rules (issue 31): `cmake --install build/release [--prefix P]` (or `make install
# PREFIX=P`) lays out
#
#   include/kiln/**                               the public headers (C, kiln/c/, the C++ wrapper)
#   lib/libkiln.so.1.0.0, libkiln.so.1            the shared library           component runtime
#   lib/libkiln.so, lib/libkiln.a                 link-time files              component dev
#   lib/cmake/Kiln/                               find_package(Kiln): Kiln::kiln, Kiln::kiln_static
#   lib/pkgconfig/kiln.pc                         pkg-config kiln
#   bin/kiln                                      the command-line tool        component tools
#   lib/python3/dist-packages/kiln/               the Python package           component python
#   share/doc/kiln/                               README, ARCHITECTURE, html   component docs
#
# (lib is CMAKE_INSTALL_LIBDIR: GNUInstallDirs makes it lib/<multiarch> when configured for /usr on
# Debian.) The tree is relocatable: nothing in it names the prefix, the source or the build
# directory. The CMake package and kiln.pc find the prefix from their own location, bin/kiln and the
# Python module find libkiln through a RUNPATH relative to $ORIGIN -- except in a /usr install (the
# Debian packages: cmake/KilnPackaging.cmake), where libkiln is on the loader's default path and a
# RUNPATH is dropped (lintian's custom-library-search-path).
#
# Included at the end of the root CMakeLists.txt, after every target exists; only the release
# build's install is tested (tests/install/check_install.sh).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
# Debian's directory for Python packages of every Python 3 version (not multiarch): the package is
# pure Python plus one extension module built for this build's Python.
set(KILN_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE STRING
    "Where the Python package kiln is installed, relative to the prefix")
set(kiln_config_dir ${PROJECT_BINARY_DIR}/kiln-config)

# $ORIGIN-relative RUNPATHs: bin/ -> lib/, and the Python module's directory -> lib/.
file(RELATIVE_PATH kiln_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
file(RELATIVE_PATH kiln_python_to_lib /${KILN_INSTALL_PYTHONDIR}/kiln/capi /${CMAKE_INSTALL_LIBDIR})
string(REGEX REPLACE "/$" "" kiln_python_to_lib "${kiln_python_to_lib}")

# kiln_install_drop_runpath(COMPONENT RELATIVE_FILE): at install time, when the prefix is /usr,
# removes the RUNPATH that the install rules wrote into PREFIX/RELATIVE_FILE (generator expressions
# allowed). The choice is made at install time because the Debian packages reuse the release tree,
# configured for /usr/local: CPack installs it with CMAKE_INSTALL_PREFIX=/usr and DESTDIR set.
function(kiln_install_drop_runpath component file)
  install(CODE "
    if(CMAKE_INSTALL_PREFIX MATCHES \"^/usr/?\$\")
      message(STATUS \"No RUNPATH in a /usr install: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${file}\")
      file(RPATH_REMOVE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${file}\")
    endif()" COMPONENT ${component})
endfunction()

# --- The libraries, their headers and the CMake package ----------------------------------------

# libkiln.so.1.0.0 and its soname link are the runtime; the libkiln.so link is for linking only.
install(TARGETS kiln EXPORT KilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kiln_static EXPORT KilnStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# CMake strips executables and shared libraries on `--install --strip` (and CPACK_STRIP_FILES) but
# never a static archive; the release build's libkiln.a is mostly DWARF (about 400 MB). Stripping
# keeps its symbol table (--strip-debug), as Debian's dh_strip does.
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug --remove-section=.comment
                            --enable-deterministic-archives
                            \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:kiln_static>\"
                    COMMAND_ERROR_IS_FATAL ANY)
  endif()" COMPONENT dev)

# Every public header, kiln/c/ and kiln/cxx/ included.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h")

# Two export sets: KilnConfig.cmake always loads Kiln::kiln (which needs nothing else) and loads
# Kiln::kiln_static, whose link interface names other packages' targets, only on request.
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR}
        FILE KilnTargets.cmake COMPONENT dev)
install(EXPORT KilnStaticTargets NAMESPACE Kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR}
        FILE KilnStaticTargets.cmake COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${kiln_config_dir}/KilnConfig.cmake
  INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# A program built against Kiln 1.x runs on any later 1.y: the API table only grows.
write_basic_package_version_file(${kiln_config_dir}/KilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${kiln_config_dir}/KilnConfig.cmake ${kiln_config_dir}/KilnConfigVersion.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR} COMPONENT dev)

# kiln.pc: the prefix is found from the file's own directory (pkg-config's ${pcfiledir}).
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCFILEDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" KILN_PC_PREFIX_FROM_PCFILEDIR "${KILN_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${kiln_config_dir}/kiln.pc @ONLY)
install(FILES ${kiln_config_dir}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# --- The command-line tool ----------------------------------------------------------------------

set_target_properties(kiln_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${kiln_bin_to_lib}")
install(TARGETS kiln_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
kiln_install_drop_runpath(tools ${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:kiln_cli>)

# --- The Python package -------------------------------------------------------------------------

# The staged package (bindings/python/CMakeLists.txt copies its .py/.pyi files into
# <build>/python/kiln); the native module is installed as a target, so that its RUNPATH is rewritten
# and it is stripped with the rest. Unlike the pip-installed package it carries no copy of
# libkiln.so.1: it uses the installed one. Not built with KILN_BUILD_PYTHON=OFF.
if(TARGET kiln_python_native)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/python/kiln DESTINATION ${KILN_INSTALL_PYTHONDIR}
          COMPONENT python
          FILES_MATCHING PATTERN "*.py" PATTERN "*.pyi" PATTERN "py.typed"
          PATTERN "__pycache__" EXCLUDE)
  set_target_properties(kiln_python_native PROPERTIES
                        INSTALL_RPATH "$ORIGIN/${kiln_python_to_lib}")
  install(TARGETS kiln_python_native LIBRARY DESTINATION ${KILN_INSTALL_PYTHONDIR}/kiln/capi
          COMPONENT python)
  kiln_install_drop_runpath(python
    ${KILN_INSTALL_PYTHONDIR}/kiln/capi/$<TARGET_FILE_NAME:kiln_python_native>)
endif()

# --- Documentation ------------------------------------------------------------------------------

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/ARCHITECTURE.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)
# The Doxygen manual, when it was built (target kiln_docs).
install(DIRECTORY ${PROJECT_BINARY_DIR}/docs/html DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT docs OPTIONAL)
