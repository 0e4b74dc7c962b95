/**
 * @file
 * Kiln C ABI: the graph API's types — its handles, KilnStringRef, the print callback and the
 * enums its entries take.
 *
 * Included by every graph API family header (kiln/c/graph_*.h) and by kiln/kiln_graph_api.h,
 * which declares the KilnGraphApi table; include that one (or kiln/kiln_c_api.h).
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_TYPES_H_
#define KILN_C_GRAPH_TYPES_H_

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

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_TYPES_H_
