/**
 * @file
 * Kiln C ABI: custom operators — what a custom-operator library sees.
 *
 * A library describes each of its ops declaratively (a KilnCustomOp: domain, name, opset range,
 * typed inputs, outputs and attributes, and its callbacks) and hands the descriptions to Kiln from
 * its one exported function, KilnRegisterCustomOps. It never links against Kiln: it is opened with
 * dlopen(RTLD_NOW | RTLD_LOCAL) by KilnApi::SessionOptionsRegisterCustomOpsLibrary and reaches
 * every entry through the KilnApiBase it is given. Ops linked into the program itself are
 * registered the same way with KilnApi::SessionOptionsRegisterCustomOps.
 *
 * @code
 *   #include <kiln/kiln_c_api.h>   // includes this header
 *
 *   static const KilnApi* api;
 *
 *   static KilnStatus* ComputeNegate(void* kernel, KilnKernelContext* ctx) {
 *     const KilnValue* x = NULL;
 *     KilnValue* y = NULL;
 *     KilnTensorTypeAndShapeInfo* info = NULL;
 *     int64_t dims[8];
 *     size_t rank = 0, n = 0;
 *     KilnStatus* st = api->KernelContextGetInput(ctx, 0, &x);
 *     if (st == NULL) st = api->GetTensorTypeAndShape(x, &info);
 *     if (st == NULL) st = api->GetDimensionsCount(info, &rank);
 *     if (st == NULL && rank > 8) st = api->CreateStatus(KILN_INVALID_ARGUMENT, "rank > 8");
 *     if (st == NULL) st = api->GetDimensions(info, dims, rank);
 *     if (st == NULL) st = api->GetTensorShapeElementCount(info, &n);
 *     api->ReleaseTensorTypeAndShapeInfo(info);
 *     if (st == NULL) st = api->KernelContextGetOutput(ctx, 0, dims, rank, &y);
 *     float *in = NULL, *out = NULL;
 *     if (st == NULL) st = api->GetTensorMutableData((KilnValue*)x, (void**)&in);
 *     if (st == NULL) st = api->GetTensorMutableData(y, (void**)&out);
 *     for (size_t i = 0; st == NULL && i < n; ++i) out[i] = -in[i];
 *     return st;
 *   }
 *
 *   KILN_EXPORT KilnStatus* KilnRegisterCustomOps(KilnCustomOpRegistry* registry,
 *                                                 const KilnApiBase* base) {
 *     api = base->GetApi(KILN_API_VERSION);
 *     if (api == NULL) return NULL;  // Kiln logged why; a NULL table cannot make a status
 *     static const KilnElementType kFloat[] = {KILN_ELEMENT_TYPE_FLOAT};
 *     static const KilnCustomOpTypeParam kT[] = {
 *         {.struct_size = sizeof(KilnCustomOpTypeParam), .name = "T", .allowed_types = kFloat,
 *          .allowed_type_count = 1}};
 *     static const KilnCustomOpArg kX[] = {
 *         {.struct_size = sizeof(KilnCustomOpArg), .name = "X", .type_param = "T"}};
 *     static const KilnCustomOpArg kY[] = {
 *         {.struct_size = sizeof(KilnCustomOpArg), .name = "Y", .type_param = "T"}};
 *     const KilnCustomOp op = {.struct_size = sizeof(KilnCustomOp),
 *                              .abi_version = KILN_CUSTOM_OP_ABI_VERSION,
 *                              .domain = "my.domain",
 *                              .name = "Negate",
 *                              .type_params = kT,
 *                              .type_param_count = 1,
 *                              .inputs = kX,
 *                              .input_count = 1,
 *                              .outputs = kY,
 *                              .output_count = 1,
 *                              .Compute = ComputeNegate};
 *     return api->CustomOpRegistryAdd(registry, &op);   // Kiln copies the description
 *   }
 * @endcode
 *
 * How the description grows: KilnCustomOp and each struct it points to begin with their
 * struct_size. Kiln reads the fields both it and the library know; a library built against an
 * older header (a smaller struct_size) gets the defaults for the fields it lacks (every field's
 * zero means "absent"), and one built against a newer header loads as long as the fields this
 * Kiln does not know are zero — a non-zero one is a feature this Kiln cannot honour, and
 * CustomOpRegistryAdd says which.
 *
 * Every callback returns a KilnStatus* (NULL for success, else one made with
 * KilnApi::CreateStatus, which Kiln releases); Kiln turns a failure into a status naming the
 * library, the op, the callback and the node. A callback must not throw or unwind into Kiln (one
 * that does is caught where Kiln can and reported the same way).
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_KILN_CUSTOM_OP_H_
#define KILN_KILN_CUSTOM_OP_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the custom-op structs this header describes (KilnCustomOp::abi_version). */
#define KILN_CUSTOM_OP_ABI_VERSION 1

