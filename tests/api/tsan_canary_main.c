/* Loads the canary library (tsan_canary.c) like a plugin and makes it race. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  void* lib;
  int (*race)(void);
  if (argc != 2) return 2;
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "tsan_canary: %s\n", dlerror());
    return 2;
  }
  *(void**)&race = dlsym(lib, "kiln_tsan_canary_race");
  if (race == NULL) return 2;
  printf("tsan_canary: %d\n", race());
  return 0;
}
