/*
 * Loads and unloads libkiln.so like a plugin host (issue 32, part 4): each cycle dlopen()s the
 * library with RTLD_LOCAL, creates an Env and sessions (from a file, from bytes, a refused model),
 * runs them on the calling thread and on three threads of its own at once (the sessions' pools
 * start threads of their own too) and once through RunAsync (whose pool of workers lives as long
 * as the library), releases everything and dlclose()s it. After every cycle:
 *   - dlopen(RTLD_NOLOAD) must not find the library, and /proc/self/maps must not map it;
 *   - /proc/self/task must hold as many threads as before the cycle (no thread left behind).
 * Under ASan/LSan (the asan preset) a leak in any cycle fails the process at exit.
 *
 *   kiln_unload_test LIBKILN DIGITS_DIR [CYCLES]      prints "unload: OK: N cycles" on success
 *   kiln_unload_test --mutant-keep-open LIBKILN DIGITS_DIR
 *       leaves one extra reference open each cycle; must fail (proof that the checks bite)
 *   kiln_unload_test --mutant-leave-thread LIBKILN DIGITS_DIR
 *       leaves a thread of its own running each cycle; must fail
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <kiln/kiln_c_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef const KilnApiBase*(KILN_API_CALL* GetApiBaseFn)(void);

static const KilnApi* api;

static void fail(const char* what) {
  fprintf(stderr, "unload: FAIL: %s\n", what);
  exit(1);
}

static void check(KilnStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "unload: FAIL: %s: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

static int count_threads(void) {
  int n = 0;
  struct dirent* e;
  DIR* d = opendir("/proc/self/task");
  if (d == NULL) fail("cannot open /proc/self/task");
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n;
}

/* Whether /proc/self/maps maps a file whose path is `path` (as the loader resolved it). */
static int mapped(const char* path) {
  char line[4096];
  int found = 0;
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) fail("cannot open /proc/self/maps");
  while (fgets(line, sizeof line, f) != NULL) {
    char* slash = strchr(line, '/');
    if (slash == NULL) continue;
    slash[strcspn(slash, "\n")] = '\0';
    if (strcmp(slash, path) == 0) found = 1;
  }
  fclose(f);
  return found;
}