/** The name of the one function a custom-op library exports (a ::KilnRegisterCustomOpsFn). */
#define KILN_REGISTER_CUSTOM_OPS_SYMBOL "KilnRegisterCustomOps"

/** Where a library's registration function puts its ops. Valid during that call only. Opaque. */
typedef struct KilnCustomOpRegistry KilnCustomOpRegistry;
/**
 * A node using a custom op, as its CreateKernel and InferShapes callbacks see it: its name,
 * input and output counts and attributes. Valid during the callback only. Opaque.
 */
typedef struct KilnKernelInfo KilnKernelInfo;
/** One Compute call's inputs, outputs, threads, terminate flag and log. Valid during it. Opaque. */
typedef struct KilnKernelContext KilnKernelContext;
/** One InferShapes call's inputs' types and shapes and its outputs'. Valid during it. Opaque. */
typedef struct KilnShapeInferContext KilnShapeInferContext;

/** How many values an input or output of a custom op takes. */
typedef enum KilnCustomOpArgKind {
  KILN_CUSTOM_OP_ARG_REQUIRED = 0, /**< Exactly one value (the default). */
  KILN_CUSTOM_OP_ARG_OPTIONAL = 1, /**< One value or none (a node may leave it out or empty). */
  KILN_CUSTOM_OP_ARG_VARIADIC = 2  /**< One or more values; only the last input or output. */
} KilnCustomOpArgKind;

/**
 * The type of an attribute (ONNX's AttributeProto.AttributeType values). A custom op declares
 * attributes of the scalar and list types FLOAT to STRINGS; the graph API (kiln_graph_api.h)
 * shows and builds every type.
 */
typedef enum KilnAttributeType {
  KILN_ATTRIBUTE_UNDEFINED = 0,       /**< Not a valid attribute type. */
  KILN_ATTRIBUTE_FLOAT = 1,           /**< One float. */
  KILN_ATTRIBUTE_INT = 2,             /**< One int64_t. */
  KILN_ATTRIBUTE_STRING = 3,          /**< One string (UTF-8 for a custom op; bytes in a graph). */
  KILN_ATTRIBUTE_TENSOR = 4,          /**< One tensor. */
  KILN_ATTRIBUTE_GRAPH = 5,           /**< One graph (If, Loop, Scan bodies). */
  KILN_ATTRIBUTE_FLOATS = 6,          /**< A list of floats. */
  KILN_ATTRIBUTE_INTS = 7,            /**< A list of int64_t. */
  KILN_ATTRIBUTE_STRINGS = 8,         /**< A list of strings. */
  KILN_ATTRIBUTE_TENSORS = 9,         /**< A list of tensors. */
  KILN_ATTRIBUTE_GRAPHS = 10,         /**< A list of graphs. */
  KILN_ATTRIBUTE_SPARSE_TENSOR = 11,  /**< One sparse tensor. */
  KILN_ATTRIBUTE_SPARSE_TENSORS = 12, /**< A list of sparse tensors. */
  KILN_ATTRIBUTE_TYPE_PROTO = 13,     /**< One type (the `type` of Optional, say). */
  KILN_ATTRIBUTE_TYPE_PROTOS = 14     /**< A list of types. */
} KilnAttributeType;

