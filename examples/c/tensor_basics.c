/*
 * tensor_basics: the C ABI in one page. Creates an Env, wraps a buffer of ours in a tensor without
 * copying it, reads back its element type and shape, and shows how an error comes back: as a
 * status naming the entry and the argument at fault.
 *
 * Then it gives Kiln an allocator of its own, which a tensor's memory comes from.
 *
 * Exits 0 when everything behaved as described, 1 otherwise. The manual (docs/manual) shows the
 * parts between the marker comments that name them.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kiln/kiln_c_api.h>

static const KilnApi* api;

/* Prints and releases a status; returns 1 when there was an error. */
static int report(KilnStatus* status, const char* what) {
  if (status == NULL) return 0;
  fprintf(stderr, "%s failed (code %d): %s\n", what, (int)api->GetErrorCode(status),
          api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  return 1;
}

/* [allocator] */
/* An allocator of the program's own: KilnAllocator comes first, so the `self` Kiln passes back is
 * the whole struct. It counts the blocks it has handed out (this program has one thread). */
typedef struct CountingAllocator {
  KilnAllocator base;
  size_t live;
} CountingAllocator;

static void* KILN_API_CALL counting_alloc(KilnAllocator* self, size_t size) {
  void* p = NULL;
  /* Tensor memory must be 64-byte aligned. */
  if (posix_memalign(&p, 64, size > 0 ? size : 1) != 0) return NULL;
  ((CountingAllocator*)self)->live++;
  return p;
}

static void KILN_API_CALL counting_free(KilnAllocator* self, void* p) {
  if (p == NULL) return;
  ((CountingAllocator*)self)->live--;
  free(p);
}
/* [allocator] */

int main(void) {
  KilnEnv* env = NULL;
  KilnMemoryInfo* cpu = NULL;
  KilnValue* tensor = NULL;
  KilnTensorTypeAndShapeInfo* info = NULL;
  float data[2][3] = {{0.5f, 1.5f, 2.5f}, {3.5f, 4.5f, 5.5f}};
  const int64_t shape[2] = {2, 3};
  int failed = 0;

  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) {
    fprintf(stderr, "this libkiln does not provide API version %d\n", KILN_API_VERSION);
    return 1;
  }
  printf("Kiln %s, API version %d\n", KilnGetApiBase()->GetVersionString(), KILN_API_VERSION);

  failed |= report(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "tensor_basics", &env), "CreateEnv");
  /* [wrap] */
  if (!failed) {
    failed |= report(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
                     "CreateCpuMemoryInfo");
  }
  if (!failed) {
    failed |= report(api->CreateTensorWithDataAsValue(cpu, data, sizeof data, shape, 2,
                                                      KILN_ELEMENT_TYPE_FLOAT, &tensor),
                     "CreateTensorWithDataAsValue");
  }
  /* [wrap] */
  if (!failed) failed |= report(api->GetTensorTypeAndShape(tensor, &info), "GetTensorTypeAndShape");
  if (!failed) {
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    size_t rank = 0, count = 0;
    int64_t dims[2] = {0, 0};
    void* p = NULL;
    failed |= report(api->GetTensorElementType(info, &type), "GetTensorElementType");
    failed |= report(api->GetDimensionsCount(info, &rank), "GetDimensionsCount");
    failed |= report(api->GetDimensions(info, dims, 2), "GetDimensions");
    failed |= report(api->GetTensorShapeElementCount(info, &count), "GetTensorShapeElementCount");
    failed |= report(api->GetTensorMutableData(tensor, &p), "GetTensorMutableData");
    if (!failed) {
      printf("tensor: element type %d (float), rank %zu, shape [%lld, %lld], %zu elements\n",
             (int)type, rank, (long long)dims[0], (long long)dims[1], count);
      printf("no copy: the tensor's data %s our buffer; element [1][2] = %.1f\n",
             p == (void*)data ? "is" : "is NOT", ((float*)p)[5]);
      failed |= type != KILN_ELEMENT_TYPE_FLOAT || rank != 2 || dims[0] != 2 || dims[1] != 3 ||
                count != 6 || p != (void*)data;
    }
  }

  /* An error on purpose: 5 bytes cannot hold a 2x3 float tensor. */
  /* [error] */
  if (!failed) {
    KilnValue* wrong = NULL;
    KilnStatus* status =
        api->CreateTensorWithDataAsValue(cpu, data, 5, shape, 2, KILN_ELEMENT_TYPE_FLOAT, &wrong);
    if (status == NULL) {
      fprintf(stderr, "a 5-byte buffer was accepted for 24 bytes of data\n");
      api->ReleaseValue(wrong);
      failed = 1;
    } else {
      printf("expected error, code %d: %s\n", (int)api->GetErrorCode(status),
             api->GetErrorMessage(status));
      failed |= api->GetErrorCode(status) != KILN_INVALID_ARGUMENT || wrong != NULL ||
                strstr(api->GetErrorMessage(status), "data_len") == NULL;
      api->ReleaseStatus(status);
    }
  }
  /* [error] */

  /* [use allocator] */
  if (!failed) {
    CountingAllocator mine = {
        {.version = KILN_API_VERSION, .Alloc = counting_alloc, .Free = counting_free}, 0};
    KilnValue* zeros = NULL;
    failed |=
        report(api->CreateTensorAsValue(&mine.base, shape, 2, KILN_ELEMENT_TYPE_FLOAT, &zeros),
               "CreateTensorAsValue");
    printf("own allocator: %zu block(s) live while the tensor lives", mine.live);
    failed |= mine.live != 1;
    api->ReleaseValue(zeros); /* its memory goes back through counting_free */
    printf(", %zu after ReleaseValue\n", mine.live);
    failed |= mine.live != 0;
  }
  /* [use allocator] */

  api->ReleaseTensorTypeAndShapeInfo(info);
  api->ReleaseValue(tensor);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseEnv(env);
  printf(failed ? "tensor_basics: FAILED\n" : "tensor_basics: OK\n");
  return failed;
}
