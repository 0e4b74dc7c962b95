/**
 * @file
 * Kiln C ABI: the graph API — inspect, build and print ONNX models.
 *
 * A sub-table of its own, fetched with KilnApi::GetGraphApi(KILN_GRAPH_API_VERSION). It shows the
 * graph a session loaded and the one it runs after optimization (with each node's kernel and the
 * nodes a fused node came from), builds models in memory without protobuf, and prints them in
 * ONNX's textual syntax (the grammar of onnx.parser), which it also reads back.
 *
 * @code
 *   #include <kiln/kiln_c_api.h>   // includes this header
 *
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   const KilnGraphApi* g = api->GetGraphApi(KILN_GRAPH_API_VERSION);
 *
 *   // y = x * w + b, with x of shape [N, 4]
 *   const char* domains[] = {""};
 *   const int64_t versions[] = {17};
 *   const int64_t dims[] = {-1, 4};
 *   const char* params[] = {"N", NULL};
 *   KilnModel* model = NULL;
 *   KilnGraph* graph = NULL;
 *   KilnTypeInfo* type = NULL;
 *   KilnValueInfo *x = NULL, *y = NULL;
 *   KilnNode *mm = NULL, *add = NULL;
 *   const char* mm_in[] = {"x", "w"};
 *   const char* mm_out[] = {"xw"};
 *   const char* add_in[] = {"xw", "b"};
 *   const char* add_out[] = {"y"};
 *   KilnStatus* st = g->CreateModel(9, domains, versions, 1, &model);
 *   if (st == NULL) st = g->CreateGraph("affine", &graph);
 *   if (st == NULL) st = g->CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, dims, params, 2, &type);
 *   if (st == NULL) st = g->CreateValueInfo("x", type, &x);
 *   if (st == NULL) st = g->GraphSetOwnedInputs(graph, &x, 1);       // the graph owns x now
 *   if (st == NULL) st = g->CreateValueInfo("y", NULL, &y);          // type left to inference
 *   if (st == NULL) st = g->GraphSetOwnedOutputs(graph, &y, 1);
 *   if (st == NULL) st = g->GraphAddInitializer(graph, "w", w_tensor);  // shared, not copied
 *   if (st == NULL) st = g->GraphAddInitializer(graph, "b", b_tensor);
 *   if (st == NULL) st = g->CreateNode("MatMul", "", "mm", mm_in, 2, mm_out, 1, &mm);
 *   if (st == NULL) st = g->GraphAddOwnedNode(graph, mm);
 *   if (st == NULL) st = g->CreateNode("Add", "", "add", add_in, 2, add_out, 1, &add);
 *   if (st == NULL) st = g->GraphAddOwnedNode(graph, add);
 *   if (st == NULL) st = g->ModelSetOwnedGraph(model, graph);
 *   if (st == NULL) st = g->ModelVerify(model, NULL);
 *   if (st == NULL) st = g->ModelPrint(model, -1, KILN_PRINT_DEFAULT, write_chunk, stdout);
 *   if (st == NULL) st = g->CreateSessionFromModel(env, model, NULL, &session);
 *   g->ReleaseTypeInfo(type);
 *   g->ReleaseModel(model);  // and with it the graph, x, y, mm and add
 * @endcode
 *
 * The conventions are MLIR's C API's, applied to ONNX, with Kiln's status returns and checked
 * handles:
 * - Objects: KilnModel, KilnGraph, KilnNode, KilnValueInfo (an edge: its name, its type, its
 *   producer and its consumers), KilnAttribute and KilnTypeInfo, whose kind (tensor, sequence,
 *   map, optional, sparse tensor) is a query, not a class hierarchy.
 * - Ownership is in the names. `Create…` gives the caller an object it releases with the matching
 *   `Release…`. An entry with `Owned` in its name takes the object it is given, all or nothing:
 *   when it fails the caller still owns everything it passed. From then on the handle is a borrowed
 *   view, valid while its parent lives, and its `Release…` is refused (logged, nothing freed).
 *   `Get…` borrows: the handle (or string, or array) is valid while the object it came from lives
 *   and that object is not changed; asking twice gives the same handle. Handles stay valid through
 *   changes; borrowed strings and arrays do not: adding an attribute to a node, or a node to a
 *   graph, invalidates the strings and arrays borrowed from that node and its attributes.
 *   `Release…` returns nothing and accepts NULL.
 * - Indexed parts: `GetNumX` and `GetX(index)`; an index out of range is KILN_INVALID_ARGUMENT.
 * - Strings come back as KilnStringRef {data, length}, borrowed, which may hold NUL bytes (an
 *   attribute's bytes) and are not NUL-terminated unless said.
 * - Printing calls back with pieces of text (KilnPrintCallback); copy what you keep.
 * - A session's graphs are read-only views: an entry that would change one fails with
 *   KILN_INVALID_ARGUMENT. Once the session is released every handle of its views is refused with
 *   KILN_INVALID_ARGUMENT (best effort, as for every released handle).
 * - Objects are not locked: build or change a model from one thread at a time. Reading one (and a
 *   session's views) from many threads at once is safe.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_GRAPH_API_H_
#define KILN_KILN_GRAPH_API_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"
#include "kiln/kiln_custom_op.h" /* KilnAttributeType */

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the KilnGraphApi table this header describes. Pass it to GetGraphApi. */
#define KILN_GRAPH_API_VERSION 1

/** The rank a type gives when it does not know the rank (TypeInfoGetRank, CreateTensorTypeInfo). */
#define KILN_RANK_UNKNOWN ((size_t)-1)

/** The input index ValueInfoGetConsumer gives for a read by one of the node's subgraphs. */
#define KILN_IMPLICIT_INPUT ((size_t)-1)

