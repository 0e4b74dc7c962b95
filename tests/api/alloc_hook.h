// Failure injection for the whole process: this test binary replaces the global operator new and
// delete (the library's allocations resolve to them too), counts live blocks, and can make the
// Nth allocation after Arm() fail — only that one, or that one and every later one.
#ifndef KILN_TESTS_API_ALLOC_HOOK_H_
#define KILN_TESTS_API_ALLOC_HOOK_H_

namespace kiln_test::alloc_hook {

void Arm(long n, bool sticky);
void Disarm();
// Between Pause() and Resume(), allocations neither count nor fail, and the count is kept: for a
// call that can only be made from inside a larger one (a custom op's callback), the larger one
// unhooked. Both do nothing unless armed.
void Pause();
void Resume();
long Injected();  // failures injected since the last Arm()
long Seen();      // allocations attempted since the last Arm()
long Live();      // blocks allocated and not yet freed, process-wide

}  // namespace kiln_test::alloc_hook

#endif  // KILN_TESTS_API_ALLOC_HOOK_H_
