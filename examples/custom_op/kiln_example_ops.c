/*
 * An example custom-operator library for Kiln, in C99: two ops in the domain "ai.kiln.example",
 * opset 1.
 *
 *   MulAddRelu(A, B, C) -> Y     Y = v if v > 0 else alpha * v, where v = A * B + C, elementwise.
 *                                A, B, C and Y share one type T (float or double) and one shape;
 *                                FLOAT attribute alpha, default 0 (a plain ReLU: negatives give
 *                                alpha * v, a zero). One pass over memory where the three ONNX
 *                                nodes Mul, Add, Relu (or LeakyRelu) take three.
 *   StringJoin(X) -> Y           X: tensor(string) of rank >= 1. Y: tensor(string) of X's shape
 *                                without its last axis, each element the strings along that axis
 *                                joined by the STRING attribute separator (default " ").
 *
 * The library never links libkiln: Kiln opens it with dlopen and calls KilnRegisterCustomOps,
 * its one exported function, with the entry to Kiln's API table; every call into Kiln goes
 * through that table. Each callback returns NULL on success, or a status made with
 * api->CreateStatus (Kiln releases it), after freeing whatever it allocated.
 *
 * The manual (docs/manual) shows the parts between the marker comments that name them.
 *
 * Build it as a shared library over Kiln's public headers only:
 *   cc -std=c99 -O2 -fPIC -shared -fvisibility=hidden -I<kiln>/include \
 *      -o libkiln_example_ops.so kiln_example_ops.c
 */
#include <kiln/kiln_c_api.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table, set by KilnRegisterCustomOps before Kiln calls any callback. Every registration
 * sets the same pointer (the table lives as long as the process). */
static const KilnApi* api = NULL;

/* ---- Helpers --------------------------------------------------------------------------------- */

/* A status with a printf-style message. */
static KilnStatus* Fail(KilnErrorCode code, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return api->CreateStatus(code, message);
}

/* What a tensor, or shape inference's knowledge of one, looks like. dims is malloc'd (rank + 1
 * entries, so that a scalar's is not a zero-byte allocation) and freed with FreeDesc. */
typedef struct TensorDesc {
  KilnElementType type;
  size_t rank;
  int64_t* dims;
  size_t count; /* the element count; set by DescribeValue only */
} TensorDesc;

static void FreeDesc(TensorDesc* d) {
  free(d->dims);
  d->dims = NULL;
  d->rank = 0;
}

/* Fills *out from a type-and-shape info (out->count is left 0). On failure *out holds nothing
 * to free. */
static KilnStatus* DescribeInfo(const KilnTensorTypeAndShapeInfo* info, const char* op,
                                TensorDesc* out) {
  TensorDesc d = {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0};
  KilnStatus* st = api->GetTensorElementType(info, &d.type);
  if (st == NULL) st = api->GetDimensionsCount(info, &d.rank);
  if (st != NULL) return st;
  d.dims = (int64_t*)malloc((d.rank + 1) * sizeof *d.dims);
  if (d.dims == NULL) return Fail(KILN_OUT_OF_MEMORY, "%s: cannot allocate a shape", op);
  st = api->GetDimensions(info, d.dims, d.rank);
  if (st != NULL) {
    FreeDesc(&d);
    return st;
  }
  *out = d;
  return NULL;
}

/* Fills *out from a tensor value, its element count included. */
static KilnStatus* DescribeValue(const KilnValue* value, const char* op, TensorDesc* out) {
  KilnTensorTypeAndShapeInfo* info = NULL;
  TensorDesc d = {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0};
  KilnStatus* st = api->GetTensorTypeAndShape(value, &info);
  if (st != NULL) return st;
  st = DescribeInfo(info, op, &d);
  if (st == NULL) st = api->GetTensorShapeElementCount(info, &d.count);
  api->ReleaseTensorTypeAndShapeInfo(info);
  if (st != NULL) {
    FreeDesc(&d);
    return st;
  }
  *out = d;
  return NULL;
}