/** A model: its IR version, opset imports and main graph. */
typedef struct KilnModel KilnModel;
/** A graph: named inputs, outputs, initializers and nodes. */
typedef struct KilnGraph KilnGraph;
/** A node: one operator application. */
typedef struct KilnNode KilnNode;
/** A value (an edge of the graph): its name, type, producer and consumers. */
typedef struct KilnValueInfo KilnValueInfo;
/** A node attribute: a name and a value of one of ONNX's attribute types. */
typedef struct KilnAttribute KilnAttribute;
/** The type of a value: a tensor, a sequence, a map, an optional or a sparse tensor. */
typedef struct KilnTypeInfo KilnTypeInfo;
/** The graph sub-table (below). */
typedef struct KilnGraphApi KilnGraphApi;

/** A borrowed string: @c length bytes at @c data, which may include NUL bytes. */
typedef struct KilnStringRef {
  const char* data; /**< The first byte (never NULL; "" for an empty string). */
  size_t length;    /**< The number of bytes. */
} KilnStringRef;

/**
 * Receives printed text in pieces, in order.
 *
 * @param[in] data    @p length bytes of UTF-8 text, valid only during the call.
 * @param[in] length  Their number.
 * @param[in] user    What the caller passed with the callback.
 */
typedef void(KILN_API_CALL* KilnPrintCallback)(const char* data, size_t length, void* user);

/** Which of a session's graphs SessionGetGraph shows. */
typedef enum KilnGraphStage {
  /** The graph as loaded, before any optimization (needs the session config entry
   *  "kiln.graph.keep_loaded" = "1"). */
  KILN_GRAPH_LOADED = 1,
  /** The graph the session runs: optimized, with a kernel for each node. */
  KILN_GRAPH_OPTIMIZED = 2,
} KilnGraphStage;

/** What a type describes (TypeInfoGetKind). */
typedef enum KilnTypeKind {
  KILN_TYPE_UNDEFINED = 0,     /**< Nothing is known of the value's type. */
  KILN_TYPE_TENSOR = 1,        /**< A tensor: element type and (maybe) shape. */
  KILN_TYPE_SEQUENCE = 2,      /**< A sequence of values of one type. */
  KILN_TYPE_MAP = 3,           /**< A map: key element type and value type. */
  KILN_TYPE_OPTIONAL = 4,      /**< An optional value of one type. */
  KILN_TYPE_SPARSE_TENSOR = 5, /**< A sparse tensor: element type and (maybe) shape. */
} KilnTypeKind;

/** Flags of ModelPrint and GraphPrint (combine with |). */
typedef enum KilnPrintFlags {
  /** ONNX's textual syntax only. */
  KILN_PRINT_DEFAULT = 0,
  /** Also `#` comments after each node of a session's optimized graph: the kernel it runs and
   *  the loaded nodes it was fused from. */
  KILN_PRINT_DEBUG = 1,
} KilnPrintFlags;

/**
 * The graph sub-table, version 1. Slots are only ever appended, as in KilnApi.
 */
struct KilnGraphApi {
  /* ---- Models ------------------------------------------------------------------------------ */

  /**
   * Slot 0. An empty model: no graph yet (ModelSetOwnedGraph gives it one).
   *
   * @param[in]  ir_version       The ONNX IR version (3 to 13).
   * @param[in]  opset_domains    @p opset_count domains ("" or "ai.onnx" for ONNX's), each once.
   * @param[in]  opset_versions   The version imported of each domain (at least 1).
   * @param[in]  opset_count      How many opsets are imported (may be 0: both arrays may be NULL).
   * @param[out] out              Receives the model; release it with ReleaseModel.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the argument).
   */
  KILN_SLOT(KilnStatus*, CreateModel,
            (int64_t ir_version, const char* const* opset_domains, const int64_t* opset_versions,
             size_t opset_count, KilnModel** out));

  /**
   * Slot 1. A model read from an `.onnx` file (external data beside it), as loaded, not optimized.
   *
   * @param[in]  path  The file.
   * @param[out] out   Receives the model; release it with ReleaseModel.
   * @return NULL on success, else a status (KILN_NO_SUCHFILE, KILN_INVALID_PROTOBUF,
   *         KILN_INVALID_GRAPH, KILN_NOT_IMPLEMENTED, KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateModelFromFile, (const char* path, KilnModel** out));

  /**
   * Slot 2. A model read from serialized `.onnx` bytes (copied; no external data).
   *
   * @param[in]  data      The bytes.
   * @param[in]  data_len  Their number (not 0).
   * @param[out] out       Receives the model; release it with ReleaseModel.
   * @return NULL on success, else a status (as CreateModelFromFile).
   */
  KILN_SLOT(KilnStatus*, CreateModelFromArray,
            (const void* data, size_t data_len, KilnModel** out));

  /**
   * Slot 3. A model read from ONNX's textual syntax (onnx.parser's grammar, as ModelPrint writes
   * it: quoted names and `#` comments are accepted).
   *
   * @param[in]  text      UTF-8 text (need not be NUL-terminated).
   * @param[in]  text_len  Its length in bytes.
   * @param[out] out       Receives the model; release it with ReleaseModel.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT giving the line and column where
   *         the text stops parsing, or the loader's codes for a model it refuses.
   */
  KILN_SLOT(KilnStatus*, CreateModelFromText,
            (const char* text, size_t text_len, KilnModel** out));

  /**
   * Slot 4. Releases a model made by a Create entry, and with it every handle into it.
   *
   * @param[in] model  The model, or NULL. A session's view (GraphGetModel) is refused (logged).
   */
  KILN_SLOT(void, ReleaseModel, (KilnModel * model));