static char* read_file(const char* path, size_t* size) {
  char* bytes;
  long n = 0;
  FILE* f = fopen(path, "rb");
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
    fail("cannot read the model");
  bytes = malloc((size_t)n);
  if (bytes == NULL || fread(bytes, 1, (size_t)n, f) != (size_t)n) fail("cannot read the model");
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

struct Job {
  KilnSession* session;
  KilnMemoryInfo* cpu;
  float pixels[64];
  int best;
};

/* Three runs of the digits CNN on one image; the winning class goes to job->best. */
static void* run_digits(void* arg) {
  struct Job* job = arg;
  const int64_t shape[4] = {1, 1, 8, 8};
  const char* input_name = "image";
  const char* output_name = "logits";
  int r, k;
  for (r = 0; r < 3; ++r) {
    KilnValue* image = NULL;
    KilnValue* logits = NULL;
    float* scores = NULL;
    check(api->CreateTensorWithDataAsValue(job->cpu, job->pixels, sizeof job->pixels, shape, 4,
                                           KILN_ELEMENT_TYPE_FLOAT, &image),
          "CreateTensorWithDataAsValue");
    check(api->Run(job->session, NULL, &input_name, (const KilnValue* const*)&image, 1,
                   &output_name, 1, &logits),
          "Run");
    check(api->GetTensorMutableData(logits, (void**)&scores), "GetTensorMutableData");
    job->best = 0;
    for (k = 1; k < 10; ++k) {
      if (scores[k] > scores[job->best]) job->best = k;
    }
    api->ReleaseValue(logits);
    api->ReleaseValue(image);
  }
  return NULL;
}

static void* sleep_forever(void* arg) {
  (void)arg;
  for (;;) {
    const struct timespec hour = {3600, 0};
    nanosleep(&hour, NULL);
  }
  return NULL;
}

enum Mutant { kNone, kKeepOpen, kLeaveThread };

/* RunAsync's completion: the callback signals the waiting cycle. */
struct AsyncDone {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int done;
  int ok;
};

static void KILN_API_CALL async_done(void* user_data, KilnValue** outputs, size_t output_count,
                                     KilnStatus* status) {
  struct AsyncDone* d = user_data;
  int ok = status == NULL && output_count == 1 && outputs[0] != NULL;
  if (status != NULL) api->ReleaseStatus(status);
  if (outputs[0] != NULL) api->ReleaseValue(outputs[0]);
  pthread_mutex_lock(&d->mutex);
  d->ok = ok;
  d->done = 1;
  pthread_cond_signal(&d->cond);
  pthread_mutex_unlock(&d->mutex);
}

static void run_async(struct Job* job) {
  const int64_t shape[4] = {1, 1, 8, 8};
  const char* input_name = "image";
  const char* output_name = "logits";
  KilnValue* image = NULL;
  KilnValue* logits = NULL;
  struct AsyncDone done;
  pthread_mutex_init(&done.mutex, NULL);
  pthread_cond_init(&done.cond, NULL);
  done.done = 0;
  done.ok = 0;
  check(api->CreateTensorWithDataAsValue(job->cpu, job->pixels, sizeof job->pixels, shape, 4,
                                         KILN_ELEMENT_TYPE_FLOAT, &image),
        "CreateTensorWithDataAsValue");
  check(api->RunAsync(job->session, NULL, &input_name, (const KilnValue* const*)&image, 1,
                      &output_name, 1, &logits, async_done, &done),
        "RunAsync");
  pthread_mutex_lock(&done.mutex);
  while (!done.done) pthread_cond_wait(&done.cond, &done.mutex);
  pthread_mutex_unlock(&done.mutex);
  pthread_cond_destroy(&done.cond);
  pthread_mutex_destroy(&done.mutex);
  api->ReleaseValue(image);
  if (!done.ok) fail("RunAsync failed");
}

static void cycle(const char* lib, const char* model_path, const char* model_bytes,
                  size_t model_size, enum Mutant mutant) {
  enum { kThreads = 3 };
  KilnEnv* env = NULL;
  KilnSessionOptions* options = NULL;
  KilnSession* from_file = NULL;
  KilnSession* from_bytes = NULL;
  KilnSession* refused = NULL;
  KilnMemoryInfo* cpu = NULL;
  KilnStatus* status;
  pthread_t threads[kThreads];
  struct Job jobs[kThreads + 1];
  GetApiBaseFn get_api_base;
  int t, i;
  void* handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) fail(dlerror());
  if (mutant == kKeepOpen && dlopen(lib, RTLD_NOW | RTLD_LOCAL) == NULL) fail(dlerror());
  if (mutant == kLeaveThread) {
    pthread_t left;
    if (pthread_create(&left, NULL, sleep_forever, NULL) != 0) fail("pthread_create");
    pthread_detach(left);
  }
  *(void**)&get_api_base = dlsym(handle, "KilnGetApiBase");
  if (get_api_base == NULL) fail("no KilnGetApiBase in the library");
  api = get_api_base()->GetApi(KILN_API_VERSION);
  if (api == NULL) fail("GetApi(KILN_API_VERSION) returned NULL");

  check(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "unload", &env), "CreateEnv");
  check(api->CreateSessionOptions(&options), "CreateSessionOptions");
  check(api->SetIntraOpNumThreads(options, 2), "SetIntraOpNumThreads");
  check(api->CreateSession(env, model_path, options, &from_file), "CreateSession");
  check(api->CreateSessionFromArray(env, model_bytes, model_size, options, &from_bytes),
        "CreateSessionFromArray");
  /* A model the loader refuses (truncated bytes): an error status, nothing made. */
  status = api->CreateSessionFromArray(env, model_bytes, model_size / 2, options, &refused);
  if (status == NULL || refused != NULL) fail("a truncated model was accepted");
  api->ReleaseStatus(status);
  check(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
        "CreateCpuMemoryInfo");

  for (t = 0; t <= kThreads; ++t) {
    jobs[t].session = t % 2 == 0 ? from_file : from_bytes;
    jobs[t].cpu = cpu;
    for (i = 0; i < 64; ++i) jobs[t].pixels[i] = (float)((i * 7 + t * 13) % 17) / 16.0f;
  }
  for (t = 0; t < kThreads; ++t) {
    if (pthread_create(&threads[t], NULL, run_digits, &jobs[t]) != 0) fail("pthread_create");
  }
  run_digits(&jobs[kThreads]);
  for (t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  run_async(&jobs[0]);
  for (t = 0; t <= kThreads; ++t) {
    if (jobs[t].best < 0 || jobs[t].best > 9) fail("a run gave no class");
  }

  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(from_bytes);
  api->ReleaseSession(from_file);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  api = NULL;
  if (dlclose(handle) != 0) fail(dlerror());
}

