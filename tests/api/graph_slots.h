// Every slot of the KilnGraphApi sub-table, in order, as the tests know it. table_test.cc checks
// this list against the real struct, so a slot added to the header without being added here (and
// so without contract, ownership and failure-injection cases) fails the suite.
#ifndef KILN_TESTS_API_GRAPH_SLOTS_H_
#define KILN_TESTS_API_GRAPH_SLOTS_H_

#include <cstddef>
#include <set>
#include <string>

#include "kiln/kiln_c_api.h"
#include "slots.h"

// X(name, returns_status)
#define KILN_TEST_GRAPH_SLOTS(X)          \
  X(CreateModel, true)                    \
  X(CreateModelFromFile, true)            \
  X(CreateModelFromArray, true)           \
  X(CreateModelFromText, true)            \
  X(ReleaseModel, false)                  \
  X(ModelGetIrVersion, true)              \
  X(ModelGetNumOpsetImports, true)        \
  X(ModelGetOpsetImport, true)            \
  X(ModelSetOwnedGraph, true)             \
  X(ModelGetGraph, true)                  \
  X(ModelVerify, true)                    \
  X(ModelSave, true)                      \
  X(ModelPrint, true)                     \
  X(CreateSessionFromModel, true)         \
  X(SessionGetGraph, true)                \
  X(CreateGraph, true)                    \
  X(ReleaseGraph, false)                  \
  X(GraphGetModel, true)                  \
  X(GraphGetName, true)                   \
  X(GraphGetNumInputs, true)              \
  X(GraphGetInput, true)                  \
  X(GraphGetNumOutputs, true)             \
  X(GraphGetOutput, true)                 \
  X(GraphGetNumInitializers, true)        \
  X(GraphGetInitializer, true)            \
  X(GraphGetNumNodes, true)               \
  X(GraphGetNode, true)                   \
  X(GraphSetOwnedInputs, true)            \
  X(GraphSetOwnedOutputs, true)           \
  X(GraphAddInitializer, true)            \
  X(GraphAddOwnedNode, true)              \
  X(GraphPrint, true)                     \
  X(CreateTensorTypeInfo, true)           \
  X(CreateSparseTensorTypeInfo, true)     \
  X(CreateSequenceTypeInfo, true)         \
  X(CreateOptionalTypeInfo, true)         \
  X(CreateMapTypeInfo, true)              \
  X(ReleaseTypeInfo, false)               \
  X(TypeInfoGetKind, true)                \
  X(TypeInfoGetElementType, true)         \
  X(TypeInfoGetRank, true)                \
  X(TypeInfoGetDimensions, true)          \
  X(TypeInfoGetDimParam, true)            \
  X(TypeInfoGetContainedType, true)       \
  X(CreateValueInfo, true)                \
  X(ReleaseValueInfo, false)              \
  X(ValueInfoGetName, true)               \
  X(ValueInfoGetType, true)               \
  X(ValueInfoGetProducer, true)           \
  X(ValueInfoGetNumConsumers, true)       \
  X(ValueInfoGetConsumer, true)           \
  X(ValueInfoGetInitializer, true)        \
  X(ValueInfoIsCaptured, true)            \
  X(CreateNode, true)                     \
  X(ReleaseNode, false)                   \
  X(NodeGetName, true)                    \
  X(NodeGetOpType, true)                  \
  X(NodeGetDomain, true)                  \
  X(NodeGetSinceVersion, true)            \
  X(NodeGetNumInputs, true)               \
  X(NodeGetInput, true)                   \
  X(NodeGetNumOutputs, true)              \
  X(NodeGetOutput, true)                  \
  X(NodeGetNumImplicitInputs, true)       \
  X(NodeGetImplicitInput, true)           \
  X(NodeGetNumAttributes, true)           \
  X(NodeGetAttribute, true)               \
  X(NodeGetAttributeByName, true)         \
  X(NodeAddOwnedAttribute, true)          \
  X(NodeGetKernel, true)                  \
  X(NodeGetNumFusedFrom, true)            \
  X(NodeGetFusedFrom, true)               \
  X(CreateAttributeInt, true)             \
  X(CreateAttributeFloat, true)           \
  X(CreateAttributeString, true)          \
  X(CreateAttributeTensor, true)          \
  X(CreateAttributeWithOwnedGraph, true)  \
  X(CreateAttributeInts, true)            \
  X(CreateAttributeFloats, true)          \
  X(CreateAttributeStrings, true)         \
  X(CreateAttributeTensors, true)         \
  X(CreateAttributeWithOwnedGraphs, true) \
  X(ReleaseAttribute, false)              \
  X(AttributeGetName, true)               \
  X(AttributeGetType, true)               \
  X(AttributeGetInt, true)                \
  X(AttributeGetFloat, true)              \
  X(AttributeGetString, true)             \
  X(AttributeGetTensor, true)             \
  X(AttributeGetGraph, true)              \
  X(AttributeGetNumElements, true)        \
  X(AttributeGetInts, true)               \
  X(AttributeGetFloats, true)             \
  X(AttributeGetStringAt, true)           \
  X(AttributeGetTensorAt, true)           \
  X(AttributeGetGraphAt, true)            \
  X(CreateAttributeSparseTensor, true)    \
  X(CreateAttributeSparseTensors, true)   \
  X(CreateAttributeTypeProto, true)       \
  X(CreateAttributeTypeProtos, true)      \
  X(AttributeGetSparseTensor, true)       \
  X(AttributeGetSparseTensorAt, true)     \
  X(AttributeGetTypeProto, true)          \
  X(AttributeGetTypeProtoAt, true)

namespace kiln_test {

#define KILN_TEST_GRAPH_SLOT_INFO(name, returns_status) \
  {#name, offsetof(KilnGraphApi, name), returns_status},
inline constexpr SlotInfo kGraphSlots[] = {KILN_TEST_GRAPH_SLOTS(KILN_TEST_GRAPH_SLOT_INFO)};
#undef KILN_TEST_GRAPH_SLOT_INFO

inline std::set<std::string> GraphSlotNames(bool status_returning_only) {
  std::set<std::string> names;
  for (const SlotInfo& s : kGraphSlots) {
    if (!status_returning_only || s.returns_status) names.insert(s.name);
  }
  return names;
}

// The slots of both tables (their names do not overlap; table_test.cc checks).
inline std::set<std::string> AllSlotNames(bool status_returning_only) {
  std::set<std::string> names = SlotNames(status_returning_only);
  const std::set<std::string> graph = GraphSlotNames(status_returning_only);
  names.insert(graph.begin(), graph.end());
  return names;
}

}  // namespace kiln_test

#endif  // KILN_TESTS_API_GRAPH_SLOTS_H_