/* "[2, 3]" ("?" for an unknown dimension), cut short with "..." when it does not fit. */
static void FormatShape(const TensorDesc* d, char* text, size_t cap) {
  size_t used = 0;
  size_t k;
  int n = snprintf(text, cap, "[");
  used = n > 0 ? (size_t)n : 0;
  for (k = 0; k < d->rank && used + 1 < cap; ++k) {
    const char* sep = k == 0 ? "" : ", ";
    if (d->dims[k] >= 0) {
      n = snprintf(text + used, cap - used, "%s%lld", sep, (long long)d->dims[k]);
    } else {
      n = snprintf(text + used, cap - used, "%s?", sep);
    }
    used += n > 0 ? (size_t)n : 0;
  }
  if (used + 2 > cap) {
    if (cap >= 5) memcpy(text + cap - 5, "...]", 5);
    return;
  }
  text[used] = ']';
  text[used + 1] = '\0';
}

/* ---- MulAddRelu ------------------------------------------------------------------------------ */

static const char* const kMulAddReluInputNames[3] = {"A", "B", "C"};

typedef struct MulAddReluKernel {
  float alpha;
} MulAddReluKernel;

/* One Compute's work, shared by the ParallelFor shares (read only). */
typedef struct MulAddReluJob {
  KilnKernelContext* ctx;
  KilnElementType type;
  const void* a;
  const void* b;
  const void* c;
  void* y;
  float alpha;
} MulAddReluJob;

/* Elements per check of the terminate flag inside a share. */
#define MUL_ADD_RELU_BLOCK ((size_t)1 << 16)
/* The least elements per ParallelFor share: below this, threads cost more than they save. */
#define MUL_ADD_RELU_GRAIN ((size_t)1 << 14)

static void MulAddReluFloat(const MulAddReluJob* job, size_t begin, size_t end) {
  const float* a = (const float*)job->a;
  const float* b = (const float*)job->b;
  const float* c = (const float*)job->c;
  float* y = (float*)job->y;
  const float alpha = job->alpha;
  size_t i;
  for (i = begin; i < end; ++i) {
    const float v = a[i] * b[i] + c[i];
    y[i] = v > 0.0f ? v : alpha * v;
  }
}

static void MulAddReluDouble(const MulAddReluJob* job, size_t begin, size_t end) {
  const double* a = (const double*)job->a;
  const double* b = (const double*)job->b;
  const double* c = (const double*)job->c;
  double* y = (double*)job->y;
  const double alpha = (double)job->alpha;
  size_t i;
  for (i = begin; i < end; ++i) {
    const double v = a[i] * b[i] + c[i];
    y[i] = v > 0.0 ? v : alpha * v;
  }
}

/* [parallel body] */
/* The body of the ParallelFor: elements [begin, end), in blocks, stopping when the run is asked
 * to. Called concurrently on the session's threads. */
static KilnStatus* KILN_API_CALL MulAddReluRange(void* data, size_t begin, size_t end) {
  const MulAddReluJob* job = (const MulAddReluJob*)data;
  while (begin < end) {
    const size_t stop = end - begin > MUL_ADD_RELU_BLOCK ? begin + MUL_ADD_RELU_BLOCK : end;
    int terminated = 0;
    KilnStatus* st = api->KernelContextIsTerminated(job->ctx, &terminated);
    if (st != NULL) return st;
    if (terminated) return Fail(KILN_TERMINATED, "MulAddRelu: the run was asked to stop");
    if (job->type == KILN_ELEMENT_TYPE_FLOAT) {
      MulAddReluFloat(job, begin, stop);
    } else {
      MulAddReluDouble(job, begin, stop);
    }
    begin = stop;
  }
  return NULL;
}
/* [parallel body] */

/* [infer shapes] */
/* Output 0 gets the inputs' type and shape. Known shapes must agree: ranks where all are known,
 * dimensions where both are known. A rank of 0 is taken as "not known" (the context reports an
 * input whose rank is unknown as rank 0), and when no input has a known rank, or no type is known,
 * the output is left for the run to decide. */