/** A named type parameter ("T") and the element types it may take. */
typedef struct KilnCustomOpTypeParam {
  /** sizeof(KilnCustomOpTypeParam) as the library was built; every element of an array alike. */
  size_t struct_size;
  /** The parameter's name, unique within the op, non-empty. */
  const char* name;
  /** The element types it allows (tensor types only; at least one). */
  const KilnElementType* allowed_types;
  /** How many there are in @p allowed_types (1 to 64). */
  size_t allowed_type_count;
} KilnCustomOpTypeParam;

/** One input or output of a custom op. */
typedef struct KilnCustomOpArg {
  /** sizeof(KilnCustomOpArg) as the library was built; every element of an array alike. */
  size_t struct_size;
  /** Its name, for messages; non-empty. */
  const char* name;
  /**
   * The name of the op's type parameter it is bound to (every argument bound to one parameter
   * has the same element type in a node), or NULL when @p element_type fixes its type.
   */
  const char* type_param;
  /** Its element type when @p type_param is NULL (then required), else ignored. */
  KilnElementType element_type;
  /** Required (the default), optional or variadic. */
  KilnCustomOpArgKind kind;
} KilnCustomOpArg;

/** One attribute of a custom op, with its type and its default. */
typedef struct KilnCustomOpAttribute {
  /** sizeof(KilnCustomOpAttribute) as the library was built; every element of an array alike. */
  size_t struct_size;
  /** Its name, unique within the op, non-empty. */
  const char* name;
  /** Its type; a node's attribute of another type is an error naming the node. */
  KilnAttributeType type;
  /** Non-zero: a node must give it (the defaults below are then unused). */
  int required;
  /** The default of an INT attribute. */
  int64_t default_int;
  /** The default of a FLOAT attribute. */
  float default_float;
  /** The default of a STRING attribute (NULL: the empty string). */
  const char* default_string;
  /** The default of an INTS attribute: @p default_count values (NULL when the count is 0). */
  const int64_t* default_ints;
  /** The default of a FLOATS attribute: @p default_count values. */
  const float* default_floats;
  /** The default of a STRINGS attribute: @p default_count non-NULL strings. */
  const char* const* default_strings;
  /** How many values the list default has (0: an empty list). */
  size_t default_count;
} KilnCustomOpAttribute;

/**
 * Optional: derives a node's outputs' element types and shapes from its inputs' and attributes,
 * at session creation, so that the planner sees static shapes. Called for each node of the main
 * graph, once or more (the optimizer infers again after rewriting); not for nodes inside If,
 * Loop or Scan bodies, which Kiln does not infer at load. Outputs it leaves unset get the type
 * the description and the inputs give, their shape found at run time. A failure fails session
 * creation with a status naming the node.
 *
 * @param[in] op_state  KilnCustomOp::op_state.
 * @param[in] ctx       The node's inputs and attributes; where the outputs are set.
 * @return NULL on success, else a status.
 */
typedef KilnStatus*(KILN_API_CALL* KilnCustomOpInferShapesFn)(void* op_state,
                                                              KilnShapeInferContext* ctx);
/**
 * Optional: makes the kernel of one node (reading its attributes once). Called at session
 * creation (the optimizer may make and destroy kernels of its own on the way); the kernel is then
 * used by every Compute of that node, possibly from several threads at once, until
 * DestroyKernel. Without it, the kernel is @p op_state itself.
 *
 * @param[in]  op_state  KilnCustomOp::op_state.
 * @param[in]  info      The node.
 * @param[out] kernel    Receives the kernel (any pointer, NULL included).
 * @return NULL on success, else a status (session creation then fails, naming the node).
 */
typedef KilnStatus*(KILN_API_CALL* KilnCustomOpCreateKernelFn)(void* op_state,
                                                               const KilnKernelInfo* info,
                                                               void** kernel);