int main(int argc, char** argv) {
  enum Mutant mutant = kNone;
  int cycles = 1000, c;
  const char* lib;
  char model_path[4096];
  char resolved[4096];
  char* model_bytes;
  size_t model_size = 0;
  int threads_before;
  if (argc > 1 && strncmp(argv[1], "--mutant-", 9) == 0) {
    if (strcmp(argv[1], "--mutant-keep-open") == 0) {
      mutant = kKeepOpen;
    } else if (strcmp(argv[1], "--mutant-leave-thread") == 0) {
      mutant = kLeaveThread;
    } else {
      fprintf(stderr, "kiln_unload_test: unknown option %s\n", argv[1]);
      return 2;
    }
    ++argv;
    --argc;
  }
  if (argc < 3) {
    fprintf(stderr,
            "usage: kiln_unload_test [--mutant-keep-open | --mutant-leave-thread] LIBKILN "
            "DIGITS_DIR [CYCLES]\n");
    return 2;
  }
  lib = argv[1];
  if (argc > 3) cycles = atoi(argv[3]);
  if (realpath(lib, resolved) == NULL) fail("cannot resolve the library's path");
  snprintf(model_path, sizeof model_path, "%s/digits.onnx", argv[2]);
  model_bytes = read_file(model_path, &model_size);

  if (mapped(resolved)) fail("the library is mapped before the first dlopen");
  threads_before = count_threads();
  for (c = 0; c < cycles; ++c) {
    int threads_after = 0, wait;
    void* again;
    cycle(lib, model_path, model_bytes, model_size, mutant);
    again = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (again != NULL) {
      fprintf(stderr, "unload: FAIL: cycle %d: the library is still loaded after dlclose\n", c);
      return 1;
    }
    if (mapped(resolved)) {
      fprintf(stderr, "unload: FAIL: cycle %d: %s is still mapped after dlclose\n", c, resolved);
      return 1;
    }
    /* A joined thread leaves /proc/self/task a moment after pthread_join returns: up to 2 s. */
    for (wait = 0; wait < 200; ++wait) {
      const struct timespec ms10 = {0, 10000000};
      threads_after = count_threads();
      if (threads_after == threads_before) break;
      nanosleep(&ms10, NULL);
    }
    if (threads_after != threads_before) {
      fprintf(stderr, "unload: FAIL: cycle %d: %d threads before, %d after\n", c, threads_before,
              threads_after);
      return 1;
    }
  }
  free(model_bytes);
  printf("unload: OK: %d cycles, the library unmapped and %d thread(s) after each\n", cycles,
         threads_before);
  return 0;
}
