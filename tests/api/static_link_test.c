/* Linked against libkiln.a with --whole-archive (no shared library): the archive holds every
 * object the API needs. */
#include <kiln/kiln_c_api.h>

#include <stdio.h>

int main(void) {
  const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  KilnEnv* env = NULL;
  KilnStatus* status;
  if (api == NULL) return 1;
  status = api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "static", &env);
  if (status != NULL) {
    fprintf(stderr, "%s\n", api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return 1;
  }
  api->ReleaseEnv(env);
  printf("static link test: OK\n");
  return 0;
}