  /**
   * Slot 5. The model's IR version.
   *
   * @param[in]  model  The model.
   * @param[out] out    Receives the version.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelGetIrVersion, (const KilnModel* model, int64_t* out));

  /**
   * Slot 6. How many opsets the model imports.
   *
   * @param[in]  model  The model.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelGetNumOpsetImports, (const KilnModel* model, size_t* out));

  /**
   * Slot 7. One opset import, in the order of their domains' names ("" is ONNX's).
   *
   * @param[in]  model    The model.
   * @param[in]  index    Below ModelGetNumOpsetImports.
   * @param[out] domain   Receives the domain, borrowed from @p model.
   * @param[out] version  Receives the version imported.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelGetOpsetImport,
            (const KilnModel* model, size_t index, KilnStringRef* domain, int64_t* version));

  /**
   * Slot 8. Makes @p graph the model's main graph, taking ownership of it (all or nothing).
   *
   * @param[in] model  A model without a graph, not a session's view.
   * @param[in] graph  A graph the caller owns (CreateGraph); a view from then on.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: the model has a graph, or the
   *         graph is owned by something else).
   */
  KILN_SLOT(KilnStatus*, ModelSetOwnedGraph, (KilnModel * model, KilnGraph* graph));

  /**
   * Slot 9. The model's main graph.
   *
   * @param[in]  model  The model.
   * @param[out] out    Receives the graph, borrowed from @p model; NULL when it has none.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelGetGraph, (const KilnModel* model, KilnGraph** out));

  /**
   * Slot 10. Checks that a session could be made from the model, without making one: the graph
   * structure (every input read is defined, one producer per value, no cycle, every domain
   * imported); ONNX's checker's node rules (input and output counts, attribute names and types,
   * required attributes) for the nodes of the opsets ONNX 1.12's schemas cover (ai.onnx up to
   * 17, ai.onnx.ml up to 3); every node's kernel (a known op at the imported opset) and Kiln's
   * type and shape inference. Changes nothing the caller can see.
   *
   * @param[in] model    The model.
   * @param[in] options  Session options whose custom ops count as known; may be NULL.
   * @return NULL when it is valid, else a status naming the node (KILN_INVALID_GRAPH,
   *         KILN_NOT_IMPLEMENTED for an op or opset Kiln does not know, KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelVerify, (const KilnModel* model, const KilnSessionOptions* options));

  /**
   * Slot 11. Writes the model to an `.onnx` file; tensors past 2 GiB in all go to an external
   * data file beside it ("<file name>.data").
   *
   * @param[in] model  The model (it must have a graph).
   * @param[in] path   The file to create or truncate.
   * @return NULL on success, else a status (KILN_NO_SUCHFILE when it cannot be written,
   *         KILN_INVALID_GRAPH for a model that does not verify, KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ModelSave, (const KilnModel* model, const char* path));

  /**
   * Slot 12. Prints the model in ONNX's textual syntax.
   *
   * @param[in] model        The model (it must have a graph).
   * @param[in] elide_above  Initializers and tensor attributes of more elements than this are
   *                         declared without their values (a `#` comment gives their size, and
   *                         the text no longer parses); -1 prints every value.
   * @param[in] flags        KilnPrintFlags.
   * @param[in] callback     Called with the text, in pieces.
   * @param[in] user         Passed to @p callback.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT); the callback may have been
   *         called before a failure.
   */
  KILN_SLOT(KilnStatus*, ModelPrint,
            (const KilnModel* model, int64_t elide_above, uint32_t flags,
             KilnPrintCallback callback, void* user));

  /**
   * Slot 13. A session running the model. The model is not consumed: the session works on its own
   * copy (initializers are shared, not copied), so the model may be changed or released after.
   *
   * @param[in]  env      The environment.
   * @param[in]  model    The model (it must have a graph).
   * @param[in]  options  Session options; may be NULL for the defaults.
   * @param[out] out      Receives the session; release it with KilnApi::ReleaseSession.
   * @return NULL on success, else a status (as KilnApi::CreateSession).
   */
  KILN_SLOT(KilnStatus*, CreateSessionFromModel,
            (const KilnEnv* env, const KilnModel* model, const KilnSessionOptions* options,
             KilnSession** out));

  /**
   * Slot 14. A read-only view of a session's graph: nodes in topological order, values with their
   * inferred types and shapes, initializers without a copy.
   *
   * @param[in]  session  The session.
   * @param[in]  stage    KILN_GRAPH_OPTIMIZED: what the session runs; KILN_GRAPH_LOADED: the graph
   *                      as loaded (kept only when the session was made with the config entry
   *                      "kiln.graph.keep_loaded" = "1").
   * @param[out] out      Receives the graph, borrowed from @p session (valid until it is
   *                      released).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetGraph,
            (const KilnSession* session, KilnGraphStage stage, KilnGraph** out));

  /* ---- Graphs ------------------------------------------------------------------------------ */

  /**
   * Slot 15. An empty graph.
   *
   * @param[in]  name  Its name (may be "").
   * @param[out] out   Receives the graph; release it with ReleaseGraph, or hand it to
   *                   ModelSetOwnedGraph or an attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateGraph, (const char* name, KilnGraph** out));

  /**
   * Slot 16. Releases a graph the caller owns, with its nodes and values.
   *
   * @param[in] graph  The graph, or NULL. One owned by a model or an attribute is refused (logged,
   *                   nothing freed).
   */
  KILN_SLOT(void, ReleaseGraph, (KilnGraph * graph));

