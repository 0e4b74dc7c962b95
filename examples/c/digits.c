/*
 * The bundled demo: classifies the held-out 8x8 digits with the small CNN in examples/digits,
 * through the C ABI, and checks the accuracy against the one recorded at training time.
 *
 *   digits DIR      (DIR holds digits.onnx, heldout.bin and expected.txt)
 *
 * Exit status 0 when the accuracy equals the recorded one, 1 otherwise or on any error.
 *
 * The manual (docs/manual) shows the parts between the marker comments that name them.
 */
#define _POSIX_C_SOURCE 199309L
#include <kiln/kiln_c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const KilnApi* api;

/* [check] */
/* Prints a failed status and exits. */
static void check(KilnStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "digits: %s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}
/* [check] */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* heldout.bin: "KDIG", uint32 count N, N*64 float32 pixels, N uint8 labels (little-endian). */
static int read_heldout(const char* path, uint32_t* count, float** pixels, uint8_t** labels) {
  FILE* f = fopen(path, "rb");
  char magic[4];
  if (f == NULL) return 0;
  if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "KDIG", 4) != 0 ||
      fread(count, sizeof *count, 1, f) != 1 || *count == 0 || *count > 100000) {
    fclose(f);
    return 0;
  }
  *pixels = malloc((size_t)*count * 64 * sizeof(float));
  *labels = malloc(*count);
  if (*pixels == NULL || *labels == NULL ||
      fread(*pixels, sizeof(float), (size_t)*count * 64, f) != (size_t)*count * 64 ||
      fread(*labels, 1, *count, f) != *count) {
    fclose(f);
    return 0;
  }
  fclose(f);
  return 1;
}

int main(int argc, char** argv) {
  char path[4096];
  uint32_t count = 0, correct = 0, i;
  float* pixels = NULL;
  uint8_t* labels = NULL;
  unsigned expected_correct = 0, expected_count = 0;
  double total_ms = 0;
  const char* dir = argc > 1 ? argv[1] : "examples/digits";
  KilnEnv* env = NULL;
  KilnSessionOptions* options = NULL;
  KilnSession* session = NULL;
  KilnMemoryInfo* cpu = NULL;
  FILE* expected;

  /* [get api] */
  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) return 1;
  /* [get api] */

  snprintf(path, sizeof path, "%s/heldout.bin", dir);
  if (!read_heldout(path, &count, &pixels, &labels)) {
    fprintf(stderr, "digits: cannot read %s\n", path);
    return 1;
  }
  snprintf(path, sizeof path, "%s/expected.txt", dir);
  expected = fopen(path, "r");
  if (expected == NULL ||
      fscanf(expected, "correct %u %u", &expected_correct, &expected_count) != 2) {
    fprintf(stderr, "digits: cannot read %s\n", path);
    return 1;
  }
  fclose(expected);

  /* [create session] */
  check(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "digits", &env), "CreateEnv");
  check(api->CreateSessionOptions(&options), "CreateSessionOptions");
  check(api->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads");
  snprintf(path, sizeof path, "%s/digits.onnx", dir);
  check(api->CreateSession(env, path, options, &session), "CreateSession");
  check(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
        "CreateCpuMemoryInfo");
  /* [create session] */

  /* [run] */
  for (i = 0; i < count; ++i) {
    const int64_t shape[4] = {1, 1, 8, 8};
    const char* input_name = "image";
    const char* output_name = "logits";
    KilnValue* image = NULL;
    KilnValue* logits = NULL;
    float* scores = NULL;
    double start;
    int best = 0, k;
    check(api->CreateTensorWithDataAsValue(cpu, pixels + (size_t)i * 64, 64 * sizeof(float), shape,
                                           4, KILN_ELEMENT_TYPE_FLOAT, &image),
          "CreateTensorWithDataAsValue");
    start = now_ms();
    check(api->Run(session, NULL, &input_name, (const KilnValue* const*)&image, 1, &output_name, 1,
                   &logits),
          "Run");
    total_ms += now_ms() - start;
    check(api->GetTensorMutableData(logits, (void**)&scores), "GetTensorMutableData");
    for (k = 1; k < 10; ++k) {
      if (scores[k] > scores[best]) best = k;
    }
    if (best == labels[i]) ++correct;
    api->ReleaseValue(logits);
    api->ReleaseValue(image);
  }
  /* [run] */

  printf(
      "digits: %u of %u held-out digits correct, accuracy %.6f (recorded at training: %u of %u)\n",
      correct, count, (double)correct / count, expected_correct, expected_count);
  printf("digits: mean latency %.4f ms per digit (batch 1, 1 thread)\n", total_ms / count);

  /* [release] */
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  /* [release] */
  free(pixels);
  free(labels);
  if (correct != expected_correct || count != expected_count) {
    fprintf(stderr, "digits: FAIL: the accuracy differs from the recorded one\n");
    return 1;
  }
  printf("digits: OK\n");
  return 0;
}
