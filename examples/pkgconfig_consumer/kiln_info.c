/*
 * A C99 program built with pkg-config against an installed Kiln (examples/pkgconfig_consumer):
 * loads a model with one float input, prints its first input and output, and runs it once on
 * zeros (every dimension the model leaves free set to 1).
 *
 *   kiln_info MODEL
 *
 * Prints the input and the output with their shapes, then "kiln_info: ran MODEL with Kiln
 * <version>: output <name> has N elements".
 */
#include <kiln/kiln_c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const KilnApi* api;

static void check(KilnStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "kiln_info: %s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

/* Prints an input's or output's shape ("?" for a free dimension) and stores it in dims. */
static size_t print_shape(const char* kind, const char* name, KilnTensorTypeAndShapeInfo* info,
                          int64_t* dims, size_t max_dims) {
  size_t rank = 0, i;
  check(api->GetDimensionsCount(info, &rank), "GetDimensionsCount");
  if (rank > max_dims) {
    fprintf(stderr, "kiln_info: %s %s has rank %zu, more than %zu\n", kind, name, rank, max_dims);
    exit(1);
  }
  check(api->GetDimensions(info, dims, rank), "GetDimensions");
  printf("%-6s %s [", kind, name);
  for (i = 0; i < rank; ++i) {
    if (dims[i] < 0) {
      printf("%s?", i ? ", " : "");
    } else {
      printf("%s%lld", i ? ", " : "", (long long)dims[i]);
    }
  }
  printf("]\n");
  api->ReleaseTensorTypeAndShapeInfo(info);
  return rank;
}

int main(int argc, char** argv) {
  KilnEnv* env = NULL;
  KilnSession* session = NULL;
  KilnAllocator* allocator = NULL;
  KilnValue* input = NULL;
  KilnValue* output = NULL;
  KilnTensorTypeAndShapeInfo* info = NULL;
  KilnTensorTypeAndShapeInfo* output_info = NULL;
  char* input_name = NULL;
  char* output_name = NULL;
  int64_t dims[8], out_dims[8];
  size_t rank, count = 0, i;
  size_t elements = 1;

  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) return 1;
  check(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "kiln_info", &env), "CreateEnv");
  check(api->CreateSession(env, argv[1], NULL, &session), "CreateSession");
  check(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");

  check(api->SessionGetInputCount(session, &count), "SessionGetInputCount");
  if (count != 1) {
    fprintf(stderr, "kiln_info: runs models with one input only (this one has %zu)\n", count);
    return 1;
  }
  check(api->SessionGetInputName(session, 0, allocator, &input_name), "SessionGetInputName");
  check(api->CreateSessionInputTensorInfo(session, 0, &info), "CreateSessionInputTensorInfo");
  rank = print_shape("input", input_name, info, dims, 8);
  for (i = 0; i < rank; ++i) {
    if (dims[i] < 0) dims[i] = 1;
  }
  check(api->SessionGetOutputName(session, 0, allocator, &output_name), "SessionGetOutputName");
  check(api->CreateSessionOutputTensorInfo(session, 0, &info), "CreateSessionOutputTensorInfo");
  print_shape("output", output_name, info, out_dims, 8);

  /* CreateTensorAsValue's memory is uninitialized: zero it. */
  check(api->CreateTensorAsValue(allocator, dims, rank, KILN_ELEMENT_TYPE_FLOAT, &input),
        "CreateTensorAsValue");
  {
    float* data = NULL;
    for (i = 0; i < rank; ++i) elements *= (size_t)dims[i];
    check(api->GetTensorMutableData(input, (void**)&data), "GetTensorMutableData");
    for (i = 0; i < elements; ++i) data[i] = 0.0f;
  }
  check(api->Run(session, NULL, (const char* const*)&input_name, (const KilnValue* const*)&input, 1,
                 (const char* const*)&output_name, 1, &output),
        "Run");
  check(api->GetTensorTypeAndShape(output, &output_info), "GetTensorTypeAndShape");
  check(api->GetTensorShapeElementCount(output_info, &elements), "GetTensorShapeElementCount");
  printf("kiln_info: ran %s with Kiln %s: output %s has %zu elements\n", argv[1],
         KilnGetApiBase()->GetVersionString(), output_name, elements);

  api->ReleaseTensorTypeAndShapeInfo(output_info);
  api->ReleaseValue(output);
  api->ReleaseValue(input);
  check(api->AllocatorFree(allocator, input_name), "AllocatorFree");
  check(api->AllocatorFree(allocator, output_name), "AllocatorFree");
  api->ReleaseSession(session);
  api->ReleaseEnv(env);
  return 0;
}