/**
 * Required: runs the node once. Called from any thread, several at once for concurrent runs.
 * It allocates every output the node uses with KernelContextGetOutput; on failure the run fails
 * and its outputs are discarded.
 *
 * @param[in] kernel  What CreateKernel made.
 * @param[in] ctx     The inputs, the outputs, the session's threads and the run's state.
 * @return NULL on success, else a status (the run fails with its code, naming the node).
 */
typedef KilnStatus*(KILN_API_CALL* KilnCustomOpComputeFn)(void* kernel, KilnKernelContext* ctx);
/**
 * Optional: frees a kernel CreateKernel made. Called once per kernel when its session goes (or
 * its creation fails), always before the library is closed. A failure is logged.
 *
 * @param[in] kernel  What CreateKernel made.
 * @return NULL on success, else a status.
 */
typedef KilnStatus*(KILN_API_CALL* KilnCustomOpDestroyKernelFn)(void* kernel);
/**
 * Optional: frees @p op_state once nothing uses the op any more (no options, no session), before
 * the library is closed. A failure is logged.
 *
 * @param[in] op_state  KilnCustomOp::op_state.
 * @return NULL on success, else a status.
 */
typedef KilnStatus*(KILN_API_CALL* KilnCustomOpReleaseFn)(void* op_state);
/**
 * The body of a KernelContextParallelFor: runs items [@p begin, @p end).
 *
 * @param[in] data   The pointer given to KernelContextParallelFor.
 * @param[in] begin  The first item of this share.
 * @param[in] end    One past its last.
 * @return NULL on success, else a status (the first failure is what ParallelFor returns).
 */
typedef KilnStatus*(KILN_API_CALL* KilnParallelForFn)(void* data, size_t begin, size_t end);

/** A custom op: what it is, what it takes and gives, and its callbacks. Kiln copies it. */
typedef struct KilnCustomOp {
  /** sizeof(KilnCustomOp) as the library was built. */
  size_t struct_size;
  /** KILN_CUSTOM_OP_ABI_VERSION as the library was built (1 or more). */
  uint32_t abi_version;
  /** The op's domain ("" or "ai.onnx" for the default ONNX domain), UTF-8. */
  const char* domain;
  /** The op type nodes name, non-empty. */
  const char* name;
  /** The first opset version of @p domain it implements (0: 1). */
  int since_version;
  /** The last one (0: every later version). */
  int until_version;
  /**
   * Non-zero: the op replaces Kiln's own op of the same domain and name in the sessions it is
   * registered for (without it, naming a built-in op is an error). The optimizer leaves such
   * nodes alone, as it does every custom op's.
   */
  int overrides_builtin;
  /** Its type parameters (NULL when the count is 0). */
  const KilnCustomOpTypeParam* type_params;
  /** How many (at most 64). */
  size_t type_param_count;
  /** Its inputs, in order (NULL when the count is 0). */
  const KilnCustomOpArg* inputs;
  /** How many (at most 1024). */
  size_t input_count;
  /** Its outputs, in order. */
  const KilnCustomOpArg* outputs;
  /** How many (1 to 1024). */
  size_t output_count;
  /** Its attributes (NULL when the count is 0); a node's attribute not listed is an error. */
  const KilnCustomOpAttribute* attributes;
  /** How many (at most 1024). */
  size_t attribute_count;
  /** Given back to InferShapes, CreateKernel and ReleaseOpState. */
  void* op_state;
  /** Optional, see ::KilnCustomOpInferShapesFn. */
  KilnCustomOpInferShapesFn InferShapes;
  /** Optional, see ::KilnCustomOpCreateKernelFn. */
  KilnCustomOpCreateKernelFn CreateKernel;
  /** Required, see ::KilnCustomOpComputeFn. */
  KilnCustomOpComputeFn Compute;
  /** Optional, see ::KilnCustomOpDestroyKernelFn. */
  KilnCustomOpDestroyKernelFn DestroyKernel;
  /** Optional, see ::KilnCustomOpReleaseFn. */
  KilnCustomOpReleaseFn ReleaseOpState;
} KilnCustomOp;

