// Every entry of the KilnGraphApi sub-table (include/kiln/kiln_graph_api.h), implemented across
// src/api/graph_*_api.cc and gathered into the table by graph_api_table.cc.
#ifndef KILN_API_GRAPH_API_ENTRIES_H_
#define KILN_API_GRAPH_API_ENTRIES_H_

#include "kiln/kiln_c_api.h"

namespace kiln::api::graph {

KilnStatus* KILN_API_CALL CreateModel(int64_t ir_version, const char* const* opset_domains,
                                      const int64_t* opset_versions, size_t opset_count,
                                      KilnModel** out);
KilnStatus* KILN_API_CALL CreateModelFromFile(const char* path, KilnModel** out);
KilnStatus* KILN_API_CALL CreateModelFromArray(const void* data, size_t data_len, KilnModel** out);
KilnStatus* KILN_API_CALL CreateModelFromText(const char* text, size_t text_len, KilnModel** out);
void KILN_API_CALL ReleaseModel(KilnModel* model);
KilnStatus* KILN_API_CALL ModelGetIrVersion(const KilnModel* model, int64_t* out);
KilnStatus* KILN_API_CALL ModelGetNumOpsetImports(const KilnModel* model, size_t* out);
KilnStatus* KILN_API_CALL ModelGetOpsetImport(const KilnModel* model, size_t index,
                                              KilnStringRef* domain, int64_t* version);
KilnStatus* KILN_API_CALL ModelSetOwnedGraph(KilnModel* model, KilnGraph* graph);
KilnStatus* KILN_API_CALL ModelGetGraph(const KilnModel* model, KilnGraph** out);
KilnStatus* KILN_API_CALL ModelVerify(const KilnModel* model, const KilnSessionOptions* options);
KilnStatus* KILN_API_CALL ModelSave(const KilnModel* model, const char* path);
KilnStatus* KILN_API_CALL ModelPrint(const KilnModel* model, int64_t elide_above, uint32_t flags,
                                     KilnPrintCallback callback, void* user);
KilnStatus* KILN_API_CALL CreateSessionFromModel(const KilnEnv* env, const KilnModel* model,
                                                 const KilnSessionOptions* options,
                                                 KilnSession** out);
KilnStatus* KILN_API_CALL SessionGetGraph(const KilnSession* session, KilnGraphStage stage,
                                          KilnGraph** out);
KilnStatus* KILN_API_CALL CreateGraph(const char* name, KilnGraph** out);
void KILN_API_CALL ReleaseGraph(KilnGraph* graph);
KilnStatus* KILN_API_CALL GraphGetModel(const KilnGraph* graph, KilnModel** out);
KilnStatus* KILN_API_CALL GraphGetName(const KilnGraph* graph, KilnStringRef* out);
KilnStatus* KILN_API_CALL GraphGetNumInputs(const KilnGraph* graph, size_t* out);
KilnStatus* KILN_API_CALL GraphGetInput(const KilnGraph* graph, size_t index, KilnValueInfo** out);
KilnStatus* KILN_API_CALL GraphGetNumOutputs(const KilnGraph* graph, size_t* out);
KilnStatus* KILN_API_CALL GraphGetOutput(const KilnGraph* graph, size_t index, KilnValueInfo** out);
KilnStatus* KILN_API_CALL GraphGetNumInitializers(const KilnGraph* graph, size_t* out);
KilnStatus* KILN_API_CALL GraphGetInitializer(const KilnGraph* graph, size_t index,
                                              KilnValueInfo** out);
KilnStatus* KILN_API_CALL GraphGetNumNodes(const KilnGraph* graph, size_t* out);
KilnStatus* KILN_API_CALL GraphGetNode(const KilnGraph* graph, size_t index, KilnNode** out);
KilnStatus* KILN_API_CALL GraphSetOwnedInputs(KilnGraph* graph, KilnValueInfo* const* inputs,
                                              size_t count);
KilnStatus* KILN_API_CALL GraphSetOwnedOutputs(KilnGraph* graph, KilnValueInfo* const* outputs,
                                               size_t count);
KilnStatus* KILN_API_CALL GraphAddInitializer(KilnGraph* graph, const char* name,
                                              const KilnValue* value);
KilnStatus* KILN_API_CALL GraphAddOwnedNode(KilnGraph* graph, KilnNode* node);
KilnStatus* KILN_API_CALL GraphPrint(const KilnGraph* graph, int64_t elide_above, uint32_t flags,
                                     KilnPrintCallback callback, void* user);
KilnStatus* KILN_API_CALL CreateTensorTypeInfo(KilnElementType element_type, const int64_t* dims,
                                               const char* const* dim_params, size_t rank,
                                               KilnTypeInfo** out);
KilnStatus* KILN_API_CALL CreateSparseTensorTypeInfo(KilnElementType element_type,
                                                     const int64_t* dims,
                                                     const char* const* dim_params, size_t rank,
                                                     KilnTypeInfo** out);
KilnStatus* KILN_API_CALL CreateSequenceTypeInfo(const KilnTypeInfo* element, KilnTypeInfo** out);
KilnStatus* KILN_API_CALL CreateOptionalTypeInfo(const KilnTypeInfo* element, KilnTypeInfo** out);
KilnStatus* KILN_API_CALL CreateMapTypeInfo(KilnElementType key, const KilnTypeInfo* value,
                                            KilnTypeInfo** out);
void KILN_API_CALL ReleaseTypeInfo(KilnTypeInfo* type);
KilnStatus* KILN_API_CALL TypeInfoGetKind(const KilnTypeInfo* type, KilnTypeKind* out);
KilnStatus* KILN_API_CALL TypeInfoGetElementType(const KilnTypeInfo* type, KilnElementType* out);
KilnStatus* KILN_API_CALL TypeInfoGetRank(const KilnTypeInfo* type, size_t* out);
KilnStatus* KILN_API_CALL TypeInfoGetDimensions(const KilnTypeInfo* type, int64_t* dims,
                                                size_t dims_len);
KilnStatus* KILN_API_CALL TypeInfoGetDimParam(const KilnTypeInfo* type, size_t index,
                                              KilnStringRef* out);
KilnStatus* KILN_API_CALL TypeInfoGetContainedType(const KilnTypeInfo* type,
                                                   const KilnTypeInfo** out);
KilnStatus* KILN_API_CALL CreateValueInfo(const char* name, const KilnTypeInfo* type,
                                          KilnValueInfo** out);
void KILN_API_CALL ReleaseValueInfo(KilnValueInfo* value);
KilnStatus* KILN_API_CALL ValueInfoGetName(const KilnValueInfo* value, KilnStringRef* out);
KilnStatus* KILN_API_CALL ValueInfoGetType(const KilnValueInfo* value, const KilnTypeInfo** out);
KilnStatus* KILN_API_CALL ValueInfoGetProducer(const KilnValueInfo* value, KilnNode** node,
                                               size_t* output_index);
KilnStatus* KILN_API_CALL ValueInfoGetNumConsumers(const KilnValueInfo* value, size_t* out);
KilnStatus* KILN_API_CALL ValueInfoGetConsumer(const KilnValueInfo* value, size_t index,
                                               KilnNode** node, size_t* input_index);
KilnStatus* KILN_API_CALL ValueInfoGetInitializer(const KilnValueInfo* value,
                                                  const KilnValue** out);
KilnStatus* KILN_API_CALL ValueInfoIsCaptured(const KilnValueInfo* value, int* out);
KilnStatus* KILN_API_CALL CreateNode(const char* op_type, const char* domain, const char* name,
                                     const char* const* inputs, size_t input_count,
                                     const char* const* outputs, size_t output_count,
                                     KilnNode** out);
void KILN_API_CALL ReleaseNode(KilnNode* node);
KilnStatus* KILN_API_CALL NodeGetName(const KilnNode* node, KilnStringRef* out);
KilnStatus* KILN_API_CALL NodeGetOpType(const KilnNode* node, KilnStringRef* out);
KilnStatus* KILN_API_CALL NodeGetDomain(const KilnNode* node, KilnStringRef* out);
KilnStatus* KILN_API_CALL NodeGetSinceVersion(const KilnNode* node, int64_t* out);
KilnStatus* KILN_API_CALL NodeGetNumInputs(const KilnNode* node, size_t* out);
KilnStatus* KILN_API_CALL NodeGetInput(const KilnNode* node, size_t index, KilnValueInfo** out);
KilnStatus* KILN_API_CALL NodeGetNumOutputs(const KilnNode* node, size_t* out);
KilnStatus* KILN_API_CALL NodeGetOutput(const KilnNode* node, size_t index, KilnValueInfo** out);
KilnStatus* KILN_API_CALL NodeGetNumImplicitInputs(const KilnNode* node, size_t* out);
KilnStatus* KILN_API_CALL NodeGetImplicitInput(const KilnNode* node, size_t index,
                                               KilnValueInfo** out);
KilnStatus* KILN_API_CALL NodeGetNumAttributes(const KilnNode* node, size_t* out);
KilnStatus* KILN_API_CALL NodeGetAttribute(const KilnNode* node, size_t index, KilnAttribute** out);
KilnStatus* KILN_API_CALL NodeGetAttributeByName(const KilnNode* node, const char* name,
                                                 KilnAttribute** out);
KilnStatus* KILN_API_CALL NodeAddOwnedAttribute(KilnNode* node, KilnAttribute* attribute);
KilnStatus* KILN_API_CALL NodeGetKernel(const KilnNode* node, KilnStringRef* out);
KilnStatus* KILN_API_CALL NodeGetNumFusedFrom(const KilnNode* node, size_t* out);
KilnStatus* KILN_API_CALL NodeGetFusedFrom(const KilnNode* node, size_t index, KilnStringRef* out);
KilnStatus* KILN_API_CALL CreateAttributeInt(const char* name, int64_t value, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeFloat(const char* name, float value, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeString(const char* name, const char* data, size_t length,
                                                KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeTensor(const char* name, const KilnValue* value,
                                                KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeWithOwnedGraph(const char* name, KilnGraph* graph,
                                                        KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeInts(const char* name, const int64_t* values, size_t count,
                                              KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeFloats(const char* name, const float* values, size_t count,
                                                KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeStrings(const char* name, const KilnStringRef* values,
                                                 size_t count, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeTensors(const char* name, const KilnValue* const* values,
                                                 size_t count, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeWithOwnedGraphs(const char* name, KilnGraph* const* graphs,
                                                         size_t count, KilnAttribute** out);
void KILN_API_CALL ReleaseAttribute(KilnAttribute* attribute);
KilnStatus* KILN_API_CALL AttributeGetName(const KilnAttribute* attribute, KilnStringRef* out);
KilnStatus* KILN_API_CALL AttributeGetType(const KilnAttribute* attribute, KilnAttributeType* out);
KilnStatus* KILN_API_CALL AttributeGetInt(const KilnAttribute* attribute, int64_t* out);
KilnStatus* KILN_API_CALL AttributeGetFloat(const KilnAttribute* attribute, float* out);
KilnStatus* KILN_API_CALL AttributeGetString(const KilnAttribute* attribute, KilnStringRef* out);
KilnStatus* KILN_API_CALL AttributeGetTensor(const KilnAttribute* attribute, const KilnValue** out);
KilnStatus* KILN_API_CALL AttributeGetGraph(const KilnAttribute* attribute, KilnGraph** out);
KilnStatus* KILN_API_CALL AttributeGetNumElements(const KilnAttribute* attribute, size_t* out);
KilnStatus* KILN_API_CALL AttributeGetInts(const KilnAttribute* attribute, const int64_t** out);
KilnStatus* KILN_API_CALL AttributeGetFloats(const KilnAttribute* attribute, const float** out);
KilnStatus* KILN_API_CALL AttributeGetStringAt(const KilnAttribute* attribute, size_t index,
                                               KilnStringRef* out);
KilnStatus* KILN_API_CALL AttributeGetTensorAt(const KilnAttribute* attribute, size_t index,
                                               const KilnValue** out);
KilnStatus* KILN_API_CALL AttributeGetGraphAt(const KilnAttribute* attribute, size_t index,
                                              KilnGraph** out);
KilnStatus* KILN_API_CALL CreateAttributeSparseTensor(const char* name, const KilnValue* values,
                                                      const KilnValue* indices, const int64_t* dims,
                                                      size_t rank, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeSparseTensors(
    const char* name, const KilnValue* const* values, const KilnValue* const* indices,
    const int64_t* const* dims, const size_t* ranks, size_t count, KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeTypeProto(const char* name, const KilnTypeInfo* type,
                                                   KilnAttribute** out);
KilnStatus* KILN_API_CALL CreateAttributeTypeProtos(const char* name,
                                                    const KilnTypeInfo* const* types, size_t count,
                                                    KilnAttribute** out);
KilnStatus* KILN_API_CALL AttributeGetSparseTensor(const KilnAttribute* attribute,
                                                   const KilnValue** values,
                                                   const KilnValue** indices, const int64_t** dims,
                                                   size_t* rank);
KilnStatus* KILN_API_CALL AttributeGetSparseTensorAt(const KilnAttribute* attribute, size_t index,
                                                     const KilnValue** values,
                                                     const KilnValue** indices,
                                                     const int64_t** dims, size_t* rank);
KilnStatus* KILN_API_CALL AttributeGetTypeProto(const KilnAttribute* attribute,
                                                const KilnTypeInfo** out);
KilnStatus* KILN_API_CALL AttributeGetTypeProtoAt(const KilnAttribute* attribute, size_t index,
                                                  const KilnTypeInfo** out);

}  // namespace kiln::api::graph

#endif  // KILN_API_GRAPH_API_ENTRIES_H_
