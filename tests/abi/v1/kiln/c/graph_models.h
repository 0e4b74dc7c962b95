/**
 * @file
 * Kiln C ABI: the graph API's models, sessions from models and session views (slots 0-14).
 *
 * Each entry is a slot of the KilnGraphApi sub-table (kiln/kiln_graph_api.h, reached through
 * KilnApi::GetGraphApi); this header declares and documents the slots' function types,
 * Kiln<Name>Fn. Its conventions (ownership, borrowed strings, views) are kiln_graph_api.h's.
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_MODELS_H_
#define KILN_C_GRAPH_MODELS_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_types.h"

#ifdef __cplusplus
extern "C" {
#endif

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
KILN_ENTRY_TYPE(KilnStatus*, CreateModel,
                (int64_t ir_version, const char* const* opset_domains,
                 const int64_t* opset_versions, size_t opset_count, KilnModel** out));

/**
 * Slot 1. A model read from an `.onnx` file (external data beside it), as loaded, not optimized.
 *
 * @param[in]  path  The file.
 * @param[out] out   Receives the model; release it with ReleaseModel.
 * @return NULL on success, else a status (KILN_NO_SUCHFILE, KILN_INVALID_PROTOBUF,
 *         KILN_INVALID_GRAPH, KILN_NOT_IMPLEMENTED, KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateModelFromFile, (const char* path, KilnModel** out));

/**
 * Slot 2. A model read from serialized `.onnx` bytes (copied; no external data).
 *
 * @param[in]  data      The bytes.
 * @param[in]  data_len  Their number (not 0).
 * @param[out] out       Receives the model; release it with ReleaseModel.
 * @return NULL on success, else a status (as CreateModelFromFile).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateModelFromArray,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateModelFromText,
                (const char* text, size_t text_len, KilnModel** out));

/**
 * Slot 4. Releases a model made by a Create entry, and with it every handle into it.
 *
 * @param[in] model  The model, or NULL. A session's view (GraphGetModel) is refused (logged).
 */
KILN_ENTRY_TYPE(void, ReleaseModel, (KilnModel * model));

/**
 * Slot 5. The model's IR version.
 *
 * @param[in]  model  The model.
 * @param[out] out    Receives the version.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelGetIrVersion, (const KilnModel* model, int64_t* out));

/**
 * Slot 6. How many opsets the model imports.
 *
 * @param[in]  model  The model.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelGetNumOpsetImports, (const KilnModel* model, size_t* out));

/**
 * Slot 7. One opset import, in the order of their domains' names ("" is ONNX's).
 *
 * @param[in]  model    The model.
 * @param[in]  index    Below ModelGetNumOpsetImports.
 * @param[out] domain   Receives the domain, borrowed from @p model.
 * @param[out] version  Receives the version imported.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelGetOpsetImport,
                (const KilnModel* model, size_t index, KilnStringRef* domain, int64_t* version));

/**
 * Slot 8. Makes @p graph the model's main graph, taking ownership of it (all or nothing).
 *
 * @param[in] model  A model without a graph, not a session's view.
 * @param[in] graph  A graph the caller owns (CreateGraph); a view from then on.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: the model has a graph, or the
 *         graph is owned by something else).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelSetOwnedGraph, (KilnModel * model, KilnGraph* graph));

/**
 * Slot 9. The model's main graph.
 *
 * @param[in]  model  The model.
 * @param[out] out    Receives the graph, borrowed from @p model; NULL when it has none.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelGetGraph, (const KilnModel* model, KilnGraph** out));

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
KILN_ENTRY_TYPE(KilnStatus*, ModelVerify,
                (const KilnModel* model, const KilnSessionOptions* options));

/**
 * Slot 11. Writes the model to an `.onnx` file; tensors past 2 GiB in all go to an external
 * data file beside it ("<file name>.data").
 *
 * @param[in] model  The model (it must have a graph).
 * @param[in] path   The file to create or truncate.
 * @return NULL on success, else a status (KILN_NO_SUCHFILE when it cannot be written,
 *         KILN_INVALID_GRAPH for a model that does not verify, KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ModelSave, (const KilnModel* model, const char* path));

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
KILN_ENTRY_TYPE(KilnStatus*, ModelPrint,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionFromModel,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetGraph,
                (const KilnSession* session, KilnGraphStage stage, KilnGraph** out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_MODELS_H_