  /**
   * Slot 17. The model a graph belongs to (for a subgraph, the model of its outermost graph).
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the model, borrowed; NULL for a graph no model owns.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetModel, (const KilnGraph* graph, KilnModel** out));

  /**
   * Slot 18. The graph's name.
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the name, borrowed from @p graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetName, (const KilnGraph* graph, KilnStringRef* out));

  /**
   * Slot 19. How many inputs the graph has (for a session's main graph, the overridable
   * initializers included).
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetNumInputs, (const KilnGraph* graph, size_t* out));

  /**
   * Slot 20. One input of the graph.
   *
   * @param[in]  graph  The graph.
   * @param[in]  index  Below GraphGetNumInputs.
   * @param[out] out    Receives the value, borrowed from @p graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetInput, (const KilnGraph* graph, size_t index, KilnValueInfo** out));

  /**
   * Slot 21. How many outputs the graph has.
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetNumOutputs, (const KilnGraph* graph, size_t* out));

  /**
   * Slot 22. One output of the graph.
   *
   * @param[in]  graph  The graph.
   * @param[in]  index  Below GraphGetNumOutputs.
   * @param[out] out    Receives the value, borrowed from @p graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetOutput,
            (const KilnGraph* graph, size_t index, KilnValueInfo** out));

  /**
   * Slot 23. How many initializers (constant values) the graph has, in name order.
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetNumInitializers, (const KilnGraph* graph, size_t* out));

  /**
   * Slot 24. One initializer; ValueInfoGetInitializer gives its tensor.
   *
   * @param[in]  graph  The graph.
   * @param[in]  index  Below GraphGetNumInitializers.
   * @param[out] out    Receives the value, borrowed from @p graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetInitializer,
            (const KilnGraph* graph, size_t index, KilnValueInfo** out));

  /**
   * Slot 25. How many nodes the graph has.
   *
   * @param[in]  graph  The graph.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetNumNodes, (const KilnGraph* graph, size_t* out));

  /**
   * Slot 26. One node, in topological order (every producer before its consumers; for a graph
   * with a cycle, the order nodes were added in).
   *
   * @param[in]  graph  The graph.
   * @param[in]  index  Below GraphGetNumNodes.
   * @param[out] out    Receives the node, borrowed from @p graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphGetNode, (const KilnGraph* graph, size_t index, KilnNode** out));

  /**
   * Slot 27. Gives a graph without inputs its inputs, taking ownership of the value infos (all
   * or nothing).
   *
   * @param[in] graph   A graph that is not a session's view and has no inputs yet.
   * @param[in] inputs  @p count value infos the caller owns (CreateValueInfo), with distinct names
   *                    that no node of the graph produces and no initializer has.
   * @param[in] count   Their number.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
   */
  KILN_SLOT(KilnStatus*, GraphSetOwnedInputs,
            (KilnGraph * graph, KilnValueInfo* const* inputs, size_t count));

  /**
   * Slot 28. Gives a graph without outputs its outputs, taking ownership of the value infos (all
   * or nothing). An output names a value a node of the graph produces (or an input or an
   * initializer); its type, when given, is the declared type of that value.
   *
   * @param[in] graph    A graph that is not a session's view and has no outputs yet.
   * @param[in] outputs  @p count value infos the caller owns, with distinct names.
   * @param[in] count    Their number.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
   */
  KILN_SLOT(KilnStatus*, GraphSetOwnedOutputs,
            (KilnGraph * graph, KilnValueInfo* const* outputs, size_t count));

  /**
   * Slot 29. Adds a constant value to the graph. The tensor is shared, not copied: do not change
   * its data while the model (or a session made from it) uses it.
   *
   * @param[in] graph  A graph that is not a session's view.
   * @param[in] name   A name no input, initializer or node output of the graph has.
   * @param[in] value  A tensor (not one lent to a custom op's Compute).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphAddInitializer,
            (KilnGraph * graph, const char* name, const KilnValue* value));

  /**
   * Slot 30. Appends a node to the graph, taking ownership of it (all or nothing). Its inputs and
   * outputs are linked by name: a name the graph does not have yet becomes a value the graph
   * will have to define (a later node's output, an input or an initializer), or, in a subgraph,
   * one read from an enclosing graph.
   *
   * @param[in] graph  A graph that is not a session's view.
   * @param[in] node   A node the caller owns (CreateNode); a view from then on. None of its
   *                   outputs may already be produced, be an input or be an initializer.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the output at fault).
   */
  KILN_SLOT(KilnStatus*, GraphAddOwnedNode, (KilnGraph * graph, KilnNode* node));

  /**
   * Slot 31. Prints one graph in ONNX's textual syntax (onnx.parser's parse_graph grammar).
   *
   * @param[in] graph        The graph.
   * @param[in] elide_above  As ModelPrint.
   * @param[in] flags        KilnPrintFlags.
   * @param[in] callback     Called with the text, in pieces.
   * @param[in] user         Passed to @p callback.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GraphPrint,
            (const KilnGraph* graph, int64_t elide_above, uint32_t flags,
             KilnPrintCallback callback, void* user));

  /* ---- Types ------------------------------------------------------------------------------- */