/**
 * What a custom-op library exports under the name KILN_REGISTER_CUSTOM_OPS_SYMBOL, and what
 * KilnApi::SessionOptionsRegisterCustomOps takes: adds the library's ops to @p registry with
 * KilnApi::CustomOpRegistryAdd. Registering nothing, or failing, fails the registration (every
 * op added so far is released).
 *
 * @param[in] registry  Where the ops go; valid during the call only.
 * @param[in] api_base  Kiln's entry point: GetApi(KILN_API_VERSION) gives the table.
 * @return NULL on success, else a status.
 */
typedef KilnStatus*(KILN_API_CALL* KilnRegisterCustomOpsFn)(KilnCustomOpRegistry* registry,
                                                            const KilnApiBase* api_base);

/* ---- Registration (slots 104-106) ------------------------------------------------------------ */

/**
 * Opens a custom-op library and registers its ops with these options, for every session made
 * from them (and from their clones). The library is opened with dlopen(RTLD_NOW | RTLD_LOCAL):
 * a @p path with a slash is used as it is; one without is searched for as dlopen searches
 * (LD_LIBRARY_PATH, the system's folders). Its KilnRegisterCustomOps is called once, here. The
 * library stays loaded while these options, a clone or a session made from them uses it, and
 * is closed after the last of its kernels and op states has been released. Registering the
 * same library twice, or two ops of one domain and name with overlapping opset ranges, fails.
 *
 * @param[in,out] options  The options.
 * @param[in]     path     The library's path, UTF-8, non-empty.
 * @return NULL on success, else a status naming the library (KILN_INVALID_ARGUMENT,
 *         KILN_NO_SUCHFILE when it cannot be opened, KILN_FAIL when it has no entry or its
 *         entry fails, KILN_OUT_OF_MEMORY); the options are then as they were.
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionOptionsRegisterCustomOpsLibrary,
                (KilnSessionOptions * options, const char* path));

/**
 * Registers custom ops linked into the program: calls @p register_ops once, here, as
 * SessionOptionsRegisterCustomOpsLibrary calls a library's entry.
 *
 * @param[in,out] options       The options.
 * @param[in]     register_ops  The registration function.
 * @return NULL on success, else a status (the options are then as they were).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionOptionsRegisterCustomOps,
                (KilnSessionOptions * options, KilnRegisterCustomOpsFn register_ops));

/**
 * Adds a custom op. Kiln checks the description (every message names the op and the field:
 * unknown element or attribute types, a type parameter no argument names or an argument naming
 * none, a variadic argument that is not the last, counts without arrays, limits exceeded, a
 * struct_size that does not end at a field or lacks a required one, fields this Kiln does not
 * know set, a domain of Kiln's own ("ai.kiln"), a built-in op named without overrides_builtin)
 * and copies it: the library may free or reuse it afterwards. When it fails, the op is not
 * Kiln's: ReleaseOpState is not called for it. Once it succeeds, Kiln calls ReleaseOpState
 * (if any) exactly once, also when the registration as a whole fails later.
 *
 * @param[in,out] registry  The registry given to the registration function.
 * @param[in]     op        The description.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_NOT_IMPLEMENTED for a field
 *         this Kiln cannot honour, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CustomOpRegistryAdd,
                (KilnCustomOpRegistry * registry, const KilnCustomOp* op));

/* ---- Kernel info (slots 107-115) --------------------------------------------------------------
 */