static KilnStatus* KILN_API_CALL MulAddReluInferShapes(void* op_state, KilnShapeInferContext* ctx) {
  TensorDesc d[3] = {{KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0},
                     {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0},
                     {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0}};
  KilnStatus* st = NULL;
  size_t i, k;
  const TensorDesc* ranked = NULL; /* the first input with a known rank */
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  (void)op_state;
  for (i = 0; i < 3 && st == NULL; ++i) {
    KilnTensorTypeAndShapeInfo* info = NULL;
    st = api->ShapeInferContextGetInputTypeInfo(ctx, i, &info);
    if (st == NULL && info == NULL) {
      st = Fail(KILN_INVALID_ARGUMENT, "MulAddRelu: input %zu '%s' is missing", i,
                kMulAddReluInputNames[i]);
    }
    if (st == NULL) st = DescribeInfo(info, "MulAddRelu", &d[i]);
    api->ReleaseTensorTypeAndShapeInfo(info);
  }
  for (i = 0; i < 3 && st == NULL; ++i) {
    int mismatch = 0;
    if (type == KILN_ELEMENT_TYPE_UNDEFINED) type = d[i].type;
    if (d[i].rank == 0) continue;
    if (ranked == NULL) {
      ranked = &d[i];
      continue;
    }
    mismatch = d[i].rank != ranked->rank;
    for (k = 0; !mismatch && k < d[i].rank; ++k) {
      mismatch = d[i].dims[k] >= 0 && ranked->dims[k] >= 0 && d[i].dims[k] != ranked->dims[k];
    }
    if (mismatch) {
      char have[128], want[128];
      FormatShape(&d[i], have, sizeof have);
      FormatShape(ranked, want, sizeof want);
      st = Fail(KILN_INVALID_ARGUMENT,
                "MulAddRelu: input %zu '%s' has shape %s but input %zu '%s' has shape %s "
                "(A, B and C must have the same shape)",
                i, kMulAddReluInputNames[i], have, (size_t)(ranked - d),
                kMulAddReluInputNames[ranked - d], want);
    }
  }
  if (st == NULL && ranked != NULL && type != KILN_ELEMENT_TYPE_UNDEFINED) {
    /* Each dimension from the first input that knows it. */
    int64_t* dims = (int64_t*)malloc((ranked->rank + 1) * sizeof *dims);
    if (dims == NULL) {
      st = Fail(KILN_OUT_OF_MEMORY, "MulAddRelu: cannot allocate a shape");
    } else {
      for (k = 0; k < ranked->rank; ++k) {
        dims[k] = -1;
        for (i = 0; i < 3 && dims[k] < 0; ++i) {
          if (d[i].rank == ranked->rank) dims[k] = d[i].dims[k];
        }
      }
      st = api->ShapeInferContextSetOutputTypeInfo(ctx, 0, type, dims, ranked->rank);
      free(dims);
    }
  }
  for (i = 0; i < 3; ++i) FreeDesc(&d[i]);
  return st;
}
/* [infer shapes] */

/* [create kernel] */
/* Reads alpha once, into the kernel every Compute of the node uses. */
static KilnStatus* KILN_API_CALL MulAddReluCreateKernel(void* op_state, const KilnKernelInfo* info,
                                                        void** kernel) {
  float alpha = 0.0f;
  MulAddReluKernel* k = NULL;
  KilnStatus* st = api->KernelInfoGetAttributeFloat(info, "alpha", &alpha);
  (void)op_state;
  if (st != NULL) return st;
  k = (MulAddReluKernel*)malloc(sizeof *k);
  if (k == NULL) return Fail(KILN_OUT_OF_MEMORY, "MulAddRelu: cannot allocate the kernel");
  k->alpha = alpha;
  *kernel = k;
  return NULL;
}
/* [create kernel] */

/* [destroy kernel] */
static KilnStatus* KILN_API_CALL MulAddReluDestroyKernel(void* kernel) {
  free(kernel);
  return NULL;
}
/* [destroy kernel] */

