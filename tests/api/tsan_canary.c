/*
 * ThreadSanitizer is live (tsan preset): two threads increment one global without a lock, in a
 * library loaded like libkiln.so -- by the test program (tsan_canary_main.c) and by Python through
 * ctypes, with GCC's runtime preloaded. Both must report the race; a build or a preload in which
 * TSan saw nothing would pass the real tests without checking anything.
 */
#include <pthread.h>

static int counter;

static void* bump(void* arg) {
  int i;
  (void)arg;
  for (i = 0; i < 100000; ++i) ++counter;
  return 0;
}

__attribute__((visibility("default"))) int kiln_tsan_canary_race(void) {
  pthread_t threads[2];
  int t;
  for (t = 0; t < 2; ++t) pthread_create(&threads[t], 0, bump, 0);
  for (t = 0; t < 2; ++t) pthread_join(threads[t], 0);
  return counter;
}
