/* Custom-op libraries for the C ABI tests (tests/api/custom_op_test.cc). One C99 source, built as
 * several shared libraries that differ only in what their KilnRegisterCustomOps registers, each
 * chosen by one -D flag (tests/api/CMakeLists.txt lists them):
 *
 *   KILN_TEST_OPS_GOOD                test.kiln.ops AddOne: Y = X + 1 (float)
 *   KILN_TEST_OPS_WRONG_SHAPE         AddOne whose Compute allocates Y one column too wide
 *   KILN_TEST_OPS_NO_ENTRY            exports no KilnRegisterCustomOps (KilnRegisterCustomOp)
 *   KILN_TEST_OPS_EMPTY               registers nothing
 *   KILN_TEST_OPS_DUPLICATE           registers AddOne twice
 *   KILN_TEST_OPS_LARGER_ZERO         AddOne, its struct_size past Kiln's, the extra bytes zero
 *   KILN_TEST_OPS_LARGER_NONZERO      the same with an extra byte set (a newer feature)
 *   KILN_TEST_OPS_SMALLER             AddOne, struct_size = offsetof(KilnCustomOp, DestroyKernel)
 *                                     (one static kernel for all nodes: nothing to destroy)
 *   KILN_TEST_OPS_BAD_ELEMENT_TYPE    AddOne whose type parameter allows element type 999
 *   KILN_TEST_OPS_VARIADIC_NOT_LAST   AddOne with a variadic first input and a second one
 *   KILN_TEST_OPS_UNKNOWN_TYPE_PARAM  AddOne whose input names type parameter "U" (there is none)
 *   KILN_TEST_OPS_UNBOUND_TYPE_PARAM  AddOne with a type parameter "U" no argument uses
 *   KILN_TEST_OPS_HUGE_COUNT          AddOne with a garbage input_count
 *   KILN_TEST_OPS_OVERRIDE            Relu of the default domain (overrides_builtin): leaky
 *   KILN_TEST_OPS_OVERRIDE_UNFLAGGED  the same without overrides_builtin
 *
 * AddOne's attribute fail_in (a STRING: "InferShapes", "CreateKernel", "Compute" or
 * "DestroyKernel") makes that callback of the node fail with KILN_ENGINE_ERROR and a message
 * saying so. None of these libraries links libkiln: Kiln's table comes through the KilnApiBase
 * the registration function is given. Every build also exports KilnTestOpsCalls, which the tests
 * read through dlsym to count the callbacks Kiln made.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kiln_c_api.h"

static const KilnApi* g_api;

/* ---- Callback counts ------------------------------------------------------------------------ */

enum { kInferShapes, kCreateKernel, kCompute, kDestroyKernel, kReleaseOpState, kCallbackKinds };
static const char* const kCallbackNames[kCallbackKinds] = {"InferShapes", "CreateKernel", "Compute",
                                                           "DestroyKernel", "ReleaseOpState"};
static long g_calls[kCallbackKinds];

static void Count(int callback) {
  __atomic_fetch_add(&g_calls[callback], 1, __ATOMIC_RELAXED);
}

/* How many times Kiln called `callback` (one of the names above) in this library; -1 for another
 * name. */
KILN_EXPORT long KilnTestOpsCalls(const char* callback) {
  int i;
  for (i = 0; i < kCallbackKinds; ++i) {
    if (strcmp(callback, kCallbackNames[i]) == 0) {
      return __atomic_load_n(&g_calls[i], __ATOMIC_RELAXED);
    }
  }
  return -1;
}

/* ---- Helpers -------------------------------------------------------------------------------- */

#define kMaxRank 8

/* A failure fail_in asked for. */
static KilnStatus* Told(const char* callback) {
  char message[96];
  strcpy(message, "test_ops was told to fail in ");
  strcat(message, callback);
  return g_api->CreateStatus(KILN_ENGINE_ERROR, message);
}

/* The node's fail_in names `callback`. */
static KilnStatus* FailIn(const KilnKernelInfo* info, const char* callback, int* yes) {
  const char* fail_in = NULL;
  KilnStatus* s = g_api->KernelInfoGetAttributeString(info, "fail_in", &fail_in);
  *yes = s == NULL && strcmp(fail_in, callback) == 0;
  return s;
}

/* The element count, rank and dimensions of a tensor (at most kMaxRank). */
static KilnStatus* ShapeOf(const KilnValue* v, int64_t* dims, size_t* rank, size_t* count) {
  KilnTensorTypeAndShapeInfo* info = NULL;
  KilnStatus* s = g_api->GetTensorTypeAndShape(v, &info);
  if (s == NULL) s = g_api->GetDimensionsCount(info, rank);
  if (s == NULL && *rank > kMaxRank) s = g_api->CreateStatus(KILN_INVALID_ARGUMENT, "rank > 8");
  if (s == NULL) s = g_api->GetDimensions(info, dims, *rank);
  if (s == NULL) s = g_api->GetTensorShapeElementCount(info, count);
  g_api->ReleaseTensorTypeAndShapeInfo(info);
  return s;
}

