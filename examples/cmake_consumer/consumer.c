/*
 * A C99 program built against an installed Kiln (examples/cmake_consumer): classifies the
 * held-out 8x8 digits with the bundled CNN in one batch and prints how many it got right.
 *
 *   kiln_consumer_c MODEL HELDOUT     (examples/digits/digits.onnx, examples/digits/heldout.bin)
 *
 * Prints "<name> (<link>, Kiln <version>): C of N held-out digits correct"; exit status 0 unless
 * something failed.
 */
#include <kiln/kiln_c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KILN_CONSUMER_LINK
#define KILN_CONSUMER_LINK "libkiln"
#endif

static const KilnApi* api;

static void check(KilnStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "kiln_consumer_c: %s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

/* heldout.bin: "KDIG", uint32 count N, N*64 float32 pixels, N uint8 labels (little-endian). */
static int read_heldout(const char* path, uint32_t* count, float** pixels, uint8_t** labels) {
  FILE* f = fopen(path, "rb");
  char magic[4];
  int ok;
  if (f == NULL) return 0;
  ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "KDIG", 4) == 0 &&
       fread(count, sizeof *count, 1, f) == 1 && *count > 0 && *count <= 100000;
  if (ok) {
    *pixels = malloc((size_t)*count * 64 * sizeof(float));
    *labels = malloc(*count);
    ok = *pixels != NULL && *labels != NULL &&
         fread(*pixels, sizeof(float), (size_t)*count * 64, f) == (size_t)*count * 64 &&
         fread(*labels, 1, *count, f) == *count;
  }
  fclose(f);
  return ok;
}

int main(int argc, char** argv) {
  const char* input_name = "image";
  const char* output_name = "logits";
  uint32_t count = 0, correct = 0, i;
  float* pixels = NULL;
  float* scores = NULL;
  uint8_t* labels = NULL;
  int64_t shape[4] = {0, 1, 8, 8};
  KilnEnv* env = NULL;
  KilnSession* session = NULL;
  KilnMemoryInfo* cpu = NULL;
  KilnValue* image = NULL;
  KilnValue* logits = NULL;

  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL HELDOUT\n", argv[0]);
    return 2;
  }
  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) {
    fprintf(stderr, "kiln_consumer_c: this libkiln does not serve API version %d\n",
            KILN_API_VERSION);
    return 1;
  }
  if (!read_heldout(argv[2], &count, &pixels, &labels)) {
    fprintf(stderr, "kiln_consumer_c: cannot read %s\n", argv[2]);
    return 1;
  }

  check(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "kiln_consumer_c", &env), "CreateEnv");
  check(api->CreateSession(env, argv[1], NULL, &session), "CreateSession");
  check(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
        "CreateCpuMemoryInfo");
  shape[0] = count;
  check(api->CreateTensorWithDataAsValue(cpu, pixels, (size_t)count * 64 * sizeof(float), shape, 4,
                                         KILN_ELEMENT_TYPE_FLOAT, &image),
        "CreateTensorWithDataAsValue");
  check(api->Run(session, NULL, &input_name, (const KilnValue* const*)&image, 1, &output_name, 1,
                 &logits),
        "Run");
  check(api->GetTensorMutableData(logits, (void**)&scores), "GetTensorMutableData");
  for (i = 0; i < count; ++i) {
    const float* row = scores + (size_t)i * 10;
    int best = 0, k;
    for (k = 1; k < 10; ++k) {
      if (row[k] > row[best]) best = k;
    }
    if (best == labels[i]) ++correct;
  }
  printf("kiln_consumer_c (%s, Kiln %s): %u of %u held-out digits correct\n", KILN_CONSUMER_LINK,
         KilnGetApiBase()->GetVersionString(), correct, count);

  api->ReleaseValue(logits);
  api->ReleaseValue(image);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
  api->ReleaseEnv(env);
  free(pixels);
  free(labels);
  return 0;
}