/* [compute] */
static KilnStatus* KILN_API_CALL MulAddReluCompute(void* kernel, KilnKernelContext* ctx) {
  const MulAddReluKernel* k = (const MulAddReluKernel*)kernel;
  const KilnValue* in[3] = {NULL, NULL, NULL};
  TensorDesc d[3] = {{KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0},
                     {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0},
                     {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0}};
  void* data[3] = {NULL, NULL, NULL};
  KilnValue* y = NULL;
  KilnStatus* st = NULL;
  size_t i, r;
  for (i = 0; i < 3 && st == NULL; ++i) {
    st = api->KernelContextGetInput(ctx, i, &in[i]);
    if (st == NULL && in[i] == NULL) {
      st = Fail(KILN_INVALID_ARGUMENT, "MulAddRelu: input %zu '%s' is missing", i,
                kMulAddReluInputNames[i]);
    }
    if (st == NULL) st = DescribeValue(in[i], "MulAddRelu", &d[i]);
  }
  if (st == NULL && d[0].type != KILN_ELEMENT_TYPE_FLOAT && d[0].type != KILN_ELEMENT_TYPE_DOUBLE) {
    st = Fail(KILN_INVALID_ARGUMENT, "MulAddRelu: element type %d is neither float nor double",
              (int)d[0].type);
  }
  for (i = 1; i < 3 && st == NULL; ++i) {
    int same = d[i].type == d[0].type && d[i].rank == d[0].rank;
    for (r = 0; same && r < d[i].rank; ++r) same = d[i].dims[r] == d[0].dims[r];
    if (!same) {
      char have[128], want[128];
      FormatShape(&d[i], have, sizeof have);
      FormatShape(&d[0], want, sizeof want);
      st = Fail(KILN_INVALID_ARGUMENT,
                "MulAddRelu: input %zu '%s' has shape %s (type %d) but input 0 'A' has shape %s "
                "(type %d); A, B and C must have the same shape and type",
                i, kMulAddReluInputNames[i], have, (int)d[i].type, want, (int)d[0].type);
    }
  }
  if (st == NULL) st = api->KernelContextGetOutput(ctx, 0, d[0].dims, d[0].rank, &y);
  if (st == NULL && d[0].count > 0) {
    void* out = NULL;
    /* Inputs are only read: the cast drops the const the entry's signature lacks. */
    for (i = 0; i < 3 && st == NULL; ++i)
      st = api->GetTensorMutableData((KilnValue*)in[i], &data[i]);
    if (st == NULL) st = api->GetTensorMutableData(y, &out);
    if (st == NULL) {
      MulAddReluJob job;
      job.ctx = ctx;
      job.type = d[0].type;
      job.a = data[0];
      job.b = data[1];
      job.c = data[2];
      job.y = out;
      job.alpha = k->alpha;
      st =
          api->KernelContextParallelFor(ctx, MulAddReluRange, &job, d[0].count, MUL_ADD_RELU_GRAIN);
    }
  }
  for (i = 0; i < 3; ++i) FreeDesc(&d[i]);
  return st;
}
/* [compute] */

/* ---- StringJoin ------------------------------------------------------------------------------ */

typedef struct StringJoinKernel {
  char* separator; /* a copy of the attribute (the node's strings live only during CreateKernel) */
  size_t separator_len;
} StringJoinKernel;

/* Output 0: X's shape without its last axis. An input of rank 0 (unknown, or a scalar, which
 * Compute refuses) leaves the shape to the run; the type is fixed (string) either way. */
static KilnStatus* KILN_API_CALL StringJoinInferShapes(void* op_state, KilnShapeInferContext* ctx) {
  KilnTensorTypeAndShapeInfo* info = NULL;
  TensorDesc d = {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0};
  KilnStatus* st = api->ShapeInferContextGetInputTypeInfo(ctx, 0, &info);
  (void)op_state;
  if (st != NULL) return st;
  if (info == NULL) return Fail(KILN_INVALID_ARGUMENT, "StringJoin: input 0 'X' is missing");
  st = DescribeInfo(info, "StringJoin", &d);
  api->ReleaseTensorTypeAndShapeInfo(info);
  if (st == NULL && d.rank > 0) {
    st = api->ShapeInferContextSetOutputTypeInfo(ctx, 0, KILN_ELEMENT_TYPE_STRING, d.dims,
                                                 d.rank - 1);
  }
  FreeDesc(&d);
  return st;
}

static KilnStatus* KILN_API_CALL StringJoinCreateKernel(void* op_state, const KilnKernelInfo* info,
                                                        void** kernel) {
  const char* separator = NULL;
  StringJoinKernel* k = NULL;
  KilnStatus* st = api->KernelInfoGetAttributeString(info, "separator", &separator);
  (void)op_state;
  if (st != NULL) return st;
  k = (StringJoinKernel*)malloc(sizeof *k);
  if (k == NULL) return Fail(KILN_OUT_OF_MEMORY, "StringJoin: cannot allocate the kernel");
  k->separator_len = strlen(separator);
  k->separator = (char*)malloc(k->separator_len + 1);
  if (k->separator == NULL) {
    free(k);
    return Fail(KILN_OUT_OF_MEMORY, "StringJoin: cannot allocate the separator");
  }
  memcpy(k->separator, separator, k->separator_len + 1);
  *kernel = k;
  return NULL;
}

static KilnStatus* KILN_API_CALL StringJoinDestroyKernel(void* kernel) {
  StringJoinKernel* k = (StringJoinKernel*)kernel;
  if (k != NULL) free(k->separator);
  free(k);
  return NULL;
}