/* ---- AddOne --------------------------------------------------------------------------------- */

typedef struct AddOneKernel {
  int fail_in_compute;
  int fail_in_destroy;
} AddOneKernel;

#ifdef KILN_TEST_OPS_SMALLER
/* The kernel of every node: a library whose header has no DestroyKernel allocates none. */
static AddOneKernel g_shared_kernel;
#endif

static KilnStatus* KILN_API_CALL AddOneInferShapes(void* op_state, KilnShapeInferContext* ctx) {
  const KilnKernelInfo* info = NULL;
  KilnTensorTypeAndShapeInfo* x = NULL;
  int64_t dims[kMaxRank];
  size_t rank = 0;
  int fail = 0;
  KilnStatus* s;
  (void)op_state;
  Count(kInferShapes);
  s = g_api->ShapeInferContextGetKernelInfo(ctx, &info);
  if (s == NULL) s = FailIn(info, "InferShapes", &fail);
  if (s == NULL && fail) return Told("InferShapes");
  if (s == NULL) s = g_api->ShapeInferContextGetInputTypeInfo(ctx, 0, &x);
  if (s == NULL) s = g_api->GetDimensionsCount(x, &rank);
  if (s == NULL && rank > kMaxRank) s = g_api->CreateStatus(KILN_INVALID_ARGUMENT, "rank > 8");
  if (s == NULL) s = g_api->GetDimensions(x, dims, rank);
  g_api->ReleaseTensorTypeAndShapeInfo(x);
  if (s == NULL)
    s = g_api->ShapeInferContextSetOutputTypeInfo(ctx, 0, KILN_ELEMENT_TYPE_FLOAT, dims, rank);
  return s;
}

static KilnStatus* KILN_API_CALL AddOneCreateKernel(void* op_state, const KilnKernelInfo* info,
                                                    void** kernel) {
  AddOneKernel* k;
  size_t inputs = 0, outputs = 0;
  const char* name = NULL;
  int fail = 0;
  KilnStatus* s;
  (void)op_state;
  Count(kCreateKernel);
  s = FailIn(info, "CreateKernel", &fail);
  if (s == NULL && fail) return Told("CreateKernel");
  if (s == NULL) s = g_api->KernelInfoGetNodeName(info, &name);
  if (s == NULL) s = g_api->KernelInfoGetInputCount(info, &inputs);
  if (s == NULL) s = g_api->KernelInfoGetOutputCount(info, &outputs);
  if (s == NULL && (inputs != 1 || outputs != 1 || name == NULL)) {
    s = g_api->CreateStatus(KILN_FAIL, "KernelInfo gave wrong counts");
  }
  if (s != NULL) return s;
#ifdef KILN_TEST_OPS_SMALLER
  *kernel = &g_shared_kernel;
  return NULL;
#endif
  k = (AddOneKernel*)calloc(1, sizeof *k);
  if (k == NULL) return g_api->CreateStatus(KILN_OUT_OF_MEMORY, "test_ops: no memory");
  s = FailIn(info, "Compute", &k->fail_in_compute);
  if (s == NULL) s = FailIn(info, "DestroyKernel", &k->fail_in_destroy);
  if (s != NULL) {
    free(k);
    return s;
  }
  *kernel = k;
  return NULL;
}

typedef struct AddOneShare {
  const float* x;
  float* y;
} AddOneShare;

static KilnStatus* KILN_API_CALL AddOneRange(void* data, size_t begin, size_t end) {
  const AddOneShare* share = (const AddOneShare*)data;
  size_t i;
  for (i = begin; i < end; ++i) share->y[i] = share->x[i] + 1.0f;
  return NULL;
}

static KilnStatus* KILN_API_CALL AddOneCompute(void* kernel, KilnKernelContext* ctx) {
  const AddOneKernel* k = (const AddOneKernel*)kernel;
  const KilnValue* x = NULL;
  KilnValue* y = NULL;
  int64_t dims[kMaxRank];
  size_t rank = 0, count = 0;
  AddOneShare share = {NULL, NULL};
  KilnStatus* s;
  Count(kCompute);
  if (k->fail_in_compute) return Told("Compute");
  s = g_api->KernelContextGetInput(ctx, 0, &x);
  if (s == NULL) s = ShapeOf(x, dims, &rank, &count);
#ifdef KILN_TEST_OPS_WRONG_SHAPE
  if (s == NULL && rank > 0) dims[rank - 1] += 1;
#endif
  if (s == NULL) s = g_api->KernelContextGetOutput(ctx, 0, dims, rank, &y);
  if (s == NULL) s = g_api->GetTensorMutableData((KilnValue*)x, (void**)&share.x);
  if (s == NULL) s = g_api->GetTensorMutableData(y, (void**)&share.y);
  if (s == NULL) s = g_api->KernelContextParallelFor(ctx, AddOneRange, &share, count, 4);
  return s;
}

