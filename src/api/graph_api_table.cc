// The KilnGraphApi sub-table and KilnApi::GetGraphApi (slot 127).
//
// Slot order is the ABI, as for KilnApi: each slot's offset is pinned below; a new entry is
// appended to the struct in include/kiln/kiln_graph_api.h, the initializer and the pins.
#include <cstddef>
#include <cstdio>

#include "api/entries.h"
#include "api/graph_api_entries.h"
#include "core/logging.h"

namespace kiln::api {
namespace {

using namespace graph;  // NOLINT(google-build-using-namespace): the entries' names

constexpr KilnGraphApi kGraphApiV1 = {
    .CreateModel = &CreateModel,
    .CreateModelFromFile = &CreateModelFromFile,
    .CreateModelFromArray = &CreateModelFromArray,
    .CreateModelFromText = &CreateModelFromText,
    .ReleaseModel = &ReleaseModel,
    .ModelGetIrVersion = &ModelGetIrVersion,
    .ModelGetNumOpsetImports = &ModelGetNumOpsetImports,
    .ModelGetOpsetImport = &ModelGetOpsetImport,
    .ModelSetOwnedGraph = &ModelSetOwnedGraph,
    .ModelGetGraph = &ModelGetGraph,
    .ModelVerify = &ModelVerify,
    .ModelSave = &ModelSave,
    .ModelPrint = &ModelPrint,
    .CreateSessionFromModel = &CreateSessionFromModel,
    .SessionGetGraph = &SessionGetGraph,
    .CreateGraph = &CreateGraph,
    .ReleaseGraph = &ReleaseGraph,
    .GraphGetModel = &GraphGetModel,
    .GraphGetName = &GraphGetName,
    .GraphGetNumInputs = &GraphGetNumInputs,
    .GraphGetInput = &GraphGetInput,
    .GraphGetNumOutputs = &GraphGetNumOutputs,
    .GraphGetOutput = &GraphGetOutput,
    .GraphGetNumInitializers = &GraphGetNumInitializers,
    .GraphGetInitializer = &GraphGetInitializer,
    .GraphGetNumNodes = &GraphGetNumNodes,
    .GraphGetNode = &GraphGetNode,
    .GraphSetOwnedInputs = &GraphSetOwnedInputs,
    .GraphSetOwnedOutputs = &GraphSetOwnedOutputs,
    .GraphAddInitializer = &GraphAddInitializer,
    .GraphAddOwnedNode = &GraphAddOwnedNode,
    .GraphPrint = &GraphPrint,
    .CreateTensorTypeInfo = &CreateTensorTypeInfo,
    .CreateSparseTensorTypeInfo = &CreateSparseTensorTypeInfo,
    .CreateSequenceTypeInfo = &CreateSequenceTypeInfo,
    .CreateOptionalTypeInfo = &CreateOptionalTypeInfo,
    .CreateMapTypeInfo = &CreateMapTypeInfo,
    .ReleaseTypeInfo = &ReleaseTypeInfo,
    .TypeInfoGetKind = &TypeInfoGetKind,
    .TypeInfoGetElementType = &TypeInfoGetElementType,
    .TypeInfoGetRank = &TypeInfoGetRank,
    .TypeInfoGetDimensions = &TypeInfoGetDimensions,
    .TypeInfoGetDimParam = &TypeInfoGetDimParam,
    .TypeInfoGetContainedType = &TypeInfoGetContainedType,
    .CreateValueInfo = &CreateValueInfo,
    .ReleaseValueInfo = &ReleaseValueInfo,
    .ValueInfoGetName = &ValueInfoGetName,
    .ValueInfoGetType = &ValueInfoGetType,
    .ValueInfoGetProducer = &ValueInfoGetProducer,
    .ValueInfoGetNumConsumers = &ValueInfoGetNumConsumers,
    .ValueInfoGetConsumer = &ValueInfoGetConsumer,
    .ValueInfoGetInitializer = &ValueInfoGetInitializer,
    .ValueInfoIsCaptured = &ValueInfoIsCaptured,
    .CreateNode = &CreateNode,
    .ReleaseNode = &ReleaseNode,
    .NodeGetName = &NodeGetName,
    .NodeGetOpType = &NodeGetOpType,
    .NodeGetDomain = &NodeGetDomain,
    .NodeGetSinceVersion = &NodeGetSinceVersion,
    .NodeGetNumInputs = &NodeGetNumInputs,
    .NodeGetInput = &NodeGetInput,
    .NodeGetNumOutputs = &NodeGetNumOutputs,
    .NodeGetOutput = &NodeGetOutput,
    .NodeGetNumImplicitInputs = &NodeGetNumImplicitInputs,
    .NodeGetImplicitInput = &NodeGetImplicitInput,
    .NodeGetNumAttributes = &NodeGetNumAttributes,
    .NodeGetAttribute = &NodeGetAttribute,
    .NodeGetAttributeByName = &NodeGetAttributeByName,
    .NodeAddOwnedAttribute = &NodeAddOwnedAttribute,
    .NodeGetKernel = &NodeGetKernel,
    .NodeGetNumFusedFrom = &NodeGetNumFusedFrom,
    .NodeGetFusedFrom = &NodeGetFusedFrom,
    .CreateAttributeInt = &CreateAttributeInt,
    .CreateAttributeFloat = &CreateAttributeFloat,
    .CreateAttributeString = &CreateAttributeString,
    .CreateAttributeTensor = &CreateAttributeTensor,
    .CreateAttributeWithOwnedGraph = &CreateAttributeWithOwnedGraph,
    .CreateAttributeInts = &CreateAttributeInts,
    .CreateAttributeFloats = &CreateAttributeFloats,
    .CreateAttributeStrings = &CreateAttributeStrings,
    .CreateAttributeTensors = &CreateAttributeTensors,
    .CreateAttributeWithOwnedGraphs = &CreateAttributeWithOwnedGraphs,
    .ReleaseAttribute = &ReleaseAttribute,
    .AttributeGetName = &AttributeGetName,
    .AttributeGetType = &AttributeGetType,
    .AttributeGetInt = &AttributeGetInt,
    .AttributeGetFloat = &AttributeGetFloat,
    .AttributeGetString = &AttributeGetString,
    .AttributeGetTensor = &AttributeGetTensor,
    .AttributeGetGraph = &AttributeGetGraph,
    .AttributeGetNumElements = &AttributeGetNumElements,
    .AttributeGetInts = &AttributeGetInts,
    .AttributeGetFloats = &AttributeGetFloats,
    .AttributeGetStringAt = &AttributeGetStringAt,
    .AttributeGetTensorAt = &AttributeGetTensorAt,
    .AttributeGetGraphAt = &AttributeGetGraphAt,
    .CreateAttributeSparseTensor = &CreateAttributeSparseTensor,
    .CreateAttributeSparseTensors = &CreateAttributeSparseTensors,
    .CreateAttributeTypeProto = &CreateAttributeTypeProto,
    .CreateAttributeTypeProtos = &CreateAttributeTypeProtos,
    .AttributeGetSparseTensor = &AttributeGetSparseTensor,
    .AttributeGetSparseTensorAt = &AttributeGetSparseTensorAt,
    .AttributeGetTypeProto = &AttributeGetTypeProto,
    .AttributeGetTypeProtoAt = &AttributeGetTypeProtoAt,
};

#define KILN_PIN_GRAPH_SLOT(name, index) \
  static_assert(offsetof(KilnGraphApi, name) == (index) * sizeof(void*), "slot " #name " moved")
KILN_PIN_GRAPH_SLOT(CreateModel, 0);
KILN_PIN_GRAPH_SLOT(CreateModelFromFile, 1);
KILN_PIN_GRAPH_SLOT(CreateModelFromArray, 2);
KILN_PIN_GRAPH_SLOT(CreateModelFromText, 3);
KILN_PIN_GRAPH_SLOT(ReleaseModel, 4);
KILN_PIN_GRAPH_SLOT(ModelGetIrVersion, 5);
KILN_PIN_GRAPH_SLOT(ModelGetNumOpsetImports, 6);
KILN_PIN_GRAPH_SLOT(ModelGetOpsetImport, 7);
KILN_PIN_GRAPH_SLOT(ModelSetOwnedGraph, 8);
KILN_PIN_GRAPH_SLOT(ModelGetGraph, 9);
KILN_PIN_GRAPH_SLOT(ModelVerify, 10);
KILN_PIN_GRAPH_SLOT(ModelSave, 11);
KILN_PIN_GRAPH_SLOT(ModelPrint, 12);
KILN_PIN_GRAPH_SLOT(CreateSessionFromModel, 13);
KILN_PIN_GRAPH_SLOT(SessionGetGraph, 14);
KILN_PIN_GRAPH_SLOT(CreateGraph, 15);
KILN_PIN_GRAPH_SLOT(ReleaseGraph, 16);
KILN_PIN_GRAPH_SLOT(GraphGetModel, 17);
KILN_PIN_GRAPH_SLOT(GraphGetName, 18);
KILN_PIN_GRAPH_SLOT(GraphGetNumInputs, 19);
KILN_PIN_GRAPH_SLOT(GraphGetInput, 20);
KILN_PIN_GRAPH_SLOT(GraphGetNumOutputs, 21);
KILN_PIN_GRAPH_SLOT(GraphGetOutput, 22);
KILN_PIN_GRAPH_SLOT(GraphGetNumInitializers, 23);
KILN_PIN_GRAPH_SLOT(GraphGetInitializer, 24);
KILN_PIN_GRAPH_SLOT(GraphGetNumNodes, 25);
KILN_PIN_GRAPH_SLOT(GraphGetNode, 26);
KILN_PIN_GRAPH_SLOT(GraphSetOwnedInputs, 27);
KILN_PIN_GRAPH_SLOT(GraphSetOwnedOutputs, 28);
KILN_PIN_GRAPH_SLOT(GraphAddInitializer, 29);
KILN_PIN_GRAPH_SLOT(GraphAddOwnedNode, 30);
KILN_PIN_GRAPH_SLOT(GraphPrint, 31);
KILN_PIN_GRAPH_SLOT(CreateTensorTypeInfo, 32);
KILN_PIN_GRAPH_SLOT(CreateSparseTensorTypeInfo, 33);
KILN_PIN_GRAPH_SLOT(CreateSequenceTypeInfo, 34);
KILN_PIN_GRAPH_SLOT(CreateOptionalTypeInfo, 35);
KILN_PIN_GRAPH_SLOT(CreateMapTypeInfo, 36);
KILN_PIN_GRAPH_SLOT(ReleaseTypeInfo, 37);
KILN_PIN_GRAPH_SLOT(TypeInfoGetKind, 38);
KILN_PIN_GRAPH_SLOT(TypeInfoGetElementType, 39);
KILN_PIN_GRAPH_SLOT(TypeInfoGetRank, 40);
KILN_PIN_GRAPH_SLOT(TypeInfoGetDimensions, 41);
KILN_PIN_GRAPH_SLOT(TypeInfoGetDimParam, 42);
KILN_PIN_GRAPH_SLOT(TypeInfoGetContainedType, 43);
KILN_PIN_GRAPH_SLOT(CreateValueInfo, 44);
KILN_PIN_GRAPH_SLOT(ReleaseValueInfo, 45);
KILN_PIN_GRAPH_SLOT(ValueInfoGetName, 46);
KILN_PIN_GRAPH_SLOT(ValueInfoGetType, 47);
KILN_PIN_GRAPH_SLOT(ValueInfoGetProducer, 48);
KILN_PIN_GRAPH_SLOT(ValueInfoGetNumConsumers, 49);
KILN_PIN_GRAPH_SLOT(ValueInfoGetConsumer, 50);
KILN_PIN_GRAPH_SLOT(ValueInfoGetInitializer, 51);
KILN_PIN_GRAPH_SLOT(ValueInfoIsCaptured, 52);
KILN_PIN_GRAPH_SLOT(CreateNode, 53);
KILN_PIN_GRAPH_SLOT(ReleaseNode, 54);
KILN_PIN_GRAPH_SLOT(NodeGetName, 55);
KILN_PIN_GRAPH_SLOT(NodeGetOpType, 56);
KILN_PIN_GRAPH_SLOT(NodeGetDomain, 57);
KILN_PIN_GRAPH_SLOT(NodeGetSinceVersion, 58);
KILN_PIN_GRAPH_SLOT(NodeGetNumInputs, 59);
KILN_PIN_GRAPH_SLOT(NodeGetInput, 60);
KILN_PIN_GRAPH_SLOT(NodeGetNumOutputs, 61);
KILN_PIN_GRAPH_SLOT(NodeGetOutput, 62);
KILN_PIN_GRAPH_SLOT(NodeGetNumImplicitInputs, 63);
KILN_PIN_GRAPH_SLOT(NodeGetImplicitInput, 64);
KILN_PIN_GRAPH_SLOT(NodeGetNumAttributes, 65);
KILN_PIN_GRAPH_SLOT(NodeGetAttribute, 66);
KILN_PIN_GRAPH_SLOT(NodeGetAttributeByName, 67);
KILN_PIN_GRAPH_SLOT(NodeAddOwnedAttribute, 68);
KILN_PIN_GRAPH_SLOT(NodeGetKernel, 69);
KILN_PIN_GRAPH_SLOT(NodeGetNumFusedFrom, 70);
KILN_PIN_GRAPH_SLOT(NodeGetFusedFrom, 71);
KILN_PIN_GRAPH_SLOT(CreateAttributeInt, 72);
KILN_PIN_GRAPH_SLOT(CreateAttributeFloat, 73);
KILN_PIN_GRAPH_SLOT(CreateAttributeString, 74);
KILN_PIN_GRAPH_SLOT(CreateAttributeTensor, 75);
KILN_PIN_GRAPH_SLOT(CreateAttributeWithOwnedGraph, 76);
KILN_PIN_GRAPH_SLOT(CreateAttributeInts, 77);
KILN_PIN_GRAPH_SLOT(CreateAttributeFloats, 78);
KILN_PIN_GRAPH_SLOT(CreateAttributeStrings, 79);
KILN_PIN_GRAPH_SLOT(CreateAttributeTensors, 80);
KILN_PIN_GRAPH_SLOT(CreateAttributeWithOwnedGraphs, 81);
KILN_PIN_GRAPH_SLOT(ReleaseAttribute, 82);
KILN_PIN_GRAPH_SLOT(AttributeGetName, 83);
KILN_PIN_GRAPH_SLOT(AttributeGetType, 84);
KILN_PIN_GRAPH_SLOT(AttributeGetInt, 85);
KILN_PIN_GRAPH_SLOT(AttributeGetFloat, 86);
KILN_PIN_GRAPH_SLOT(AttributeGetString, 87);
KILN_PIN_GRAPH_SLOT(AttributeGetTensor, 88);
KILN_PIN_GRAPH_SLOT(AttributeGetGraph, 89);
KILN_PIN_GRAPH_SLOT(AttributeGetNumElements, 90);
KILN_PIN_GRAPH_SLOT(AttributeGetInts, 91);
KILN_PIN_GRAPH_SLOT(AttributeGetFloats, 92);
KILN_PIN_GRAPH_SLOT(AttributeGetStringAt, 93);
KILN_PIN_GRAPH_SLOT(AttributeGetTensorAt, 94);
KILN_PIN_GRAPH_SLOT(AttributeGetGraphAt, 95);
KILN_PIN_GRAPH_SLOT(CreateAttributeSparseTensor, 96);
KILN_PIN_GRAPH_SLOT(CreateAttributeSparseTensors, 97);
KILN_PIN_GRAPH_SLOT(CreateAttributeTypeProto, 98);
KILN_PIN_GRAPH_SLOT(CreateAttributeTypeProtos, 99);
KILN_PIN_GRAPH_SLOT(AttributeGetSparseTensor, 100);
KILN_PIN_GRAPH_SLOT(AttributeGetSparseTensorAt, 101);
KILN_PIN_GRAPH_SLOT(AttributeGetTypeProto, 102);
KILN_PIN_GRAPH_SLOT(AttributeGetTypeProtoAt, 103);
#undef KILN_PIN_GRAPH_SLOT
constexpr size_t kGraphSlotCount = 104;
static_assert(sizeof(KilnGraphApi) == kGraphSlotCount * sizeof(void*), "a slot has no pin");

}  // namespace

const KilnGraphApi* KILN_API_CALL GetGraphApi(uint32_t version) {
  if (version == 1) return &kGraphApiV1;
  char message[160];
  std::snprintf(message, sizeof message,
                "GetGraphApi: graph API version %u is not provided by this libkiln (it provides "
                "1 to %d)",
                static_cast<unsigned>(version), KILN_GRAPH_API_VERSION);
  LogProcess(LogLevel::kError, "kiln.api", KILN_LOCATION, message);
  return nullptr;
}

}  // namespace kiln::api