  /**
   * Slot 32. A tensor type.
   *
   * @param[in]  element_type  The element type (KILN_ELEMENT_TYPE_UNDEFINED: not known).
   * @param[in]  dims          @p rank dimensions, -1 where not known; NULL when @p rank is 0 or
   *                           KILN_RANK_UNKNOWN.
   * @param[in]  dim_params    NULL, or @p rank names of symbolic dimensions (NULL or "" where a
   *                           dimension has none; a named dimension must be -1 in @p dims).
   * @param[in]  rank          The rank, or KILN_RANK_UNKNOWN (then the shape is not known).
   * @param[out] out           Receives the type; release it with ReleaseTypeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateTensorTypeInfo,
            (KilnElementType element_type, const int64_t* dims, const char* const* dim_params,
             size_t rank, KilnTypeInfo** out));

  /**
   * Slot 33. A sparse tensor type, with the arguments of CreateTensorTypeInfo. (Kiln's kernels
   * take no sparse tensors; such a type describes, it does not run.)
   *
   * @param[in]  element_type  The element type.
   * @param[in]  dims          As CreateTensorTypeInfo.
   * @param[in]  dim_params    As CreateTensorTypeInfo.
   * @param[in]  rank          As CreateTensorTypeInfo.
   * @param[out] out           Receives the type; release it with ReleaseTypeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateSparseTensorTypeInfo,
            (KilnElementType element_type, const int64_t* dims, const char* const* dim_params,
             size_t rank, KilnTypeInfo** out));

  /**
   * Slot 34. A sequence type.
   *
   * @param[in]  element  The type of its elements (copied).
   * @param[out] out      Receives the type; release it with ReleaseTypeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateSequenceTypeInfo,
            (const KilnTypeInfo* element, KilnTypeInfo** out));

  /**
   * Slot 35. An optional type.
   *
   * @param[in]  element  The type of the value it may hold (copied): a tensor or a sequence.
   * @param[out] out      Receives the type; release it with ReleaseTypeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateOptionalTypeInfo,
            (const KilnTypeInfo* element, KilnTypeInfo** out));

  /**
   * Slot 36. A map type.
   *
   * @param[in]  key    The key element type: an integer type or STRING.
   * @param[in]  value  The type of its values (copied).
   * @param[out] out    Receives the type; release it with ReleaseTypeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateMapTypeInfo,
            (KilnElementType key, const KilnTypeInfo* value, KilnTypeInfo** out));

  /**
   * Slot 37. Releases a type made by a Create entry.
   *
   * @param[in] type  The type, or NULL. A borrowed one (ValueInfoGetType) is refused (logged).
   */
  KILN_SLOT(void, ReleaseTypeInfo, (KilnTypeInfo * type));

  /**
   * Slot 38. What the type describes.
   *
   * @param[in]  type  The type.
   * @param[out] out   Receives the kind.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetKind, (const KilnTypeInfo* type, KilnTypeKind* out));

  /**
   * Slot 39. The element type: a (sparse) tensor's, a map's key type, or for a sequence or
   * optional the element type of the tensors inside (KILN_ELEMENT_TYPE_UNDEFINED when not known).
   *
   * @param[in]  type  The type.
   * @param[out] out   Receives the element type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetElementType, (const KilnTypeInfo* type, KilnElementType* out));

  /**
   * Slot 40. The rank of a (sparse) tensor type.
   *
   * @param[in]  type  The type.
   * @param[out] out   Receives the rank, or KILN_RANK_UNKNOWN (also for other kinds).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetRank, (const KilnTypeInfo* type, size_t* out));

  /**
   * Slot 41. The dimensions of a (sparse) tensor type of known rank, -1 where not known.
   *
   * @param[in]  type      The type.
   * @param[out] dims      Receives the rank's worth of dimensions.
   * @param[in]  dims_len  The room in @p dims: at least the rank.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetDimensions,
            (const KilnTypeInfo* type, int64_t* dims, size_t dims_len));

  /**
   * Slot 42. The symbolic name of one dimension ("" when it has none).
   *
   * @param[in]  type   The type (of known rank).
   * @param[in]  index  Below the rank.
   * @param[out] out    Receives the name, borrowed from @p type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetDimParam,
            (const KilnTypeInfo* type, size_t index, KilnStringRef* out));

  /**
   * Slot 43. The type inside: a sequence's elements, an optional's value, a map's values.
   *
   * @param[in]  type  The type.
   * @param[out] out   Receives the type, borrowed from @p type; NULL when not known or when the
   *                   kind has none.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, TypeInfoGetContainedType,
            (const KilnTypeInfo* type, const KilnTypeInfo** out));

  /* ---- Values (edges) ------------------------------------------------------------------------ */

  /**
   * Slot 44. A value info for GraphSetOwnedInputs or GraphSetOwnedOutputs.
   *
   * @param[in]  name  The value's name (not "").
   * @param[in]  type  Its type (copied); NULL when not known (left to inference).
   * @param[out] out   Receives the value info; release it with ReleaseValueInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateValueInfo,
            (const char* name, const KilnTypeInfo* type, KilnValueInfo** out));

  /**
   * Slot 45. Releases a value info the caller owns.
   *
   * @param[in] value  The value info, or NULL. One a graph owns is refused (logged).
   */
  KILN_SLOT(void, ReleaseValueInfo, (KilnValueInfo * value));

  /**
   * Slot 46. The value's name.
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives the name, borrowed from @p value.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetName, (const KilnValueInfo* value, KilnStringRef* out));

  /**
   * Slot 47. The value's type: as declared, or, in a session's view, as inferred (symbolic
   * dimension names kept).
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives the type, borrowed from @p value (kind KILN_TYPE_UNDEFINED when
   *                    nothing is known).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetType, (const KilnValueInfo* value, const KilnTypeInfo** out));

  /**
   * Slot 48. The node that produces the value.
   *
   * @param[in]  value         The value.
   * @param[out] node          Receives the node, borrowed; NULL for a graph input, an
   *                           initializer, a value read from an enclosing graph or one not
   *                           produced yet.
   * @param[out] output_index  Receives which output of @p node it is (0 when there is no node).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetProducer,
            (const KilnValueInfo* value, KilnNode** node, size_t* output_index));

  /**
   * Slot 49. How many times nodes of the value's graph read it (a node reading it twice counts
   * twice; a read by a node's subgraph counts once for that node).
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetNumConsumers, (const KilnValueInfo* value, size_t* out));

  /**
   * Slot 50. One read of the value.
   *
   * @param[in]  value        The value.
   * @param[in]  index        Below ValueInfoGetNumConsumers.
   * @param[out] node         Receives the node that reads it, borrowed.
   * @param[out] input_index  Receives which input of @p node it is, or KILN_IMPLICIT_INPUT for a
   *                          read by the node's subgraphs.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetConsumer,
            (const KilnValueInfo* value, size_t index, KilnNode** node, size_t* input_index));

  /**
   * Slot 51. The constant data of an initializer, or the default of a graph input that has one
   * (an overridable initializer), without a copy. Read it with KilnApi::GetTensorData; it cannot
   * be changed (KilnApi::GetTensorMutableData refuses it) or released.
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives the tensor, borrowed from @p value; NULL when it has none.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoGetInitializer,
            (const KilnValueInfo* value, const KilnValue** out));

  /**
   * Slot 52. Whether the value is read from an enclosing graph (a subgraph's captured name; see
   * NodeGetNumImplicitInputs for a model being built).
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives 1 or 0.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ValueInfoIsCaptured, (const KilnValueInfo* value, int* out));

  /* ---- Nodes ------------------------------------------------------------------------------- */