/**
 * The node's name.
 *
 * @param[in]  info  The node.
 * @param[out] out   Receives a UTF-8 string borrowed from @p info.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetNodeName, (const KilnKernelInfo* info, const char** out));

/**
 * How many inputs the node has, left-out optional ones included (past its last input too, up to
 * the op's declared inputs).
 *
 * @param[in]  info  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetInputCount, (const KilnKernelInfo* info, size_t* out));

/**
 * How many outputs the node has.
 *
 * @param[in]  info  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetOutputCount, (const KilnKernelInfo* info, size_t* out));

/**
 * An INT attribute: the node's, or the description's default when the node has none.
 *
 * @param[in]  info  The node.
 * @param[in]  name  An attribute the op declares with type INT.
 * @param[out] out   Receives the value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: not declared, or another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeInt,
                (const KilnKernelInfo* info, const char* name, int64_t* out));

/**
 * A FLOAT attribute, as KernelInfoGetAttributeInt.
 *
 * @param[in]  info  The node.
 * @param[in]  name  An attribute the op declares with type FLOAT.
 * @param[out] out   Receives the value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeFloat,
                (const KilnKernelInfo* info, const char* name, float* out));

/**
 * A STRING attribute, as KernelInfoGetAttributeInt.
 *
 * @param[in]  info  The node.
 * @param[in]  name  An attribute the op declares with type STRING.
 * @param[out] out   Receives a NUL-terminated UTF-8 string borrowed from @p info.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeString,
                (const KilnKernelInfo* info, const char* name, const char** out));

/**
 * An INTS attribute, as KernelInfoGetAttributeInt.
 *
 * @param[in]  info    The node.
 * @param[in]  name    An attribute the op declares with type INTS.
 * @param[out] values  Receives the values, borrowed from @p info (NULL for an empty list).
 * @param[out] count   Receives how many there are.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeInts,
                (const KilnKernelInfo* info, const char* name, const int64_t** values,
                 size_t* count));

/**
 * A FLOATS attribute, as KernelInfoGetAttributeInts.
 *
 * @param[in]  info    The node.
 * @param[in]  name    An attribute the op declares with type FLOATS.
 * @param[out] values  Receives the values, borrowed from @p info (NULL for an empty list).
 * @param[out] count   Receives how many there are.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeFloats,
                (const KilnKernelInfo* info, const char* name, const float** values,
                 size_t* count));

/**
 * A STRINGS attribute, as KernelInfoGetAttributeInts.
 *
 * @param[in]  info    The node.
 * @param[in]  name    An attribute the op declares with type STRINGS.
 * @param[out] values  Receives an array of NUL-terminated UTF-8 strings, borrowed from @p info
 *                     (NULL for an empty list).
 * @param[out] count   Receives how many there are.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelInfoGetAttributeStrings,
                (const KilnKernelInfo* info, const char* name, const char* const** values,
                 size_t* count));

/* ---- Kernel context (slots 116-122) -----------------------------------------------------------
 */

