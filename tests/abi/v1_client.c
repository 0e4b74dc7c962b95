/*
 * A program built against the frozen v1 headers (tests/abi/v1, never edited) and run against
 * today's libkiln: the ABI promise kept in practice. It classifies the held-out digits
 * (examples/digits) and checks the count against the one recorded at training time, and calls
 * slots across the table: the first (CreateStatus), the middle (SessionGetInputCount/Name), the
 * last of v1 (GetTensorData, slot 128), and the graph sub-table (CreateModelFromFile,
 * ModelGetIrVersion, and its last v1 slot, AttributeGetTypeProtoAt).
 *
 *   abi_v1_client DIR      (DIR holds digits.onnx, heldout.bin and expected.txt)
 *
 * Prints "abi v1 client: OK" and exits 0 on success.
 */
#include <kiln/kiln_c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const KilnApi* api;

static void check(KilnStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "abi v1 client: %s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

static void fail(const char* what) {
  fprintf(stderr, "abi v1 client: FAIL: %s\n", what);
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
  char path[4096];
  const char* dir = argc > 1 ? argv[1] : "examples/digits";
  uint32_t count = 0, correct = 0, i;
  unsigned expected_correct = 0, expected_count = 0;
  float* pixels = NULL;
  uint8_t* labels = NULL;
  FILE* expected;
  KilnStatus* status;
  KilnEnv* env = NULL;
  KilnSessionOptions* options = NULL;
  KilnSession* session = NULL;
  KilnMemoryInfo* cpu = NULL;
  KilnAllocator* allocator = NULL;
  size_t inputs = 0;
  char* input_name = NULL;
  const KilnGraphApi* graph;
  KilnModel* model = NULL;
  int64_t ir_version = 0;
  const KilnTypeInfo* type_info = NULL;

  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) fail("GetApi(1) returned NULL");
  printf("abi v1 client: header version %d, library %s\n", KILN_API_VERSION,
         KilnGetApiBase()->GetVersionString());

  /* Slots 0-3: a status made and read back. */
  status = api->CreateStatus(KILN_INVALID_ARGUMENT, "made by the v1 client");
  if (status == NULL || api->GetErrorCode(status) != KILN_INVALID_ARGUMENT ||
      strcmp(api->GetErrorMessage(status), "made by the v1 client") != 0)
    fail("CreateStatus/GetErrorCode/GetErrorMessage");
  api->ReleaseStatus(status);

  snprintf(path, sizeof path, "%s/heldout.bin", dir);
  if (!read_heldout(path, &count, &pixels, &labels)) fail("cannot read heldout.bin");
  snprintf(path, sizeof path, "%s/expected.txt", dir);
  expected = fopen(path, "r");
  if (expected == NULL ||
      fscanf(expected, "correct %u %u", &expected_correct, &expected_count) != 2)
    fail("cannot read expected.txt");
  fclose(expected);

  check(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "abi-v1-client", &env), "CreateEnv");
  check(api->CreateSessionOptions(&options), "CreateSessionOptions");
  check(api->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads");
  snprintf(path, sizeof path, "%s/digits.onnx", dir);
  check(api->CreateSession(env, path, options, &session), "CreateSession");
  check(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
        "CreateCpuMemoryInfo");

  /* The middle of the table: slots 14, 16, 52, 54. */
  check(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  check(api->SessionGetInputCount(session, &inputs), "SessionGetInputCount");
  check(api->SessionGetInputName(session, 0, allocator, &input_name), "SessionGetInputName");
  if (inputs != 1 || strcmp(input_name, "image") != 0) fail("the model's input is not 'image'");
  check(api->AllocatorFree(allocator, input_name), "AllocatorFree");

  for (i = 0; i < count; ++i) {
    const int64_t shape[4] = {1, 1, 8, 8};
    const char* in_name = "image";
    const char* out_name = "logits";
    KilnValue* image = NULL;
    KilnValue* logits = NULL;
    const void* data = NULL;
    const float* scores;
    int best = 0, k;
    check(api->CreateTensorWithDataAsValue(cpu, pixels + (size_t)i * 64, 64 * sizeof(float), shape,
                                           4, KILN_ELEMENT_TYPE_FLOAT, &image),
          "CreateTensorWithDataAsValue");
    check(api->Run(session, NULL, &in_name, (const KilnValue* const*)&image, 1, &out_name, 1,
                   &logits),
          "Run");
    /* The last slot of v1: slot 128. */
    check(api->GetTensorData(logits, &data), "GetTensorData");
    scores = (const float*)data;
    for (k = 1; k < 10; ++k) {
      if (scores[k] > scores[best]) best = k;
    }
    if (best == labels[i]) ++correct;
    api->ReleaseValue(logits);
    api->ReleaseValue(image);
  }
  printf("abi v1 client: %u of %u held-out digits correct (recorded: %u of %u)\n", correct, count,
         expected_correct, expected_count);
  if (correct != expected_correct || count != expected_count) fail("the accuracy differs");

  /* The graph sub-table: slot 127, then graph slots 1, 5, 4 and the last of v1, 103. */
  graph = api->GetGraphApi(KILN_GRAPH_API_VERSION);
  if (graph == NULL) fail("GetGraphApi returned NULL");
  check(graph->CreateModelFromFile(path, &model), "CreateModelFromFile");
  check(graph->ModelGetIrVersion(model, &ir_version), "ModelGetIrVersion");
  if (ir_version < 3) fail("ModelGetIrVersion");
  graph->ReleaseModel(model);
  status = graph->AttributeGetTypeProtoAt(NULL, 0, &type_info);
  if (status == NULL || api->GetErrorCode(status) != KILN_INVALID_ARGUMENT || type_info != NULL)
    fail("AttributeGetTypeProtoAt(NULL) did not fail with KILN_INVALID_ARGUMENT");
  api->ReleaseStatus(status);
  printf("abi v1 client: graph API: model IR version %lld\n", (long long)ir_version);

  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  free(pixels);
  free(labels);
  printf("abi v1 client: OK\n");
  return 0;
}