/* Output elements per check of the terminate flag. */
#define STRING_JOIN_BLOCK 1024

/* Joins the `inner` strings of X from `first` on into *buf (grown as needed, NUL-terminated: a
 * string holding a NUL byte, which FillStringTensorElement cannot take, would be cut there). */
static KilnStatus* JoinRow(const StringJoinKernel* k, const KilnValue* x, size_t first,
                           size_t inner, char** buf, size_t* cap) {
  size_t total = 0, used = 0, j, len, sep;
  KilnStatus* st = NULL;
  for (j = 0; j < inner; ++j) {
    st = api->GetStringTensorElementLength(x, first + j, &len);
    if (st != NULL) return st;
    sep = j > 0 ? k->separator_len : 0;
    if (len >= SIZE_MAX - total || sep >= SIZE_MAX - total - len) {
      return Fail(KILN_INVALID_ARGUMENT, "StringJoin: a joined string would overflow size_t");
    }
    total += len + sep;
  }
  if (total + 1 > *cap) {
    char* grown = (char*)realloc(*buf, total + 1);
    if (grown == NULL) {
      return Fail(KILN_OUT_OF_MEMORY, "StringJoin: cannot allocate %zu bytes", total + 1);
    }
    *buf = grown;
    *cap = total + 1;
  }
  for (j = 0; j < inner; ++j) {
    if (j > 0) {
      memcpy(*buf + used, k->separator, k->separator_len);
      used += k->separator_len;
    }
    st = api->GetStringTensorElementLength(x, first + j, &len);
    if (st == NULL && len > total - used) {
      st = Fail(KILN_FAIL, "StringJoin: element %zu changed length while being read", first + j);
    }
    if (st == NULL && len > 0) st = api->GetStringTensorElement(x, len, first + j, *buf + used);
    if (st != NULL) return st;
    used += len;
  }
  (*buf)[used] = '\0';
  return NULL;
}

static KilnStatus* KILN_API_CALL StringJoinCompute(void* kernel, KilnKernelContext* ctx) {
  const StringJoinKernel* k = (const StringJoinKernel*)kernel;
  const KilnValue* x = NULL;
  KilnValue* y = NULL;
  TensorDesc d = {KILN_ELEMENT_TYPE_UNDEFINED, 0, NULL, 0};
  size_t outer = 1, inner = 0, o, r;
  char* buf = NULL;
  size_t cap = 0;
  KilnStatus* st = api->KernelContextGetInput(ctx, 0, &x);
  if (st == NULL && x == NULL) {
    st = Fail(KILN_INVALID_ARGUMENT, "StringJoin: input 0 'X' is missing");
  }
  if (st == NULL) st = DescribeValue(x, "StringJoin", &d);
  if (st == NULL && d.type != KILN_ELEMENT_TYPE_STRING) {
    st = Fail(KILN_INVALID_ARGUMENT, "StringJoin: input 0 'X' has element type %d, not string",
              (int)d.type);
  }
  if (st == NULL && d.rank == 0) {
    st = Fail(KILN_INVALID_ARGUMENT,
              "StringJoin: input 0 'X' is a scalar; it needs rank 1 or more (the last axis is "
              "joined)");
  }
  if (st == NULL) {
    inner = (size_t)d.dims[d.rank - 1];
    for (r = 0; r + 1 < d.rank; ++r) outer *= (size_t)d.dims[r];
    st = api->KernelContextGetOutput(ctx, 0, d.dims, d.rank - 1, &y);
  }
  for (o = 0; st == NULL && o < outer; ++o) {
    if (o % STRING_JOIN_BLOCK == 0) {
      int terminated = 0;
      st = api->KernelContextIsTerminated(ctx, &terminated);
      if (st == NULL && terminated) {
        st = Fail(KILN_TERMINATED, "StringJoin: the run was asked to stop");
      }
      if (st != NULL) break;
    }
    /* An empty last axis joins to "" (X has no elements then: outer * 0). */
    st = JoinRow(k, x, o * inner, inner, &buf, &cap);
    if (st == NULL) st = api->FillStringTensorElement(y, buf, o);
  }
  free(buf);
  FreeDesc(&d);
  return st;
}

/* ---- Registration ---------------------------------------------------------------------------- */

/* [description] */
static const KilnElementType kRealTypes[] = {KILN_ELEMENT_TYPE_FLOAT, KILN_ELEMENT_TYPE_DOUBLE};