/**
 * How many inputs the node has, left-out optional ones included (those past its last input, up to
 * the op's declared inputs, too).
 *
 * @param[in]  ctx  The context.
 * @param[out] out  Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextGetInputCount,
                (const KilnKernelContext* ctx, size_t* out));

/**
 * How many outputs the node has.
 *
 * @param[in]  ctx  The context.
 * @param[out] out  Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextGetOutputCount,
                (const KilnKernelContext* ctx, size_t* out));

/**
 * An input, as a tensor value lent for the Compute call: ReleaseValue ignores it (and logs), and
 * after the call it is a released handle. Its data may be read through GetTensorMutableData but
 * must not be written: other nodes may read it too. Safe from ParallelFor's shares.
 *
 * @param[in]  ctx    The context.
 * @param[in]  index  0 to the input count - 1.
 * @param[out] out    Receives the value, or NULL for an optional input the node leaves out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextGetInput,
                (const KilnKernelContext* ctx, size_t index, const KilnValue** out));

/**
 * Allocates an output of the given shape, its element type the one its description and the
 * inputs give (a fixed type, or its type parameter's as an input binds it, or what InferShapes
 * set). Its contents are unspecified (string elements empty): Compute writes every element. The
 * value is lent for the Compute call, as KernelContextGetInput's. Each output once; when
 * InferShapes fixed the shape, it must be that one.
 *
 * @param[in]  ctx        The context.
 * @param[in]  index      0 to the output count - 1.
 * @param[in]  dims       The dimensions (each >= 0); may be NULL when @p dim_count is 0.
 * @param[in]  dim_count  The rank.
 * @param[out] out        Receives the value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the output,
 *         KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextGetOutput,
                (KilnKernelContext * ctx, size_t index, const int64_t* dims, size_t dim_count,
                 KilnValue** out));

/**
 * Runs @p fn over items [0, @p total) on the session's intra-op threads (the caller's included),
 * in shares of at least @p grain items, and returns when all are done. Shares run concurrently:
 * @p fn must be safe to call so. Must be called from Compute's own thread, as must
 * KernelContextGetOutput: a share may read inputs (KernelContextGetInput) and write outputs
 * already allocated.
 *
 * @param[in] ctx    The context.
 * @param[in] fn     The body.
 * @param[in] data   Given to every call of @p fn.
 * @param[in] total  How many items.
 * @param[in] grain  The least items in a share (0: 1).
 * @return NULL when every share succeeded, else the first failure @p fn returned (the others are
 *         released) or a status of Kiln's (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextParallelFor,
                (KilnKernelContext * ctx, KilnParallelForFn fn, void* data, size_t total,
                 size_t grain));

/**
 * Whether the run has been asked to stop (KilnApi::RunOptionsSetTerminate). A long Compute checks
 * it now and then and returns a KILN_TERMINATED status when it is set.
 *
 * @param[in]  ctx  The context.
 * @param[out] out  Receives 1 when asked to stop, else 0.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextIsTerminated, (const KilnKernelContext* ctx, int* out));

/**
 * Logs a message through the session's logger (the Env's sink, the session's level), under the
 * category "kiln.custom_op" and prefixed with the node's name.
 *
 * @param[in] ctx       The context.
 * @param[in] severity  The message's severity.
 * @param[in] message   The message, UTF-8.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextLog,
                (const KilnKernelContext* ctx, KilnLoggingLevel severity, const char* message));

/* ---- Shape inference (slots 123-125) ----------------------------------------------------------
 */

/**
 * The node being inferred, for its attributes and counts.
 *
 * @param[in]  ctx  The context.
 * @param[out] out  Receives the info, borrowed for the InferShapes call.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ShapeInferContextGetKernelInfo,
                (const KilnShapeInferContext* ctx, const KilnKernelInfo** out));

/**
 * What is known of an input before running: its element type (KILN_ELEMENT_TYPE_UNDEFINED when
 * not known) and shape (dimensions -1 where not known, named or not; no dimensions when not even
 * the rank is — as the session's input infos, which cannot tell that from a scalar).
 *
 * @param[in]  ctx    The context.
 * @param[in]  index  0 to the input count - 1.
 * @param[out] out    Receives an owned info, released with ReleaseTensorTypeAndShapeInfo, or
 *                    NULL for an optional input the node leaves out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, ShapeInferContextGetInputTypeInfo,
                (const KilnShapeInferContext* ctx, size_t index, KilnTensorTypeAndShapeInfo** out));

/**
 * Sets what an output will be: its element type and shape (dimensions -1 where not known).
 * Each output once; the type must be one its description allows.
 *
 * @param[in,out] ctx           The context.
 * @param[in]     index         0 to the output count - 1.
 * @param[in]     element_type  The element type.
 * @param[in]     dims          The dimensions (each >= -1); NULL (with @p dim_count 0) when not
 *                              even the rank is known.
 * @param[in]     dim_count     The rank.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, ShapeInferContextSetOutputTypeInfo,
                (KilnShapeInferContext * ctx, size_t index, KilnElementType element_type,
                 const int64_t* dims, size_t dim_count));

/* ---- Kernel context, continued (slot 126) ---------------------------------------------------- */

/**
 * The node being computed, for its attributes (by name and type, defaults applied), name and
 * counts, as CreateKernel saw it: a kernel that did not read them once at creation reads them
 * here.
 *
 * @param[in]  ctx  The context.
 * @param[out] out  Receives the info, lent for the Compute call.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, KernelContextGetKernelInfo,
                (const KilnKernelContext* ctx, const KilnKernelInfo** out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_KILN_CUSTOM_OP_H_