  /**
   * Slot 53. A node, to add to a graph with GraphAddOwnedNode.
   *
   * @param[in]  op_type       The operator (not "").
   * @param[in]  domain        Its domain: "" (or "ai.onnx") for ONNX's.
   * @param[in]  name          The node's name (may be "").
   * @param[in]  inputs        @p input_count value names; "" for an optional input left out.
   * @param[in]  input_count   Their number (when 0, @p inputs may be NULL).
   * @param[in]  outputs       @p output_count value names; "" for an optional output left out.
   * @param[in]  output_count  Their number (when 0, @p outputs may be NULL).
   * @param[out] out           Receives the node; release it with ReleaseNode, or hand it to
   *                           GraphAddOwnedNode.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the argument and entry).
   */
  KILN_SLOT(KilnStatus*, CreateNode,
            (const char* op_type, const char* domain, const char* name,
             const char* const* inputs, size_t input_count, const char* const* outputs,
             size_t output_count, KilnNode** out));

  /**
   * Slot 54. Releases a node the caller owns, with its attributes.
   *
   * @param[in] node  The node, or NULL. One a graph owns is refused (logged).
   */
  KILN_SLOT(void, ReleaseNode, (KilnNode * node));

  /**
   * Slot 55. The node's name.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the name, borrowed from @p node.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetName, (const KilnNode* node, KilnStringRef* out));

  /**
   * Slot 56. The node's operator.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the op type, borrowed from @p node.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetOpType, (const KilnNode* node, KilnStringRef* out));

  /**
   * Slot 57. The operator's domain ("" for ONNX's).
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the domain, borrowed from @p node.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetDomain, (const KilnNode* node, KilnStringRef* out));

  /**
   * Slot 58. The opset version the definition the node uses dates from: ONNX's since-version
   * (for Relu at opset 17, 14), from ONNX's operator history as Kiln knows it (every version up
   * to opset 17, and each op's newest since). For an op ONNX does not define (a contrib op,
   * Kiln's own, a custom op), the first opset of the range of the kernel that runs it; when there
   * is none, the version the model imports; 0 for a node not in a model yet.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the version.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetSinceVersion, (const KilnNode* node, int64_t* out));

  /**
   * Slot 59. How many inputs the node has (optional ones left out included).
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetNumInputs, (const KilnNode* node, size_t* out));

  /**
   * Slot 60. One input of a node in a graph.
   *
   * @param[in]  node   A node a graph owns.
   * @param[in]  index  Below NodeGetNumInputs.
   * @param[out] out    Receives the value, borrowed; NULL for an optional input left out.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetInput, (const KilnNode* node, size_t index, KilnValueInfo** out));

  /**
   * Slot 61. How many outputs the node has.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetNumOutputs, (const KilnNode* node, size_t* out));

  /**
   * Slot 62. One output of a node in a graph.
   *
   * @param[in]  node   A node a graph owns.
   * @param[in]  index  Below NodeGetNumOutputs.
   * @param[out] out    Receives the value, borrowed; NULL for an optional output left out.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetOutput, (const KilnNode* node, size_t index, KilnValueInfo** out));

  /**
   * Slot 63. How many values of the node's graph its subgraphs read (captured names). For a
   * model being built they are worked out again after each change, when asked for (this entry,
   * NodeGetImplicitInput, ValueInfoGetNumConsumers, ValueInfoGetConsumer, ValueInfoIsCaptured,
   * GraphGetNode and the print entries): a name a subgraph reads and no graph defines yet becomes
   * a value of the outermost graph, which must be defined before the model verifies.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetNumImplicitInputs, (const KilnNode* node, size_t* out));

  /**
   * Slot 64. One value of the node's graph its subgraphs read.
   *
   * @param[in]  node   A node a graph owns.
   * @param[in]  index  Below NodeGetNumImplicitInputs.
   * @param[out] out    Receives the value, borrowed.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetImplicitInput,
            (const KilnNode* node, size_t index, KilnValueInfo** out));

  /**
   * Slot 65. How many attributes the node has.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetNumAttributes, (const KilnNode* node, size_t* out));

  /**
   * Slot 66. One attribute, in the order they were given.
   *
   * @param[in]  node   The node.
   * @param[in]  index  Below NodeGetNumAttributes.
   * @param[out] out    Receives the attribute, borrowed from @p node.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetAttribute,
            (const KilnNode* node, size_t index, KilnAttribute** out));

  /**
   * Slot 67. The attribute of a given name.
   *
   * @param[in]  node  The node.
   * @param[in]  name  The attribute's name.
   * @param[out] out   Receives the attribute, borrowed from @p node; NULL when it has none.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetAttributeByName,
            (const KilnNode* node, const char* name, KilnAttribute** out));

  /**
   * Slot 68. Adds an attribute to the node, taking ownership of it (all or nothing).
   *
   * @param[in] node       A node that is not in a session's view.
   * @param[in] attribute  An attribute the caller owns, named differently from the node's others.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeAddOwnedAttribute, (KilnNode * node, KilnAttribute* attribute));

  /**
   * Slot 69. The kernel that runs the node, for a node of a session's optimized view: the
   * provider, the domain and op type it is registered for and its opset range, such as
   * "CPU ai.onnx::Conv opsets 11+" ("N+": to the newest opset), "CPU ai.onnx::Pad opsets 2-10"
   * or "custom my.domain::Negate opsets 1+"; "folded into a constant at load" for a node the
   * session computed once at load.
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the text (NUL-terminated too), borrowed from @p node; "" for a
   *                   node of any other graph.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetKernel, (const KilnNode* node, KilnStringRef* out));

  /**
   * Slot 70. How many nodes of the loaded graph the optimizer fused into this one (0 for a node
   * as loaded, or one a pass added).
   *
   * @param[in]  node  The node.
   * @param[out] out   Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetNumFusedFrom, (const KilnNode* node, size_t* out));

  /**
   * Slot 71. The name of one loaded node this node was fused from.
   *
   * @param[in]  node   The node.
   * @param[in]  index  Below NodeGetNumFusedFrom.
   * @param[out] out    Receives the name, borrowed from @p node.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, NodeGetFusedFrom,
            (const KilnNode* node, size_t index, KilnStringRef* out));

  /* ---- Attributes ---------------------------------------------------------------------------- */

