/* Leaks a tensor on purpose. In the sanitizer build LeakSanitizer must report it and fail the
 * process (the test expects failure): proof that a handle nobody releases is caught, even though
 * Kiln's handle registry remembers it. */
#include <kiln/kiln_c_api.h>

int main(void) {
  const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  KilnAllocator* allocator = NULL;
  KilnValue* leaked = NULL;
  const int64_t shape[1] = {16};
  if (api == NULL || api->GetAllocatorWithDefaultOptions(&allocator) != NULL) return 0;
  if (api->CreateTensorAsValue(allocator, shape, 1, KILN_ELEMENT_TYPE_FLOAT, &leaked) != NULL) {
    return 0;
  }
  leaked = NULL; /* the last reference is gone */
  return 0;
}
