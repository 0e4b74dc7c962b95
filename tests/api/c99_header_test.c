/* The public header is plain C99: this file is compiled with -std=c99 -Wall -Wextra -pedantic
 * -Werror and run. It touches every type the header declares. */
#include <kiln/kiln_c_api.h>

#include <stdio.h>

static void* KILN_API_CALL my_alloc(KilnAllocator* self, size_t size) {
  (void)self;
  (void)size;
  return NULL;
}
static void KILN_API_CALL my_free(KilnAllocator* self, void* p) {
  (void)self;
  (void)p;
}

int main(void) {
  const KilnApiBase* base = KilnGetApiBase();
  const KilnApi* api = base->GetApi(KILN_API_VERSION);
  KilnAllocator mine;
  KilnStatus* status;
  KilnValue* value = NULL;
  KilnElementType type = KILN_ELEMENT_TYPE_INT2;
  KilnValueType value_type = KILN_VALUE_TYPE_OPTIONAL;
  KilnLoggingLevel level = KILN_LOGGING_LEVEL_FATAL;
  KilnAllocatorType allocator_type = KILN_ARENA_ALLOCATOR;
  KilnMemType mem_type = KILN_MEM_TYPE_CPU_INPUT;
  KilnLoggingFunction logger = NULL;
  KilnEnv* env = NULL;
  KilnMemoryInfo* info = NULL;
  KilnTensorTypeAndShapeInfo* shape_info = NULL;
  const int64_t shape[1] = {4};
  int ok;

  if (api == NULL) return 1;
  mine.version = KILN_API_VERSION;
  mine.Alloc = my_alloc;
  mine.Free = my_free;
  mine.Info = NULL;
  /* An allocator that always fails gives OUT_OF_MEMORY, not a crash. */
  status = api->CreateTensorAsValue(&mine, shape, 1, KILN_ELEMENT_TYPE_FLOAT, &value);
  ok = api->GetErrorCode(status) == KILN_OUT_OF_MEMORY && value == NULL;
  printf("%s\n", api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  (void)type, (void)value_type, (void)level, (void)allocator_type, (void)mem_type, (void)logger;
  (void)env, (void)info, (void)shape_info;
  printf("c99 header test: %s (kiln %s)\n", ok ? "OK" : "FAILED", base->GetVersionString());
  return ok ? 0 : 1;
}
