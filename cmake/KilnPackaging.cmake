# Debian packages (issue 31), made by CPack from the install components of cmake/KilnInstall.cmake:
#
#   libkiln1      component runtime        /usr/lib/.../libkiln.so.1*; shlibs, ldconfig trigger
#   libkiln-dev   components dev and docs  headers, libkiln.so, libkiln.a, CMake and pkg-config
#                                          files, README/ARCHITECTURE (and the html manual if built)
#   kiln-tools    component tools          /usr/bin/kiln
#   python3-kiln  component python         /usr/lib/python3/dist-packages/kiln
#
#   make deb      (cpack --config build/release/CPackConfig.cmake): into build/release/packages
#
# The packages install into /usr from the same release tree that `cmake --install` uses (configured
# for /usr/local): CPack installs each component with CMAKE_INSTALL_PREFIX=/usr and DESTDIR set, the
# install rules drop the RUNPATHs for /usr, and CPACK_STRIP_FILES strips the binaries and the debug
# information of libkiln.a. The versions are the project's (1.0.0, a native version: no Debian
# revision). Depends: dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS) for the ELF files, plus what
# it cannot see: libkiln1 for the packages that load it (it is not installed on the building
# machine), and the -dev packages libkiln.a's link interface needs for libkiln-dev.
# tests/install/check_debs.sh builds, inspects, lintians and unpacks them.

# A placeholder address until the project has one (also in cmake/debian/changelog).
set(KILN_DEB_MAINTAINER "Kiln developers <kiln-devel@example.org>")
set(kiln_deb_dir ${PROJECT_BINARY_DIR}/kiln-deb)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kiln)
set(CPACK_PACKAGE_VENDOR "the Kiln developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${KILN_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# The packages and their components; docs go with the -dev package.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev docs tools)
if(TARGET kiln_python_native)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SOURCE kiln)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The stripped files compress to a few MB; gzip keeps `make deb` fast on 2 cores.
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libkiln.so.1 is not installed here: dpkg-shlibdeps finds it in the build tree (and, having no
# dependency information for it, leaves it to the explicit Depends below).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set(kiln_needs_libkiln1 "libkiln1 (>= ${PROJECT_VERSION})")

# Descriptions: the synopsis, then this paragraph, then what the package holds (lines under 80
# columns, as lintian asks).
set(kiln_deb_about "Kiln runs ONNX models on the CPU. Programs in C, C++, Python and other
languages use it through one exported symbol, KilnGetApiBase, which hands
out a versioned table of functions.")

# libkiln1
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libkiln1)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "ONNX inference runtime with a small, stable C ABI
${kiln_deb_about}
.
This package contains the shared library, libkiln.so.1.")
# shlibs: libkiln 1 libkiln1 (>= 1.0.0) -- the API table only grows, so later 1.x serve too.
# (CMake 3.25 reads these two for all packages only: the other packages have no library with a
# soname, so libkiln1 alone gets a shlibs file.)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${kiln_deb_dir}/triggers)

# libkiln-dev (the group "devel": components dev and docs)
set(CPACK_DEBIAN_DEVEL_PACKAGE_NAME libkiln-dev)
set(CPACK_DEBIAN_DEVEL_PACKAGE_SECTION libdevel)
# Exactly this build's libkiln1 (libkiln.so links to it), and what Kiln::kiln_static and
# kiln.pc's Requires.private need (pkg-config reads those too): Debian's dnnl-config.cmake wants
# OpenCL's headers.
set(kiln_dev_depends "libkiln1 (= ${PROJECT_VERSION})" libprotobuf-dev libdnnl-dev
    "ocl-icd-opencl-dev | opencl-dev" libjpeg-dev libpng-dev libtiff-dev libwebp-dev
    libopenjp2-7-dev "pkgconf | pkg-config")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # libgomp.so, the link-time name libkiln.a's users need, comes with GCC's support library.
  string(REGEX MATCH "^[0-9]+" kiln_gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
  list(APPEND kiln_dev_depends libgcc-${kiln_gcc_major}-dev)
endif()
list(JOIN kiln_dev_depends ", " CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_DEVEL_PACKAGE_RECOMMENDS cmake)
set(CPACK_DEBIAN_DEVEL_DESCRIPTION
    "ONNX inference runtime with a small, stable C ABI - development files
${kiln_deb_about}
.
This package contains the C headers and the header-only C++ wrapper, the
static library, the CMake package (find_package(Kiln), targets Kiln::kiln
and Kiln::kiln_static), the pkg-config file (kiln) and the documentation.")

# kiln-tools
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME kiln-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${kiln_needs_libkiln1}")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "ONNX inference runtime with a small, stable C ABI - command-line tool
${kiln_deb_about}
.
This package contains the kiln tool: it shows a model's inputs, outputs,
opsets and operators, runs it on .npy inputs, benchmarks it, prints it in
ONNX's textual syntax (also as the optimized graph a session runs) and
converts between .onnx and that syntax.")

# python3-kiln: the extension module is built for this build's Python (e.g. 3.11).
if(TARGET kiln_python_native)
  execute_process(COMMAND ${KILN_PYTHON_EXECUTABLE} -c
                          "import sys; print('%d;%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE kiln_py_version OUTPUT_STRIP_TRAILING_WHITESPACE
                  COMMAND_ERROR_IS_FATAL ANY)
  list(GET kiln_py_version 0 kiln_py_major)
  list(GET kiln_py_version 1 kiln_py_minor)
  math(EXPR kiln_py_next "${kiln_py_minor} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-kiln)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(kiln_python_depends "python3 (>= ${kiln_py_major}.${kiln_py_minor})"
      "python3 (<< ${kiln_py_major}.${kiln_py_next})" python3-numpy "${kiln_needs_libkiln1}")
  list(JOIN kiln_python_depends ", " CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS)
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION
      "ONNX inference runtime with a small, stable C ABI - Python 3 package
${kiln_deb_about}
.
This package contains the Python module kiln, which runs programs written
for onnxruntime: 'import kiln as ort' instead of 'import onnxruntime as ort'.")
endif()

# Every package carries /usr/share/doc/<package>/copyright and the changelog (changelog.gz: a
# native version). Only in the packages: EXCLUDE_FROM_ALL keeps them out of a plain
# `cmake --install` (CPack installs component by component).
file(MAKE_DIRECTORY ${kiln_deb_dir})
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/triggers ${kiln_deb_dir}/triggers COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${kiln_deb_dir}/copyright COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog ${kiln_deb_dir}/changelog COPYONLY)
execute_process(COMMAND gzip -9nc ${kiln_deb_dir}/changelog
                OUTPUT_FILE ${kiln_deb_dir}/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
foreach(kiln_pkg IN ITEMS runtime:libkiln1 dev:libkiln-dev tools:kiln-tools python:python3-kiln)
  string(REPLACE ":" ";" kiln_pkg "${kiln_pkg}")
  list(GET kiln_pkg 0 kiln_component)
  list(GET kiln_pkg 1 kiln_package)
  if(kiln_component IN_LIST CPACK_COMPONENTS_ALL)
    install(FILES ${kiln_deb_dir}/copyright ${kiln_deb_dir}/changelog.gz
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${kiln_package}
            COMPONENT ${kiln_component} EXCLUDE_FROM_ALL)
  endif()
endforeach()

include(CPack)
cpack_add_component_group(devel)
cpack_add_component(runtime)
cpack_add_component(dev GROUP devel)
cpack_add_component(docs GROUP devel)
cpack_add_component(tools)
if(TARGET kiln_python_native)
  cpack_add_component(python)
endif()
