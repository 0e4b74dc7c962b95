# ONNX's messages, generated in-tree for protobuf's lite runtime under a package of Kiln's own.
#
# Why (issue 32, part 4): Debian's libonnx_proto.so registers onnx.proto in the full runtime's
# process-wide descriptor pool. A host that dlopen()ed Kiln, dlclose()d it and loaded it again
# found libprotobuf.so still mapped with the old registration and aborted ("File already exists in
# database"), and any other copy of ONNX's messages in the process (the Python onnx package,
# another runtime) shares that pool and those symbols. The lite runtime (libprotobuf-lite.so)
# keeps no descriptor pool, and the package `kiln_onnx` gives the classes names no other library
# uses; libkiln.so keeps them local (cmake/kiln.map). So Kiln registers nothing process-wide and
# unloads completely (tests/unload). Debian's libprotobuf-lite.a is built as position-independent
# executable code (local-exec TLS in arena.o), which a shared library cannot link, so the runtime
# itself is the shared one.
#
# The schema is Debian's own onnx.proto (libonnx-dev), copied into the build tree with the package
# renamed; nothing of ONNX's is kept in this repository. The wire format does not depend on the
# package name.
#
# Defines:
#   KILN_ONNX_PROTO_SOURCES      the generated onnx.pb.cc; its users include
#                                <kiln_onnx/onnx.pb.h> (namespace kiln_onnx)
#   KILN_ONNX_PROTO_INCLUDE_DIR  where that header is

find_file(KILN_ONNX_PROTO_SOURCE onnx/onnx.proto
          HINTS ${Protobuf_INCLUDE_DIR} /usr/include /usr/local/include
          DOC "ONNX's onnx.proto (Debian: libonnx-dev)")
if(NOT KILN_ONNX_PROTO_SOURCE)
  message(FATAL_ERROR "onnx/onnx.proto not found (Debian: libonnx-dev)")
endif()
if(NOT Protobuf_PROTOC_EXECUTABLE)
  message(FATAL_ERROR "protoc not found (Debian: protobuf-compiler)")
endif()
set(kiln_proto_dir ${PROJECT_BINARY_DIR}/generated)
file(READ ${KILN_ONNX_PROTO_SOURCE} kiln_proto_text)
string(REGEX REPLACE "\npackage onnx;" "\npackage kiln_onnx;" kiln_proto_text "${kiln_proto_text}")
if(NOT kiln_proto_text MATCHES "\npackage kiln_onnx;")
  message(FATAL_ERROR "${KILN_ONNX_PROTO_SOURCE} has no 'package onnx;' line")
endif()
if(NOT kiln_proto_text MATCHES "\noption optimize_for = LITE_RUNTIME;")
  string(APPEND kiln_proto_text "\noption optimize_for = LITE_RUNTIME;\n")
endif()
# Written only when it changes, so that a reconfigure does not regenerate and rebuild.
set(kiln_proto_old "")
if(EXISTS ${kiln_proto_dir}/kiln_onnx/onnx.proto)
  file(READ ${kiln_proto_dir}/kiln_onnx/onnx.proto kiln_proto_old)
endif()
if(NOT kiln_proto_old STREQUAL kiln_proto_text)
  file(WRITE ${kiln_proto_dir}/kiln_onnx/onnx.proto "${kiln_proto_text}")
endif()

add_custom_command(
  OUTPUT ${kiln_proto_dir}/kiln_onnx/onnx.pb.cc ${kiln_proto_dir}/kiln_onnx/onnx.pb.h
  COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${kiln_proto_dir} -I${kiln_proto_dir}
          ${kiln_proto_dir}/kiln_onnx/onnx.proto
  DEPENDS ${kiln_proto_dir}/kiln_onnx/onnx.proto ${Protobuf_PROTOC_EXECUTABLE}
  COMMENT "protoc (lite): kiln_onnx/onnx.proto"
  VERBATIM)

# The generated source is compiled into kiln_objects (CMakeLists.txt), without the project's
# warnings; its header is a system header to the project's files. Always at -O2 and without ASan
# and UBSan (like protobuf's own library, which is not instrumented either): its enum name tables
# are built from protobuf's StringPiece, whose constructor is not constexpr, and only the
# optimizer turns that into static data; at -O0 or under ASan it runs at load time
# (link_no-static-init, DESIGN.md §3 rule 10). Kiln's own calls into the messages (their inline
# accessors) are instrumented where they are compiled. The fuzz build keeps its coverage.
set(KILN_ONNX_PROTO_SOURCES ${kiln_proto_dir}/kiln_onnx/onnx.pb.cc)
set(KILN_ONNX_PROTO_INCLUDE_DIR ${kiln_proto_dir})
set_source_files_properties(${KILN_ONNX_PROTO_SOURCES} PROPERTIES
                            COMPILE_OPTIONS "-w;-O2;-fno-sanitize=address,undefined")
