// Counts the C allocations of the whole process (malloc, calloc, realloc, posix_memalign,
// aligned_alloc, memalign), for the allocation probe: a library that allocates with malloc (as
// oneDNN does) is seen as well as one that uses operator new (whose replacement in alloc_hook.cc
// allocates with malloc or posix_memalign, so it is counted here too). Built only without
// sanitizers, whose runtimes own these functions.
#ifndef KILN_TESTS_MODELS_C_ALLOC_COUNTER_H_
#define KILN_TESTS_MODELS_C_ALLOC_COUNTER_H_

namespace kiln_test::c_alloc_counter {

void Start();  // counts from zero
long Stop();   // stops counting; returns the allocations since Start()

}  // namespace kiln_test::c_alloc_counter

#endif  // KILN_TESTS_MODELS_C_ALLOC_COUNTER_H_