  /**
   * Slot 72. An INT attribute.
   *
   * @param[in]  name   Its name (not "").
   * @param[in]  value  Its value.
   * @param[out] out    Receives the attribute; release it with ReleaseAttribute, or hand it to
   *                    NodeAddOwnedAttribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeInt, (const char* name, int64_t value, KilnAttribute** out));

  /**
   * Slot 73. A FLOAT attribute.
   *
   * @param[in]  name   Its name (not "").
   * @param[in]  value  Its value.
   * @param[out] out    Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeFloat, (const char* name, float value, KilnAttribute** out));

  /**
   * Slot 74. A STRING attribute (bytes, which may include NUL).
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  data    @p length bytes (copied; may be NULL when @p length is 0).
   * @param[in]  length  Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeString,
            (const char* name, const char* data, size_t length, KilnAttribute** out));

  /**
   * Slot 75. A TENSOR attribute; the tensor is shared, not copied.
   *
   * @param[in]  name   Its name (not "").
   * @param[in]  value  A tensor.
   * @param[out] out    Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeTensor,
            (const char* name, const KilnValue* value, KilnAttribute** out));

  /**
   * Slot 76. A GRAPH attribute (the body of an If, Loop or Scan), taking ownership of the graph
   * (all or nothing). Names its nodes read that it does not define are read from the graphs
   * around it.
   *
   * @param[in]  name   Its name (not "").
   * @param[in]  graph  A graph the caller owns; a view from then on.
   * @param[out] out    Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeWithOwnedGraph,
            (const char* name, KilnGraph* graph, KilnAttribute** out));

  /**
   * Slot 77. An INTS attribute.
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  values  @p count values (copied; may be NULL when @p count is 0).
   * @param[in]  count   Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeInts,
            (const char* name, const int64_t* values, size_t count, KilnAttribute** out));

  /**
   * Slot 78. A FLOATS attribute.
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  values  @p count values (copied; may be NULL when @p count is 0).
   * @param[in]  count   Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeFloats,
            (const char* name, const float* values, size_t count, KilnAttribute** out));

  /**
   * Slot 79. A STRINGS attribute.
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  values  @p count strings (copied; may be NULL when @p count is 0).
   * @param[in]  count   Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeStrings,
            (const char* name, const KilnStringRef* values, size_t count, KilnAttribute** out));

  /**
   * Slot 80. A TENSORS attribute; the tensors are shared, not copied.
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  values  @p count tensors (may be NULL when @p count is 0).
   * @param[in]  count   Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeTensors,
            (const char* name, const KilnValue* const* values, size_t count, KilnAttribute** out));

  /**
   * Slot 81. A GRAPHS attribute, taking ownership of the graphs (all or nothing).
   *
   * @param[in]  name    Its name (not "").
   * @param[in]  graphs  @p count distinct graphs the caller owns (may be NULL when @p count is 0).
   * @param[in]  count   Their number.
   * @param[out] out     Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeWithOwnedGraphs,
            (const char* name, KilnGraph* const* graphs, size_t count, KilnAttribute** out));

  /**
   * Slot 82. Releases an attribute the caller owns (and the graphs it owns).
   *
   * @param[in] attribute  The attribute, or NULL. One a node owns is refused (logged).
   */
  KILN_SLOT(void, ReleaseAttribute, (KilnAttribute * attribute));

  /**
   * Slot 83. The attribute's name.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the name, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetName, (const KilnAttribute* attribute, KilnStringRef* out));

  /**
   * Slot 84. The attribute's type.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetType,
            (const KilnAttribute* attribute, KilnAttributeType* out));

  /**
   * Slot 85. The value of an INT attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the value.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetInt, (const KilnAttribute* attribute, int64_t* out));

  /**
   * Slot 86. The value of a FLOAT attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the value.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetFloat, (const KilnAttribute* attribute, float* out));

  /**
   * Slot 87. The bytes of a STRING attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the bytes, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetString,
            (const KilnAttribute* attribute, KilnStringRef* out));

  /**
   * Slot 88. The tensor of a TENSOR attribute (read-only, as ValueInfoGetInitializer's).
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the tensor, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetTensor,
            (const KilnAttribute* attribute, const KilnValue** out));

  /**
   * Slot 89. The graph of a GRAPH attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the graph, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetGraph, (const KilnAttribute* attribute, KilnGraph** out));

  /**
   * Slot 90. How many elements a list attribute (FLOATS, INTS, STRINGS, TENSORS, GRAPHS,
   * SPARSE_TENSORS, TYPE_PROTOS) has.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: not a list).
   */
  KILN_SLOT(KilnStatus*, AttributeGetNumElements, (const KilnAttribute* attribute, size_t* out));