static KilnStatus* KILN_API_CALL AddOneDestroyKernel(void* kernel) {
  AddOneKernel* k = (AddOneKernel*)kernel;
  const int fail = k->fail_in_destroy;
  Count(kDestroyKernel);
#ifndef KILN_TEST_OPS_SMALLER
  free(k);
#endif
  return fail ? Told("DestroyKernel") : NULL;
}

static KilnStatus* KILN_API_CALL ReleaseOpState(void* op_state) {
  (void)op_state;
  Count(kReleaseOpState);
  return NULL;
}

static const KilnElementType kFloat[] = {KILN_ELEMENT_TYPE_FLOAT};
static const KilnCustomOpTypeParam kT[] = {{sizeof(KilnCustomOpTypeParam), "T", kFloat, 1}};
static const KilnCustomOpArg kX[] = {
    {sizeof(KilnCustomOpArg), "X", "T", KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
static const KilnCustomOpArg kY[] = {
    {sizeof(KilnCustomOpArg), "Y", "T", KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
static const KilnCustomOpAttribute kFailIn[] = {{sizeof(KilnCustomOpAttribute), "fail_in",
                                                 KILN_ATTRIBUTE_STRING, 0, 0, 0.0f, NULL, NULL,
                                                 NULL, NULL, 0}};
static int g_op_state; /* AddOne's op_state: only its address matters */

static KilnCustomOp AddOne(void) {
  KilnCustomOp op;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = "test.kiln.ops";
  op.name = "AddOne";
  op.type_params = kT;
  op.type_param_count = 1;
  op.inputs = kX;
  op.input_count = 1;
  op.outputs = kY;
  op.output_count = 1;
  op.attributes = kFailIn;
  op.attribute_count = 1;
  op.op_state = &g_op_state;
  op.InferShapes = AddOneInferShapes;
  op.CreateKernel = AddOneCreateKernel;
  op.Compute = AddOneCompute;
  op.DestroyKernel = AddOneDestroyKernel;
  op.ReleaseOpState = ReleaseOpState;
  return op;
}

#if defined(KILN_TEST_OPS_OVERRIDE) || defined(KILN_TEST_OPS_OVERRIDE_UNFLAGGED)

/* ---- Relu, overriding Kiln's: Y = X where X > 0, else X / 4 ---------------------------------- */

static KilnStatus* KILN_API_CALL LeakyCompute(void* kernel, KilnKernelContext* ctx) {
  const KilnValue* x = NULL;
  KilnValue* y = NULL;
  int64_t dims[kMaxRank];
  size_t rank = 0, count = 0, i;
  float *in = NULL, *out = NULL;
  KilnStatus* s;
  (void)kernel;
  Count(kCompute);
  s = g_api->KernelContextGetInput(ctx, 0, &x);
  if (s == NULL) s = ShapeOf(x, dims, &rank, &count);
  if (s == NULL) s = g_api->KernelContextGetOutput(ctx, 0, dims, rank, &y);
  if (s == NULL) s = g_api->GetTensorMutableData((KilnValue*)x, (void**)&in);
  if (s == NULL) s = g_api->GetTensorMutableData(y, (void**)&out);
  for (i = 0; s == NULL && i < count; ++i) out[i] = in[i] > 0.0f ? in[i] : in[i] * 0.25f;
  return s;
}

static KilnCustomOp Leaky(int overrides_builtin) {
  KilnCustomOp op;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = "";
  op.name = "Relu";
  op.overrides_builtin = overrides_builtin;
  op.type_params = kT;
  op.type_param_count = 1;
  op.inputs = kX;
  op.input_count = 1;
  op.outputs = kY;
  op.output_count = 1;
  op.Compute = LeakyCompute;
  return op;
}

#endif

/* ---- Registration --------------------------------------------------------------------------- */

#if defined(KILN_TEST_OPS_LARGER_ZERO) || defined(KILN_TEST_OPS_LARGER_NONZERO)
/* A description larger than Kiln's: fields a newer header would have, after Kiln's. */
typedef struct NewerCustomOp {
  KilnCustomOp op;
  uint64_t newer_fields[4];
} NewerCustomOp;
#endif

#ifdef KILN_TEST_OPS_NO_ENTRY
/* A near miss of the entry's name: Kiln must not find it. */
KILN_EXPORT KilnStatus* KILN_API_CALL KilnRegisterCustomOp(KilnCustomOpRegistry* registry,
                                                           const KilnApiBase* base) {
#else
KILN_EXPORT KilnStatus* KILN_API_CALL KilnRegisterCustomOps(KilnCustomOpRegistry* registry,
                                                            const KilnApiBase* base) {
#endif
  KilnCustomOp op = AddOne();
  g_api = base->GetApi(KILN_API_VERSION);
  if (g_api == NULL) return NULL;
#if defined(KILN_TEST_OPS_GOOD) || defined(KILN_TEST_OPS_WRONG_SHAPE) || \
    defined(KILN_TEST_OPS_NO_ENTRY)
  return g_api->CustomOpRegistryAdd(registry, &op);
#elif defined(KILN_TEST_OPS_EMPTY)
  (void)registry;
  (void)op;
  return NULL;
#elif defined(KILN_TEST_OPS_DUPLICATE)
{
  KilnStatus* s = g_api->CustomOpRegistryAdd(registry, &op);
  return s != NULL ? s : g_api->CustomOpRegistryAdd(registry, &op);
}
#elif defined(KILN_TEST_OPS_LARGER_ZERO) || defined(KILN_TEST_OPS_LARGER_NONZERO)
{
  NewerCustomOp newer;
  memset(&newer, 0, sizeof newer);
  newer.op = op;
  newer.op.struct_size = sizeof newer;
#ifdef KILN_TEST_OPS_LARGER_NONZERO
  newer.newer_fields[1] = 1;
#endif
  return g_api->CustomOpRegistryAdd(registry, &newer.op);
}
#elif defined(KILN_TEST_OPS_SMALLER)
/* As a library built against an older header would: DestroyKernel and ReleaseOpState are past
 * its struct_size (still set here, so that Kiln calling them would show in the counts). */
op.struct_size = offsetof(KilnCustomOp, DestroyKernel);
return g_api->CustomOpRegistryAdd(registry, &op);
#elif defined(KILN_TEST_OPS_BAD_ELEMENT_TYPE)
{
  static const KilnElementType kBad[] = {(KilnElementType)999};
  static const KilnCustomOpTypeParam kBadT[] = {{sizeof(KilnCustomOpTypeParam), "T", kBad, 1}};
  op.type_params = kBadT;
  return g_api->CustomOpRegistryAdd(registry, &op);
}
#elif defined(KILN_TEST_OPS_VARIADIC_NOT_LAST)
{
  static const KilnCustomOpArg kInputs[] = {
      {sizeof(KilnCustomOpArg), "Xs", "T", KILN_ELEMENT_TYPE_UNDEFINED,
       KILN_CUSTOM_OP_ARG_VARIADIC},
      {sizeof(KilnCustomOpArg), "Last", "T", KILN_ELEMENT_TYPE_UNDEFINED,
       KILN_CUSTOM_OP_ARG_REQUIRED}};
  op.inputs = kInputs;
  op.input_count = 2;
  return g_api->CustomOpRegistryAdd(registry, &op);
}
#elif defined(KILN_TEST_OPS_UNKNOWN_TYPE_PARAM)
{
  static const KilnCustomOpArg kInputs[] = {{sizeof(KilnCustomOpArg), "X", "U",
                                             KILN_ELEMENT_TYPE_UNDEFINED,
                                             KILN_CUSTOM_OP_ARG_REQUIRED}};
  op.inputs = kInputs;
  return g_api->CustomOpRegistryAdd(registry, &op);
}
#elif defined(KILN_TEST_OPS_UNBOUND_TYPE_PARAM)
{
  static const KilnCustomOpTypeParam kParams[] = {{sizeof(KilnCustomOpTypeParam), "T", kFloat, 1},
                                                  {sizeof(KilnCustomOpTypeParam), "U", kFloat, 1}};
  op.type_params = kParams;
  op.type_param_count = 2;
  return g_api->CustomOpRegistryAdd(registry, &op);
}
#elif defined(KILN_TEST_OPS_HUGE_COUNT)
op.input_count = SIZE_MAX / 2;
return g_api->CustomOpRegistryAdd(registry, &op);
#elif defined(KILN_TEST_OPS_OVERRIDE) || defined(KILN_TEST_OPS_OVERRIDE_UNFLAGGED)
(void)op;
{
#ifdef KILN_TEST_OPS_OVERRIDE
  KilnCustomOp relu = Leaky(1);
#else
  KilnCustomOp relu = Leaky(0);
#endif
  return g_api->CustomOpRegistryAdd(registry, &relu);
}
#else
#error "test_ops.c: build with one KILN_TEST_OPS_<variant> flag (see the top of this file)"
#endif
}
