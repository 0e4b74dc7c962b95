# kiln_test_code(TARGET): the tests' own code in the release build at -O1 with line tables only
# (-g1), not the build type's -O2 -g. The library they test keeps its flags; the test code is
# GoogleTest's macros and templates, and -O2 with full debug information nearly doubled its
# compile time, a large part of a cold make test (measured: session_test.cc 15.9 s at -O2 -g,
# 9.0 s at -O1 -g1). The sanitizer builds (Debug) are left as they are.
function(kiln_test_code target)
  target_compile_options(${target} PRIVATE "$<$<CONFIG:RelWithDebInfo,Release>:-O1;-g1>")
endfunction()

# kiln_gtest(TARGET [TSAN] [SHARDS N] [ENVIRONMENT VAR=VALUE...]): registers a GoogleTest
# executable.
#
# Release build: one ctest test per test case (gtest_discover_tests), so a failure names its case.
# Sanitizer builds: the cases run in N processes (default 1) through GoogleTest's own sharding
# (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX), as tests named TARGET or TARGET/shard_I_of_N. Starting
# an instrumented executable costs about a second, more than most cases take: one process per case
# made the ASan run 28 minutes, mostly start-up. The shard's output names a failing case; the exit
# status still decides (a LeakSanitizer report at exit fails the shard), and a shard that ran no
# case fails (N must not exceed the executable's number of cases).
#
# TSAN: the executable also runs under ThreadSanitizer (the tsan preset, KILN_TSAN), as one test
# labelled "tsan" (the preset runs only those); a report fails it at once (halt_on_error).
# Without TSAN nothing is registered in that build.
function(kiln_gtest target)
  cmake_parse_arguments(arg "TSAN" "SHARDS" "ENVIRONMENT" ${ARGN})
  kiln_test_code(${target})
  if(KILN_TSAN)
    if(arg_TSAN)
      add_test(NAME ${target} COMMAND ${target})
      set_tests_properties(${target} PROPERTIES
        ENVIRONMENT "${KILN_TSAN_OPTIONS}" LABELS tsan
        FAIL_REGULAR_EXPRESSION "\\[  PASSED  \\] 0 tests;ThreadSanitizer")
    endif()
    return()
  endif()
  if(NOT KILN_SANITIZE)
    if(arg_ENVIRONMENT)
      gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST
                           PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
    else()
      gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST)
    endif()
    return()
  endif()
  if(NOT arg_SHARDS)
    set(arg_SHARDS 1)
  endif()
  math(EXPR last "${arg_SHARDS} - 1")
  foreach(i RANGE ${last})
    if(arg_SHARDS EQUAL 1)
      set(name ${target})
    else()
      set(name ${target}/shard_${i}_of_${arg_SHARDS})
    endif()
    add_test(NAME ${name} COMMAND ${target})
    set_tests_properties(${name} PROPERTIES
      ENVIRONMENT "GTEST_TOTAL_SHARDS=${arg_SHARDS};GTEST_SHARD_INDEX=${i};${arg_ENVIRONMENT}"
      FAIL_REGULAR_EXPRESSION "\\[  PASSED  \\] 0 tests")
  endforeach()
endfunction()

# What every test under ThreadSanitizer runs with: stop at the first report (the exit status and
# the output then fail the test); a huge allocation returns NULL as in the other builds (the
# tests that ask for one expect OUT_OF_MEMORY); the second stack of a lock-order report.
set(KILN_TSAN_OPTIONS
    "TSAN_OPTIONS=halt_on_error=1:allocator_may_return_null=1:second_deadlock_stack=1")