  /**
   * Slot 91. The values of an INTS attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the array, borrowed from @p attribute (NULL when empty);
   *                        AttributeGetNumElements gives its length.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetInts, (const KilnAttribute* attribute, const int64_t** out));

  /**
   * Slot 92. The values of a FLOATS attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the array, borrowed from @p attribute (NULL when empty).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetFloats, (const KilnAttribute* attribute, const float** out));

  /**
   * Slot 93. One string of a STRINGS attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[in]  index      Below AttributeGetNumElements.
   * @param[out] out        Receives the bytes, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetStringAt,
            (const KilnAttribute* attribute, size_t index, KilnStringRef* out));

  /**
   * Slot 94. One tensor of a TENSORS attribute (read-only).
   *
   * @param[in]  attribute  The attribute.
   * @param[in]  index      Below AttributeGetNumElements.
   * @param[out] out        Receives the tensor, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetTensorAt,
            (const KilnAttribute* attribute, size_t index, const KilnValue** out));

  /**
   * Slot 95. One graph of a GRAPHS attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[in]  index      Below AttributeGetNumElements.
   * @param[out] out        Receives the graph, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetGraphAt,
            (const KilnAttribute* attribute, size_t index, KilnGraph** out));

  /**
   * Slot 96. A SPARSE_TENSOR attribute (the `sparse_value` of Constant, say); the tensors are
   * shared, not copied.
   *
   * @param[in]  name     Its name (not "").
   * @param[in]  values   The non-zero values: a 1-D tensor of NNZ elements.
   * @param[in]  indices  Where they are: an INT64 tensor of shape [NNZ, rank] (coordinates) or
   *                      [NNZ] (offsets into the dense tensor, row-major), each inside @p dims.
   * @param[in]  dims     The dense shape: @p rank dimensions, none negative.
   * @param[in]  rank     Its rank (at least 1).
   * @param[out] out      Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming what is wrong).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeSparseTensor,
            (const char* name, const KilnValue* values, const KilnValue* indices,
             const int64_t* dims, size_t rank, KilnAttribute** out));

  /**
   * Slot 97. A SPARSE_TENSORS attribute: @p count sparse tensors, each given as to
   * CreateAttributeSparseTensor.
   *
   * @param[in]  name     Its name (not "").
   * @param[in]  values   @p count value tensors.
   * @param[in]  indices  @p count index tensors.
   * @param[in]  dims     @p count dense shapes.
   * @param[in]  ranks    @p count ranks.
   * @param[in]  count    Their number (when 0, the arrays may be NULL).
   * @param[out] out      Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeSparseTensors,
            (const char* name, const KilnValue* const* values, const KilnValue* const* indices,
             const int64_t* const* dims, const size_t* ranks, size_t count, KilnAttribute** out));

  /**
   * Slot 98. A TYPE_PROTO attribute (the `type` of Optional, say).
   *
   * @param[in]  name  Its name (not "").
   * @param[in]  type  The type (copied).
   * @param[out] out   Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeTypeProto,
            (const char* name, const KilnTypeInfo* type, KilnAttribute** out));

  /**
   * Slot 99. A TYPE_PROTOS attribute.
   *
   * @param[in]  name   Its name (not "").
   * @param[in]  types  @p count types (copied; may be NULL when @p count is 0).
   * @param[in]  count  Their number.
   * @param[out] out    Receives the attribute (as CreateAttributeInt).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, CreateAttributeTypeProtos,
            (const char* name, const KilnTypeInfo* const* types, size_t count,
             KilnAttribute** out));

  /**
   * Slot 100. The parts of a SPARSE_TENSOR attribute, borrowed from @p attribute (the tensors
   * read-only, as ValueInfoGetInitializer's).
   *
   * @param[in]  attribute  The attribute.
   * @param[out] values     Receives the values tensor.
   * @param[out] indices    Receives the indices tensor.
   * @param[out] dims       Receives the dense shape's dimensions.
   * @param[out] rank       Receives their number.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetSparseTensor,
            (const KilnAttribute* attribute, const KilnValue** values, const KilnValue** indices,
             const int64_t** dims, size_t* rank));

  /**
   * Slot 101. One sparse tensor of a SPARSE_TENSORS attribute, as AttributeGetSparseTensor.
   *
   * @param[in]  attribute  The attribute.
   * @param[in]  index      Below AttributeGetNumElements.
   * @param[out] values     Receives the values tensor.
   * @param[out] indices    Receives the indices tensor.
   * @param[out] dims       Receives the dense shape's dimensions.
   * @param[out] rank       Receives their number.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetSparseTensorAt,
            (const KilnAttribute* attribute, size_t index, const KilnValue** values,
             const KilnValue** indices, const int64_t** dims, size_t* rank));

  /**
   * Slot 102. The type of a TYPE_PROTO attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[out] out        Receives the type, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
   */
  KILN_SLOT(KilnStatus*, AttributeGetTypeProto,
            (const KilnAttribute* attribute, const KilnTypeInfo** out));

  /**
   * Slot 103. One type of a TYPE_PROTOS attribute.
   *
   * @param[in]  attribute  The attribute.
   * @param[in]  index      Below AttributeGetNumElements.
   * @param[out] out        Receives the type, borrowed from @p attribute.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AttributeGetTypeProtoAt,
            (const KilnAttribute* attribute, size_t index, const KilnTypeInfo** out));
};

/**
 * The type of KilnApi slot 127: the graph sub-table of a given version.
 *
 * @param[in] version  The KILN_GRAPH_API_VERSION the caller was built with.
 * @return The table, owned by Kiln and valid for the life of the process; NULL when the library
 *         does not provide that version (it then logs why).
 */
KILN_ENTRY_TYPE(const KilnGraphApi*, GetGraphApi, (uint32_t version));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_KILN_GRAPH_API_H_
