# kiln_gtest(TARGET [SHARDS N] [ENVIRONMENT VAR=VALUE...]): registers a GoogleTest executable.
#
# Release build: one ctest test per test case (gtest_discover_tests), so a failure names its case.
# Sanitizer builds: the cases run in N processes (default 1) through GoogleTest's own sharding
# (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX), as tests named TARGET or TARGET/shard_I_of_N. Starting
# an instrumented executable costs about a second, more than most cases take: one process per case
# made the ASan run 28 minutes, mostly start-up. The shard's output names a failing case; the exit
# status still decides (a LeakSanitizer report at exit fails the shard), and a shard that ran no
# case fails (N must not exceed the executable's number of cases).
function(kiln_gtest target)
  cmake_parse_arguments(arg "" "SHARDS" "ENVIRONMENT" ${ARGN})
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
