#!/usr/bin/env bash
# Link checks on the built libkiln.so (DESIGN.md §3 rule 1).
#   link_checks.sh exports|defs|no-static-init|soname LIBRARY
set -euo pipefail
check=$1
lib=$2
case "$check" in
  exports)
    # The only dynamic symbol the library defines is KilnGetApiBase (plus the version node).
    defined=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
    echo "defined dynamic symbols: $defined"
    [ "$defined" = "KilnGetApiBase" ] || { echo "FAIL: unexpected exports"; exit 1; }
    ;;
  defs)
    # Every undefined symbol resolves against the library's own DT_NEEDED list (what -z defs
    # enforces at link time); ldd -r performs the relocations and reports any that do not.
    out=$(ldd -r "$lib" 2>&1)
    echo "$out"
    if echo "$out" | grep -q 'undefined symbol'; then echo "FAIL: undefined symbols"; exit 1; fi
    ;;
  no-static-init)
    # Nothing runs at load time (DESIGN.md §3 rule 10): no dynamic initialisers of globals. The
    # one exception is libstdc++'s std::ios_base::Init, which protobuf's headers (<iostream> in
    # google/protobuf/stubs/common.h) put in the files that include them, src/onnx/*.cc:
    # their initialisers may call that and __cxa_atexit, nothing else (and, in Clang's ASan
    # build, the sanitizer's init-order bracket __asan_before/after_dynamic_init). GCC's local
    # helper is __static_initialization_and_destruction_0, Clang's __cxx_global_var_init.
    init=$(nm "$lib" | grep -E '_GLOBAL__sub_I[._]|_GLOBAL__I_' | awk '{print $3}' || true)
    for fn in $init; do
      case "$fn" in
        _GLOBAL__sub_I_loader.cc|_GLOBAL__sub_I_tensor_proto.cc|_GLOBAL__sub_I_writer.cc) ;;
        _GLOBAL__sub_I_text_parser.cc) ;;
        # The generated kiln_onnx messages (cmake/KilnOnnxProto.cmake): their default instances
        # are constant-initialised; protoc's initialisers only register the instances' empty
        # destructors with __cxa_atexit (one of them at init priority 101).
        _GLOBAL__sub_I_onnx.pb.cc|_GLOBAL__sub_I.00101_onnx.pb.cc) ;;
        *) echo "FAIL: static initialiser $fn"; exit 1 ;;
      esac
      # The calls the initialiser makes, following local helpers one level down.
      body=$(objdump -d --no-show-raw-insn -C "$lib" --disassemble="$fn")
      helpers=$(echo "$body" | grep -oE '(call|jmp) +[0-9a-f]+ <[^>]*(static_initialization|__cxx_global_var_init)[^>]*>' |
                sed -E 's/.*<([^>+]*).*/\1/' | sort -u || true)
      for h in $helpers; do body+=$'\n'$(objdump -d --no-show-raw-insn "$lib" --disassemble="$h"); done
      targets=$(echo "$body" | grep -oE '(call|jmp) +[0-9a-f]+ <[^>]*>' | sed -E 's/.*<(.*)>/\1/' |
                grep -vE "^$fn\+|static_initialization|__cxx_global_var_init|^std::ios_base::Init::Init\(\)@plt$|^_ZNSt8ios_base4InitC1Ev@plt$|^__cxa_atexit@plt$|^__asan_(before|after)_dynamic_init@plt$" || true)
      [ -z "$targets" ] || { echo "FAIL: $fn calls $targets"; exit 1; }
      echo "$fn: only std::ios_base::Init (from protobuf's <iostream>) and __cxa_atexit"
    done
    ;;
  soname)
    soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    echo "soname: $soname"
    [[ "$soname" =~ ^libkiln\.so\.[0-9]+$ ]] || { echo "FAIL: soname"; exit 1; }
    ;;
  *)
    echo "unknown check $check" >&2
    exit 2
    ;;
esac
echo "OK"
