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
 * The entries are declared and documented by family, one header each (each compiles on its own;
 * this header includes them all): kiln/c/graph_types.h (the handles, KilnStringRef, the print
 * callback, the enums), kiln/c/graph_models.h (models, sessions from models, session views),
 * kiln/c/graph_graphs.h, kiln/c/graph_values.h (types and values), kiln/c/graph_nodes.h and
 * kiln/c/graph_attributes.h. Slot N of KilnGraphApi has the type Kiln<Name>Fn.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_GRAPH_API_H_
#define KILN_KILN_GRAPH_API_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_attributes.h"
#include "kiln/c/graph_graphs.h"
#include "kiln/c/graph_models.h"
#include "kiln/c/graph_nodes.h"
#include "kiln/c/graph_types.h" /* the handles, KilnStringRef, KilnPrintCallback, the enums */
#include "kiln/c/graph_values.h"
#include "kiln/kiln_c_entry.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The graph sub-table, version 1. Slots are only ever appended, as in KilnApi.
 */
struct KilnGraphApi {
  /** Slot 0: ::KilnCreateModelFn. */
  KilnCreateModelFn CreateModel;
  /** Slot 1: ::KilnCreateModelFromFileFn. */
  KilnCreateModelFromFileFn CreateModelFromFile;
  /** Slot 2: ::KilnCreateModelFromArrayFn. */
  KilnCreateModelFromArrayFn CreateModelFromArray;
  /** Slot 3: ::KilnCreateModelFromTextFn. */
  KilnCreateModelFromTextFn CreateModelFromText;
  /** Slot 4: ::KilnReleaseModelFn. */
  KilnReleaseModelFn ReleaseModel;
  /** Slot 5: ::KilnModelGetIrVersionFn. */
  KilnModelGetIrVersionFn ModelGetIrVersion;
  /** Slot 6: ::KilnModelGetNumOpsetImportsFn. */
  KilnModelGetNumOpsetImportsFn ModelGetNumOpsetImports;
  /** Slot 7: ::KilnModelGetOpsetImportFn. */
  KilnModelGetOpsetImportFn ModelGetOpsetImport;
  /** Slot 8: ::KilnModelSetOwnedGraphFn. */
  KilnModelSetOwnedGraphFn ModelSetOwnedGraph;
  /** Slot 9: ::KilnModelGetGraphFn. */
  KilnModelGetGraphFn ModelGetGraph;
  /** Slot 10: ::KilnModelVerifyFn. */
  KilnModelVerifyFn ModelVerify;
  /** Slot 11: ::KilnModelSaveFn. */
  KilnModelSaveFn ModelSave;
  /** Slot 12: ::KilnModelPrintFn. */
  KilnModelPrintFn ModelPrint;
  /** Slot 13: ::KilnCreateSessionFromModelFn. */
  KilnCreateSessionFromModelFn CreateSessionFromModel;
  /** Slot 14: ::KilnSessionGetGraphFn. */
  KilnSessionGetGraphFn SessionGetGraph;
  /** Slot 15: ::KilnCreateGraphFn. */
  KilnCreateGraphFn CreateGraph;
  /** Slot 16: ::KilnReleaseGraphFn. */
  KilnReleaseGraphFn ReleaseGraph;
  /** Slot 17: ::KilnGraphGetModelFn. */
  KilnGraphGetModelFn GraphGetModel;
  /** Slot 18: ::KilnGraphGetNameFn. */
  KilnGraphGetNameFn GraphGetName;
  /** Slot 19: ::KilnGraphGetNumInputsFn. */
  KilnGraphGetNumInputsFn GraphGetNumInputs;
  /** Slot 20: ::KilnGraphGetInputFn. */
  KilnGraphGetInputFn GraphGetInput;
  /** Slot 21: ::KilnGraphGetNumOutputsFn. */
  KilnGraphGetNumOutputsFn GraphGetNumOutputs;
  /** Slot 22: ::KilnGraphGetOutputFn. */
  KilnGraphGetOutputFn GraphGetOutput;
  /** Slot 23: ::KilnGraphGetNumInitializersFn. */
  KilnGraphGetNumInitializersFn GraphGetNumInitializers;
  /** Slot 24: ::KilnGraphGetInitializerFn. */
  KilnGraphGetInitializerFn GraphGetInitializer;
  /** Slot 25: ::KilnGraphGetNumNodesFn. */
  KilnGraphGetNumNodesFn GraphGetNumNodes;
  /** Slot 26: ::KilnGraphGetNodeFn. */
  KilnGraphGetNodeFn GraphGetNode;
  /** Slot 27: ::KilnGraphSetOwnedInputsFn. */
  KilnGraphSetOwnedInputsFn GraphSetOwnedInputs;
  /** Slot 28: ::KilnGraphSetOwnedOutputsFn. */
  KilnGraphSetOwnedOutputsFn GraphSetOwnedOutputs;
  /** Slot 29: ::KilnGraphAddInitializerFn. */
  KilnGraphAddInitializerFn GraphAddInitializer;
  /** Slot 30: ::KilnGraphAddOwnedNodeFn. */
  KilnGraphAddOwnedNodeFn GraphAddOwnedNode;
  /** Slot 31: ::KilnGraphPrintFn. */
  KilnGraphPrintFn GraphPrint;
  /** Slot 32: ::KilnCreateTensorTypeInfoFn. */
  KilnCreateTensorTypeInfoFn CreateTensorTypeInfo;
  /** Slot 33: ::KilnCreateSparseTensorTypeInfoFn. */
  KilnCreateSparseTensorTypeInfoFn CreateSparseTensorTypeInfo;
  /** Slot 34: ::KilnCreateSequenceTypeInfoFn. */
  KilnCreateSequenceTypeInfoFn CreateSequenceTypeInfo;
  /** Slot 35: ::KilnCreateOptionalTypeInfoFn. */
  KilnCreateOptionalTypeInfoFn CreateOptionalTypeInfo;
  /** Slot 36: ::KilnCreateMapTypeInfoFn. */
  KilnCreateMapTypeInfoFn CreateMapTypeInfo;
  /** Slot 37: ::KilnReleaseTypeInfoFn. */
  KilnReleaseTypeInfoFn ReleaseTypeInfo;
  /** Slot 38: ::KilnTypeInfoGetKindFn. */
  KilnTypeInfoGetKindFn TypeInfoGetKind;
  /** Slot 39: ::KilnTypeInfoGetElementTypeFn. */
  KilnTypeInfoGetElementTypeFn TypeInfoGetElementType;
  /** Slot 40: ::KilnTypeInfoGetRankFn. */
  KilnTypeInfoGetRankFn TypeInfoGetRank;
  /** Slot 41: ::KilnTypeInfoGetDimensionsFn. */
  KilnTypeInfoGetDimensionsFn TypeInfoGetDimensions;
  /** Slot 42: ::KilnTypeInfoGetDimParamFn. */
  KilnTypeInfoGetDimParamFn TypeInfoGetDimParam;
  /** Slot 43: ::KilnTypeInfoGetContainedTypeFn. */
  KilnTypeInfoGetContainedTypeFn TypeInfoGetContainedType;
  /** Slot 44: ::KilnCreateValueInfoFn. */
  KilnCreateValueInfoFn CreateValueInfo;
  /** Slot 45: ::KilnReleaseValueInfoFn. */
  KilnReleaseValueInfoFn ReleaseValueInfo;
  /** Slot 46: ::KilnValueInfoGetNameFn. */
  KilnValueInfoGetNameFn ValueInfoGetName;
  /** Slot 47: ::KilnValueInfoGetTypeFn. */
  KilnValueInfoGetTypeFn ValueInfoGetType;
  /** Slot 48: ::KilnValueInfoGetProducerFn. */
  KilnValueInfoGetProducerFn ValueInfoGetProducer;
  /** Slot 49: ::KilnValueInfoGetNumConsumersFn. */
  KilnValueInfoGetNumConsumersFn ValueInfoGetNumConsumers;
  /** Slot 50: ::KilnValueInfoGetConsumerFn. */
  KilnValueInfoGetConsumerFn ValueInfoGetConsumer;
  /** Slot 51: ::KilnValueInfoGetInitializerFn. */
  KilnValueInfoGetInitializerFn ValueInfoGetInitializer;
  /** Slot 52: ::KilnValueInfoIsCapturedFn. */
  KilnValueInfoIsCapturedFn ValueInfoIsCaptured;
  /** Slot 53: ::KilnCreateNodeFn. */
  KilnCreateNodeFn CreateNode;
  /** Slot 54: ::KilnReleaseNodeFn. */
  KilnReleaseNodeFn ReleaseNode;
  /** Slot 55: ::KilnNodeGetNameFn. */
  KilnNodeGetNameFn NodeGetName;
  /** Slot 56: ::KilnNodeGetOpTypeFn. */
  KilnNodeGetOpTypeFn NodeGetOpType;
  /** Slot 57: ::KilnNodeGetDomainFn. */
  KilnNodeGetDomainFn NodeGetDomain;
  /** Slot 58: ::KilnNodeGetSinceVersionFn. */
  KilnNodeGetSinceVersionFn NodeGetSinceVersion;
  /** Slot 59: ::KilnNodeGetNumInputsFn. */
  KilnNodeGetNumInputsFn NodeGetNumInputs;
  /** Slot 60: ::KilnNodeGetInputFn. */
  KilnNodeGetInputFn NodeGetInput;
  /** Slot 61: ::KilnNodeGetNumOutputsFn. */
  KilnNodeGetNumOutputsFn NodeGetNumOutputs;
  /** Slot 62: ::KilnNodeGetOutputFn. */
  KilnNodeGetOutputFn NodeGetOutput;
  /** Slot 63: ::KilnNodeGetNumImplicitInputsFn. */
  KilnNodeGetNumImplicitInputsFn NodeGetNumImplicitInputs;
  /** Slot 64: ::KilnNodeGetImplicitInputFn. */
  KilnNodeGetImplicitInputFn NodeGetImplicitInput;
  /** Slot 65: ::KilnNodeGetNumAttributesFn. */
  KilnNodeGetNumAttributesFn NodeGetNumAttributes;
  /** Slot 66: ::KilnNodeGetAttributeFn. */
  KilnNodeGetAttributeFn NodeGetAttribute;
  /** Slot 67: ::KilnNodeGetAttributeByNameFn. */
  KilnNodeGetAttributeByNameFn NodeGetAttributeByName;
  /** Slot 68: ::KilnNodeAddOwnedAttributeFn. */
  KilnNodeAddOwnedAttributeFn NodeAddOwnedAttribute;
  /** Slot 69: ::KilnNodeGetKernelFn. */
  KilnNodeGetKernelFn NodeGetKernel;
  /** Slot 70: ::KilnNodeGetNumFusedFromFn. */
  KilnNodeGetNumFusedFromFn NodeGetNumFusedFrom;
  /** Slot 71: ::KilnNodeGetFusedFromFn. */
  KilnNodeGetFusedFromFn NodeGetFusedFrom;
  /** Slot 72: ::KilnCreateAttributeIntFn. */
  KilnCreateAttributeIntFn CreateAttributeInt;
  /** Slot 73: ::KilnCreateAttributeFloatFn. */
  KilnCreateAttributeFloatFn CreateAttributeFloat;
  /** Slot 74: ::KilnCreateAttributeStringFn. */
  KilnCreateAttributeStringFn CreateAttributeString;
  /** Slot 75: ::KilnCreateAttributeTensorFn. */
  KilnCreateAttributeTensorFn CreateAttributeTensor;
  /** Slot 76: ::KilnCreateAttributeWithOwnedGraphFn. */
  KilnCreateAttributeWithOwnedGraphFn CreateAttributeWithOwnedGraph;
  /** Slot 77: ::KilnCreateAttributeIntsFn. */
  KilnCreateAttributeIntsFn CreateAttributeInts;
  /** Slot 78: ::KilnCreateAttributeFloatsFn. */
  KilnCreateAttributeFloatsFn CreateAttributeFloats;
  /** Slot 79: ::KilnCreateAttributeStringsFn. */
  KilnCreateAttributeStringsFn CreateAttributeStrings;
  /** Slot 80: ::KilnCreateAttributeTensorsFn. */
  KilnCreateAttributeTensorsFn CreateAttributeTensors;
  /** Slot 81: ::KilnCreateAttributeWithOwnedGraphsFn. */
  KilnCreateAttributeWithOwnedGraphsFn CreateAttributeWithOwnedGraphs;
  /** Slot 82: ::KilnReleaseAttributeFn. */
  KilnReleaseAttributeFn ReleaseAttribute;
  /** Slot 83: ::KilnAttributeGetNameFn. */
  KilnAttributeGetNameFn AttributeGetName;
  /** Slot 84: ::KilnAttributeGetTypeFn. */
  KilnAttributeGetTypeFn AttributeGetType;
  /** Slot 85: ::KilnAttributeGetIntFn. */
  KilnAttributeGetIntFn AttributeGetInt;
  /** Slot 86: ::KilnAttributeGetFloatFn. */
  KilnAttributeGetFloatFn AttributeGetFloat;
  /** Slot 87: ::KilnAttributeGetStringFn. */
  KilnAttributeGetStringFn AttributeGetString;
  /** Slot 88: ::KilnAttributeGetTensorFn. */
  KilnAttributeGetTensorFn AttributeGetTensor;
  /** Slot 89: ::KilnAttributeGetGraphFn. */
  KilnAttributeGetGraphFn AttributeGetGraph;
  /** Slot 90: ::KilnAttributeGetNumElementsFn. */
  KilnAttributeGetNumElementsFn AttributeGetNumElements;
  /** Slot 91: ::KilnAttributeGetIntsFn. */
  KilnAttributeGetIntsFn AttributeGetInts;
  /** Slot 92: ::KilnAttributeGetFloatsFn. */
  KilnAttributeGetFloatsFn AttributeGetFloats;
  /** Slot 93: ::KilnAttributeGetStringAtFn. */
  KilnAttributeGetStringAtFn AttributeGetStringAt;
  /** Slot 94: ::KilnAttributeGetTensorAtFn. */
  KilnAttributeGetTensorAtFn AttributeGetTensorAt;
  /** Slot 95: ::KilnAttributeGetGraphAtFn. */
  KilnAttributeGetGraphAtFn AttributeGetGraphAt;
  /** Slot 96: ::KilnCreateAttributeSparseTensorFn. */
  KilnCreateAttributeSparseTensorFn CreateAttributeSparseTensor;
  /** Slot 97: ::KilnCreateAttributeSparseTensorsFn. */
  KilnCreateAttributeSparseTensorsFn CreateAttributeSparseTensors;
  /** Slot 98: ::KilnCreateAttributeTypeProtoFn. */
  KilnCreateAttributeTypeProtoFn CreateAttributeTypeProto;
  /** Slot 99: ::KilnCreateAttributeTypeProtosFn. */
  KilnCreateAttributeTypeProtosFn CreateAttributeTypeProtos;
  /** Slot 100: ::KilnAttributeGetSparseTensorFn. */
  KilnAttributeGetSparseTensorFn AttributeGetSparseTensor;
  /** Slot 101: ::KilnAttributeGetSparseTensorAtFn. */
  KilnAttributeGetSparseTensorAtFn AttributeGetSparseTensorAt;
  /** Slot 102: ::KilnAttributeGetTypeProtoFn. */
  KilnAttributeGetTypeProtoFn AttributeGetTypeProto;
  /** Slot 103: ::KilnAttributeGetTypeProtoAtFn. */
  KilnAttributeGetTypeProtoAtFn AttributeGetTypeProtoAt;
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