static const KilnCustomOpTypeParam kMulAddReluTypeParams[] = {
    {.struct_size = sizeof(KilnCustomOpTypeParam),
     .name = "T",
     .allowed_types = kRealTypes,
     .allowed_type_count = sizeof kRealTypes / sizeof kRealTypes[0]}};

static const KilnCustomOpArg kMulAddReluInputs[] = {
    {.struct_size = sizeof(KilnCustomOpArg), .name = "A", .type_param = "T"},
    {.struct_size = sizeof(KilnCustomOpArg), .name = "B", .type_param = "T"},
    {.struct_size = sizeof(KilnCustomOpArg), .name = "C", .type_param = "T"}};

static const KilnCustomOpArg kMulAddReluOutputs[] = {
    {.struct_size = sizeof(KilnCustomOpArg), .name = "Y", .type_param = "T"}};

static const KilnCustomOpAttribute kMulAddReluAttributes[] = {
    {.struct_size = sizeof(KilnCustomOpAttribute),
     .name = "alpha",
     .type = KILN_ATTRIBUTE_FLOAT,
     .default_float = 0.0f}};
/* [description] */

static const KilnCustomOpArg kStringJoinInputs[] = {{.struct_size = sizeof(KilnCustomOpArg),
                                                     .name = "X",
                                                     .element_type = KILN_ELEMENT_TYPE_STRING}};

static const KilnCustomOpArg kStringJoinOutputs[] = {{.struct_size = sizeof(KilnCustomOpArg),
                                                      .name = "Y",
                                                      .element_type = KILN_ELEMENT_TYPE_STRING}};

static const KilnCustomOpAttribute kStringJoinAttributes[] = {
    {.struct_size = sizeof(KilnCustomOpAttribute),
     .name = "separator",
     .type = KILN_ATTRIBUTE_STRING,
     .default_string = " "}};

#define EXAMPLE_DOMAIN "ai.kiln.example"
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

KILN_EXPORT KilnStatus* KILN_API_CALL KilnRegisterCustomOps(KilnCustomOpRegistry* registry,
                                                            const KilnApiBase* api_base);

/* [register] */
KILN_EXPORT KilnStatus* KILN_API_CALL KilnRegisterCustomOps(KilnCustomOpRegistry* registry,
                                                            const KilnApiBase* api_base) {
  KilnCustomOp op;
  KilnStatus* st = NULL;
  if (api_base == NULL) return NULL;
  api = api_base->GetApi(KILN_API_VERSION);
  /* A Kiln too old for this header's table has logged why; with no table there is no way to
   * make a status, and registering nothing fails the registration. */
  if (api == NULL) return NULL;

  /* Kiln copies each description: one struct, reset between the ops, does for both. */
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = EXAMPLE_DOMAIN;
  op.name = "MulAddRelu";
  op.since_version = 1;
  op.type_params = kMulAddReluTypeParams;
  op.type_param_count = COUNT_OF(kMulAddReluTypeParams);
  op.inputs = kMulAddReluInputs;
  op.input_count = COUNT_OF(kMulAddReluInputs);
  op.outputs = kMulAddReluOutputs;
  op.output_count = COUNT_OF(kMulAddReluOutputs);
  op.attributes = kMulAddReluAttributes;
  op.attribute_count = COUNT_OF(kMulAddReluAttributes);
  op.InferShapes = MulAddReluInferShapes;
  op.CreateKernel = MulAddReluCreateKernel;
  op.Compute = MulAddReluCompute;
  op.DestroyKernel = MulAddReluDestroyKernel;
  st = api->CustomOpRegistryAdd(registry, &op);
  if (st != NULL) return st;
  /* [register] */

  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = EXAMPLE_DOMAIN;
  op.name = "StringJoin";
  op.since_version = 1;
  op.inputs = kStringJoinInputs;
  op.input_count = COUNT_OF(kStringJoinInputs);
  op.outputs = kStringJoinOutputs;
  op.output_count = COUNT_OF(kStringJoinOutputs);
  op.attributes = kStringJoinAttributes;
  op.attribute_count = COUNT_OF(kStringJoinAttributes);
  op.InferShapes = StringJoinInferShapes;
  op.CreateKernel = StringJoinCreateKernel;
  op.Compute = StringJoinCompute;
  op.DestroyKernel = StringJoinDestroyKernel;
  /* On failure Kiln releases the op added above. */
  return api->CustomOpRegistryAdd(registry, &op);
}
