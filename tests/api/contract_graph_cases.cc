// The contract cases of the graph API (the KilnGraphApi sub-table, kiln/kiln_graph_api.h), joined
// to the tables of contract_test.cc, which check that every entry of both tables has its cases.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api_test_util.h"
#include "contract_cases.h"
#include "graph_fixtures.h"

namespace kiln_test {
namespace {

const KilnGraphApi& G() {
  return graph_api();
}

const char* const kDomains[] = {""};
const int64_t kVersions[] = {17};
const int64_t kDims[] = {2, 3};
const char* const kReluIn[] = {"y"};
const char* const kReluOut[] = {"z"};
constexpr size_t kTextLength = sizeof kIfModelText - 1;

const std::string& SavePath() {
  static const std::string path = models::ScratchDir().path() + "/contract_graph_saved.onnx";
  return path;
}

}  // namespace

std::vector<Case> GraphNullCases() {
  std::vector<Case> cases = {
      // ---- Models
      {"CreateModel", "opset_domains",
       [](Objects&, Outs& o) { return G().CreateModel(8, nullptr, kVersions, 1, &o.g.model); }},
      {"CreateModel", "opset_domains",  // an entry of the array
       [](Objects&, Outs& o) {
         const char* domains[] = {nullptr};
         return G().CreateModel(8, domains, kVersions, 1, &o.g.model);
       }},
      {"CreateModel", "opset_versions",
       [](Objects&, Outs& o) { return G().CreateModel(8, kDomains, nullptr, 1, &o.g.model); }},
      {"CreateModel", "out",
       [](Objects&, Outs&) { return G().CreateModel(8, kDomains, kVersions, 1, nullptr); }},
      {"CreateModelFromFile", "path",
       [](Objects&, Outs& o) { return G().CreateModelFromFile(nullptr, &o.g.model); }},
      {"CreateModelFromFile", "out",
       [](Objects& b, Outs&) { return G().CreateModelFromFile(b.model_path.c_str(), nullptr); }},
      {"CreateModelFromArray", "data",
       [](Objects& b, Outs& o) {
         return G().CreateModelFromArray(nullptr, b.model.size(), &o.g.model);
       }},
      {"CreateModelFromArray", "out",
       [](Objects& b, Outs&) {
         return G().CreateModelFromArray(b.model.data(), b.model.size(), nullptr);
       }},
      {"CreateModelFromText", "text",
       [](Objects&, Outs& o) { return G().CreateModelFromText(nullptr, 4, &o.g.model); }},
      {"CreateModelFromText", "out",
       [](Objects&, Outs&) { return G().CreateModelFromText(kIfModelText, kTextLength, nullptr); }},
      {"ModelGetIrVersion", "model",
       [](Objects&, Outs& o) { return G().ModelGetIrVersion(nullptr, &o.version); }},
      {"ModelGetIrVersion", "out",
       [](Objects& b, Outs&) { return G().ModelGetIrVersion(b.g.model, nullptr); }},
      {"ModelGetNumOpsetImports", "model",
       [](Objects&, Outs& o) { return G().ModelGetNumOpsetImports(nullptr, &o.size); }},
      {"ModelGetNumOpsetImports", "out",
       [](Objects& b, Outs&) { return G().ModelGetNumOpsetImports(b.g.model, nullptr); }},
      {"ModelGetOpsetImport", "model",
       [](Objects&, Outs& o) { return G().ModelGetOpsetImport(nullptr, 0, &o.g.ref, &o.version); }},
      {"ModelGetOpsetImport", "domain",
       [](Objects& b, Outs& o) {
         return G().ModelGetOpsetImport(b.g.model, 0, nullptr, &o.version);
       }},
      {"ModelGetOpsetImport", "version",
       [](Objects& b, Outs& o) {
         return G().ModelGetOpsetImport(b.g.model, 0, &o.g.ref, nullptr);
       }},
      {"ModelSetOwnedGraph", "model",
       [](Objects& b, Outs&) { return G().ModelSetOwnedGraph(nullptr, b.g.free_graph); }},
      {"ModelSetOwnedGraph", "graph",
       [](Objects& b, Outs&) { return G().ModelSetOwnedGraph(b.g.empty_model, nullptr); }},
      {"ModelGetGraph", "model",
       [](Objects&, Outs& o) { return G().ModelGetGraph(nullptr, &o.g.graph); }},
      {"ModelGetGraph", "out",
       [](Objects& b, Outs&) { return G().ModelGetGraph(b.g.model, nullptr); }},
      {"ModelVerify", "model", [](Objects&, Outs&) { return G().ModelVerify(nullptr, nullptr); }},
      {"ModelSave", "model",
       [](Objects&, Outs&) { return G().ModelSave(nullptr, SavePath().c_str()); }},
      {"ModelSave", "path", [](Objects& b, Outs&) { return G().ModelSave(b.g.model, nullptr); }},
      {"ModelPrint", "model",
       [](Objects&, Outs&) {
         return G().ModelPrint(nullptr, -1, KILN_PRINT_DEFAULT, &DiscardText, nullptr);
       }},
      {"ModelPrint", "callback",
       [](Objects& b, Outs&) {
         return G().ModelPrint(b.g.model, -1, KILN_PRINT_DEFAULT, nullptr, nullptr);
       }},
      {"CreateSessionFromModel", "env",
       [](Objects& b, Outs& o) {
         return G().CreateSessionFromModel(nullptr, b.g.model, nullptr, &o.session);
       }},
      {"CreateSessionFromModel", "model",
       [](Objects& b, Outs& o) {
         return G().CreateSessionFromModel(b.env, nullptr, nullptr, &o.session);
       }},
      {"CreateSessionFromModel", "out",
       [](Objects& b, Outs&) {
         return G().CreateSessionFromModel(b.env, b.g.model, nullptr, nullptr);
       }},
      {"SessionGetGraph", "session",
       [](Objects&, Outs& o) {
         return G().SessionGetGraph(nullptr, KILN_GRAPH_OPTIMIZED, &o.g.graph);
       }},
      {"SessionGetGraph", "out",
       [](Objects& b, Outs&) {
         return G().SessionGetGraph(b.session, KILN_GRAPH_OPTIMIZED, nullptr);
       }},
      // ---- Graphs
      {"CreateGraph", "name",
       [](Objects&, Outs& o) { return G().CreateGraph(nullptr, &o.g.graph); }},
      {"CreateGraph", "out", [](Objects&, Outs&) { return G().CreateGraph("g", nullptr); }},
      {"GraphGetModel", "graph",
       [](Objects&, Outs& o) { return G().GraphGetModel(nullptr, &o.g.model); }},
      {"GraphGetModel", "out",
       [](Objects& b, Outs&) { return G().GraphGetModel(b.g.graph, nullptr); }},
      {"GraphGetName", "graph",
       [](Objects&, Outs& o) { return G().GraphGetName(nullptr, &o.g.ref); }},
      {"GraphGetName", "out",
       [](Objects& b, Outs&) { return G().GraphGetName(b.g.graph, nullptr); }},
      {"GraphGetNumInputs", "graph",
       [](Objects&, Outs& o) { return G().GraphGetNumInputs(nullptr, &o.size); }},
      {"GraphGetNumInputs", "out",
       [](Objects& b, Outs&) { return G().GraphGetNumInputs(b.g.graph, nullptr); }},
      {"GraphGetInput", "graph",
       [](Objects&, Outs& o) { return G().GraphGetInput(nullptr, 0, &o.g.value_info); }},
      {"GraphGetInput", "out",
       [](Objects& b, Outs&) { return G().GraphGetInput(b.g.graph, 0, nullptr); }},
      {"GraphGetNumOutputs", "graph",
       [](Objects&, Outs& o) { return G().GraphGetNumOutputs(nullptr, &o.size); }},
      {"GraphGetNumOutputs", "out",
       [](Objects& b, Outs&) { return G().GraphGetNumOutputs(b.g.graph, nullptr); }},
      {"GraphGetOutput", "graph",
       [](Objects&, Outs& o) { return G().GraphGetOutput(nullptr, 0, &o.g.value_info); }},
      {"GraphGetOutput", "out",
       [](Objects& b, Outs&) { return G().GraphGetOutput(b.g.graph, 0, nullptr); }},
      {"GraphGetNumInitializers", "graph",
       [](Objects&, Outs& o) { return G().GraphGetNumInitializers(nullptr, &o.size); }},
      {"GraphGetNumInitializers", "out",
       [](Objects& b, Outs&) { return G().GraphGetNumInitializers(b.g.graph, nullptr); }},
      {"GraphGetInitializer", "graph",
       [](Objects&, Outs& o) { return G().GraphGetInitializer(nullptr, 0, &o.g.value_info); }},
      {"GraphGetInitializer", "out",
       [](Objects& b, Outs&) { return G().GraphGetInitializer(b.g.graph, 0, nullptr); }},
      {"GraphGetNumNodes", "graph",
       [](Objects&, Outs& o) { return G().GraphGetNumNodes(nullptr, &o.size); }},
      {"GraphGetNumNodes", "out",
       [](Objects& b, Outs&) { return G().GraphGetNumNodes(b.g.graph, nullptr); }},
      {"GraphGetNode", "graph",
       [](Objects&, Outs& o) { return G().GraphGetNode(nullptr, 0, &o.g.node); }},
      {"GraphGetNode", "out",
       [](Objects& b, Outs&) { return G().GraphGetNode(b.g.graph, 0, nullptr); }},
      {"GraphSetOwnedInputs", "graph",
       [](Objects& b, Outs&) { return G().GraphSetOwnedInputs(nullptr, &b.g.free_value_info, 1); }},
      {"GraphSetOwnedInputs", "inputs",
       [](Objects& b, Outs&) { return G().GraphSetOwnedInputs(b.g.free_graph, nullptr, 1); }},
      {"GraphSetOwnedInputs", "inputs",  // an entry of the array
       [](Objects& b, Outs&) {
         KilnValueInfo* inputs[] = {b.g.free_value_info, nullptr};
         return G().GraphSetOwnedInputs(b.g.free_graph, inputs, 2);
       }},
      {"GraphSetOwnedOutputs", "graph",
       [](Objects& b, Outs&) {
         return G().GraphSetOwnedOutputs(nullptr, &b.g.free_value_info, 1);
       }},
      {"GraphSetOwnedOutputs", "outputs",
       [](Objects& b, Outs&) { return G().GraphSetOwnedOutputs(b.g.free_graph, nullptr, 1); }},
      {"GraphSetOwnedOutputs", "outputs",  // an entry of the array
       [](Objects& b, Outs&) {
         KilnValueInfo* outputs[] = {b.g.free_value_info, nullptr};
         return G().GraphSetOwnedOutputs(b.g.free_graph, outputs, 2);
       }},
      {"GraphAddInitializer", "graph",
       [](Objects& b, Outs&) { return G().GraphAddInitializer(nullptr, "w2", b.value); }},
      {"GraphAddInitializer", "name",
       [](Objects& b, Outs&) { return G().GraphAddInitializer(b.g.free_graph, nullptr, b.value); }},
      {"GraphAddInitializer", "value",
       [](Objects& b, Outs&) { return G().GraphAddInitializer(b.g.free_graph, "w2", nullptr); }},
      {"GraphAddOwnedNode", "graph",
       [](Objects& b, Outs&) { return G().GraphAddOwnedNode(nullptr, b.g.free_node); }},
      {"GraphAddOwnedNode", "node",
       [](Objects& b, Outs&) { return G().GraphAddOwnedNode(b.g.free_graph, nullptr); }},
      {"GraphPrint", "graph",
       [](Objects&, Outs&) {
         return G().GraphPrint(nullptr, -1, KILN_PRINT_DEFAULT, &DiscardText, nullptr);
       }},
      {"GraphPrint", "callback",
       [](Objects& b, Outs&) {
         return G().GraphPrint(b.g.graph, -1, KILN_PRINT_DEFAULT, nullptr, nullptr);
       }},
      // ---- Types
      {"CreateTensorTypeInfo", "dims",
       [](Objects&, Outs& o) {
         return G().CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, nullptr, nullptr, 2, &o.g.type);
       }},
      {"CreateTensorTypeInfo", "out",
       [](Objects&, Outs&) {
         return G().CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, kDims, nullptr, 2, nullptr);
       }},
      {"CreateSparseTensorTypeInfo", "dims",
       [](Objects&, Outs& o) {
         return G().CreateSparseTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, nullptr, nullptr, 2,
                                               &o.g.type);
       }},
      {"CreateSparseTensorTypeInfo", "out",
       [](Objects&, Outs&) {
         return G().CreateSparseTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, kDims, nullptr, 2, nullptr);
       }},
      {"CreateSequenceTypeInfo", "element",
       [](Objects&, Outs& o) { return G().CreateSequenceTypeInfo(nullptr, &o.g.type); }},
      {"CreateSequenceTypeInfo", "out",
       [](Objects& b, Outs&) { return G().CreateSequenceTypeInfo(b.g.type, nullptr); }},
      {"CreateOptionalTypeInfo", "element",
       [](Objects&, Outs& o) { return G().CreateOptionalTypeInfo(nullptr, &o.g.type); }},
      {"CreateOptionalTypeInfo", "out",
       [](Objects& b, Outs&) { return G().CreateOptionalTypeInfo(b.g.type, nullptr); }},
      {"CreateMapTypeInfo", "value",
       [](Objects&, Outs& o) {
         return G().CreateMapTypeInfo(KILN_ELEMENT_TYPE_INT64, nullptr, &o.g.type);
       }},
      {"CreateMapTypeInfo", "out",
       [](Objects& b, Outs&) {
         return G().CreateMapTypeInfo(KILN_ELEMENT_TYPE_INT64, b.g.type, nullptr);
       }},
      {"TypeInfoGetKind", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetKind(nullptr, &o.g.kind); }},
      {"TypeInfoGetKind", "out",
       [](Objects& b, Outs&) { return G().TypeInfoGetKind(b.g.type, nullptr); }},
      {"TypeInfoGetElementType", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetElementType(nullptr, &o.element_type); }},
      {"TypeInfoGetElementType", "out",
       [](Objects& b, Outs&) { return G().TypeInfoGetElementType(b.g.type, nullptr); }},
      {"TypeInfoGetRank", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetRank(nullptr, &o.size); }},
      {"TypeInfoGetRank", "out",
       [](Objects& b, Outs&) { return G().TypeInfoGetRank(b.g.type, nullptr); }},
      {"TypeInfoGetDimensions", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetDimensions(nullptr, o.dims, 2); }},
      {"TypeInfoGetDimensions", "dims",
       [](Objects& b, Outs&) { return G().TypeInfoGetDimensions(b.g.type, nullptr, 2); }},
      {"TypeInfoGetDimParam", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetDimParam(nullptr, 0, &o.g.ref); }},
      {"TypeInfoGetDimParam", "out",
       [](Objects& b, Outs&) { return G().TypeInfoGetDimParam(b.g.type, 0, nullptr); }},
      {"TypeInfoGetContainedType", "type",
       [](Objects&, Outs& o) { return G().TypeInfoGetContainedType(nullptr, &o.g.const_type); }},
      {"TypeInfoGetContainedType", "out",
       [](Objects& b, Outs&) { return G().TypeInfoGetContainedType(b.g.seq_type, nullptr); }},
      // ---- Values
      {"CreateValueInfo", "name",
       [](Objects& b, Outs& o) { return G().CreateValueInfo(nullptr, b.g.type, &o.g.value_info); }},
      {"CreateValueInfo", "out",
       [](Objects& b, Outs&) { return G().CreateValueInfo("v", b.g.type, nullptr); }},
      {"ValueInfoGetName", "value",
       [](Objects&, Outs& o) { return G().ValueInfoGetName(nullptr, &o.g.ref); }},
      {"ValueInfoGetName", "out",
       [](Objects& b, Outs&) { return G().ValueInfoGetName(b.g.input, nullptr); }},
      {"ValueInfoGetType", "value",
       [](Objects&, Outs& o) { return G().ValueInfoGetType(nullptr, &o.g.const_type); }},
      {"ValueInfoGetType", "out",
       [](Objects& b, Outs&) { return G().ValueInfoGetType(b.g.input, nullptr); }},
      {"ValueInfoGetProducer", "value",
       [](Objects&, Outs& o) { return G().ValueInfoGetProducer(nullptr, &o.g.node, &o.g.index); }},
      {"ValueInfoGetProducer", "node",
       [](Objects& b, Outs& o) {
         return G().ValueInfoGetProducer(b.g.output, nullptr, &o.g.index);
       }},
      {"ValueInfoGetProducer", "output_index",
       [](Objects& b, Outs& o) {
         return G().ValueInfoGetProducer(b.g.output, &o.g.node, nullptr);
       }},
      {"ValueInfoGetNumConsumers", "value",
       [](Objects&, Outs& o) { return G().ValueInfoGetNumConsumers(nullptr, &o.size); }},
      {"ValueInfoGetNumConsumers", "out",
       [](Objects& b, Outs&) { return G().ValueInfoGetNumConsumers(b.g.input, nullptr); }},
      {"ValueInfoGetConsumer", "value",
       [](Objects&, Outs& o) {
         return G().ValueInfoGetConsumer(nullptr, 0, &o.g.node, &o.g.index);
       }},
      {"ValueInfoGetConsumer", "node",
       [](Objects& b, Outs& o) {
         return G().ValueInfoGetConsumer(b.g.input, 0, nullptr, &o.g.index);
       }},
      {"ValueInfoGetConsumer", "input_index",
       [](Objects& b, Outs& o) {
         return G().ValueInfoGetConsumer(b.g.input, 0, &o.g.node, nullptr);
       }},
      {"ValueInfoGetInitializer", "value",
       [](Objects&, Outs& o) { return G().ValueInfoGetInitializer(nullptr, &o.const_value); }},
      {"ValueInfoGetInitializer", "out",
       [](Objects& b, Outs&) { return G().ValueInfoGetInitializer(b.g.weight, nullptr); }},
      {"ValueInfoIsCaptured", "value",
       [](Objects&, Outs& o) { return G().ValueInfoIsCaptured(nullptr, &o.i); }},
      {"ValueInfoIsCaptured", "out",
       [](Objects& b, Outs&) { return G().ValueInfoIsCaptured(b.g.input, nullptr); }},
      // ---- Nodes
      {"CreateNode", "op_type",
       [](Objects&, Outs& o) {
         return G().CreateNode(nullptr, "", "n", kReluIn, 1, kReluOut, 1, &o.g.node);
       }},
      {"CreateNode", "domain",
       [](Objects&, Outs& o) {
         return G().CreateNode("Relu", nullptr, "n", kReluIn, 1, kReluOut, 1, &o.g.node);
       }},
      {"CreateNode", "name",
       [](Objects&, Outs& o) {
         return G().CreateNode("Relu", "", nullptr, kReluIn, 1, kReluOut, 1, &o.g.node);
       }},
      {"CreateNode", "inputs",
       [](Objects&, Outs& o) {
         return G().CreateNode("Relu", "", "n", nullptr, 1, kReluOut, 1, &o.g.node);
       }},
      {"CreateNode", "inputs",  // an entry of the array
       [](Objects&, Outs& o) {
         const char* in[] = {nullptr};
         return G().CreateNode("Relu", "", "n", in, 1, kReluOut, 1, &o.g.node);
       }},
      {"CreateNode", "outputs",
       [](Objects&, Outs& o) {
         return G().CreateNode("Relu", "", "n", kReluIn, 1, nullptr, 1, &o.g.node);
       }},
      {"CreateNode", "outputs",  // an entry of the array
       [](Objects&, Outs& o) {
         const char* out[] = {nullptr};
         return G().CreateNode("Relu", "", "n", kReluIn, 1, out, 1, &o.g.node);
       }},
      {"CreateNode", "out",
       [](Objects&, Outs&) {
         return G().CreateNode("Relu", "", "n", kReluIn, 1, kReluOut, 1, nullptr);
       }},
      {"NodeGetName", "node", [](Objects&, Outs& o) { return G().NodeGetName(nullptr, &o.g.ref); }},
      {"NodeGetName", "out", [](Objects& b, Outs&) { return G().NodeGetName(b.g.node, nullptr); }},
      {"NodeGetOpType", "node",
       [](Objects&, Outs& o) { return G().NodeGetOpType(nullptr, &o.g.ref); }},
      {"NodeGetOpType", "out",
       [](Objects& b, Outs&) { return G().NodeGetOpType(b.g.node, nullptr); }},
      {"NodeGetDomain", "node",
       [](Objects&, Outs& o) { return G().NodeGetDomain(nullptr, &o.g.ref); }},
      {"NodeGetDomain", "out",
       [](Objects& b, Outs&) { return G().NodeGetDomain(b.g.node, nullptr); }},
      {"NodeGetSinceVersion", "node",
       [](Objects&, Outs& o) { return G().NodeGetSinceVersion(nullptr, &o.version); }},
      {"NodeGetSinceVersion", "out",
       [](Objects& b, Outs&) { return G().NodeGetSinceVersion(b.g.node, nullptr); }},
      {"NodeGetNumInputs", "node",
       [](Objects&, Outs& o) { return G().NodeGetNumInputs(nullptr, &o.size); }},
      {"NodeGetNumInputs", "out",
       [](Objects& b, Outs&) { return G().NodeGetNumInputs(b.g.node, nullptr); }},
      {"NodeGetInput", "node",
       [](Objects&, Outs& o) { return G().NodeGetInput(nullptr, 0, &o.g.value_info); }},
      {"NodeGetInput", "out",
       [](Objects& b, Outs&) { return G().NodeGetInput(b.g.node, 0, nullptr); }},
      {"NodeGetNumOutputs", "node",
       [](Objects&, Outs& o) { return G().NodeGetNumOutputs(nullptr, &o.size); }},
      {"NodeGetNumOutputs", "out",
       [](Objects& b, Outs&) { return G().NodeGetNumOutputs(b.g.node, nullptr); }},
      {"NodeGetOutput", "node",
       [](Objects&, Outs& o) { return G().NodeGetOutput(nullptr, 0, &o.g.value_info); }},
      {"NodeGetOutput", "out",
       [](Objects& b, Outs&) { return G().NodeGetOutput(b.g.node, 0, nullptr); }},
      {"NodeGetNumImplicitInputs", "node",
       [](Objects&, Outs& o) { return G().NodeGetNumImplicitInputs(nullptr, &o.size); }},
      {"NodeGetNumImplicitInputs", "out",
       [](Objects& b, Outs&) { return G().NodeGetNumImplicitInputs(b.g.if_node, nullptr); }},
      {"NodeGetImplicitInput", "node",
       [](Objects&, Outs& o) { return G().NodeGetImplicitInput(nullptr, 0, &o.g.value_info); }},
      {"NodeGetImplicitInput", "out",
       [](Objects& b, Outs&) { return G().NodeGetImplicitInput(b.g.if_node, 0, nullptr); }},
      {"NodeGetNumAttributes", "node",
       [](Objects&, Outs& o) { return G().NodeGetNumAttributes(nullptr, &o.size); }},
      {"NodeGetNumAttributes", "out",
       [](Objects& b, Outs&) { return G().NodeGetNumAttributes(b.g.if_node, nullptr); }},
      {"NodeGetAttribute", "node",
       [](Objects&, Outs& o) { return G().NodeGetAttribute(nullptr, 0, &o.g.attribute); }},
      {"NodeGetAttribute", "out",
       [](Objects& b, Outs&) { return G().NodeGetAttribute(b.g.if_node, 0, nullptr); }},
      {"NodeGetAttributeByName", "node",
       [](Objects&, Outs& o) {
         return G().NodeGetAttributeByName(nullptr, "then_branch", &o.g.attribute);
       }},
      {"NodeGetAttributeByName", "name",
       [](Objects& b, Outs& o) {
         return G().NodeGetAttributeByName(b.g.if_node, nullptr, &o.g.attribute);
       }},
      {"NodeGetAttributeByName", "out",
       [](Objects& b, Outs&) {
         return G().NodeGetAttributeByName(b.g.if_node, "then_branch", nullptr);
       }},
      {"NodeAddOwnedAttribute", "node",
       [](Objects& b, Outs&) { return G().NodeAddOwnedAttribute(nullptr, b.g.attr_int); }},
      {"NodeAddOwnedAttribute", "attribute",
       [](Objects& b, Outs&) { return G().NodeAddOwnedAttribute(b.g.free_node, nullptr); }},
      {"NodeGetKernel", "node",
       [](Objects&, Outs& o) { return G().NodeGetKernel(nullptr, &o.g.ref); }},
      {"NodeGetKernel", "out",
       [](Objects& b, Outs&) { return G().NodeGetKernel(b.g.view_node, nullptr); }},
      {"NodeGetNumFusedFrom", "node",
       [](Objects&, Outs& o) { return G().NodeGetNumFusedFrom(nullptr, &o.size); }},
      {"NodeGetNumFusedFrom", "out",
       [](Objects& b, Outs&) { return G().NodeGetNumFusedFrom(b.g.view_node, nullptr); }},
      {"NodeGetFusedFrom", "node",
       [](Objects&, Outs& o) { return G().NodeGetFusedFrom(nullptr, 0, &o.g.ref); }},
      {"NodeGetFusedFrom", "out",
       [](Objects& b, Outs&) {
         b.g.MakeFused(b.env);
         return G().NodeGetFusedFrom(b.g.fused_node, 0, nullptr);
       }},
      // ---- Attributes
      {"CreateAttributeInt", "name",
       [](Objects&, Outs& o) { return G().CreateAttributeInt(nullptr, 1, &o.g.attribute); }},
      {"CreateAttributeInt", "out",
       [](Objects&, Outs&) { return G().CreateAttributeInt("i", 1, nullptr); }},
      {"CreateAttributeFloat", "name",
       [](Objects&, Outs& o) { return G().CreateAttributeFloat(nullptr, 1.0f, &o.g.attribute); }},
      {"CreateAttributeFloat", "out",
       [](Objects&, Outs&) { return G().CreateAttributeFloat("f", 1.0f, nullptr); }},
      {"CreateAttributeString", "name",
       [](Objects&, Outs& o) {
         return G().CreateAttributeString(nullptr, "abc", 3, &o.g.attribute);
       }},
      {"CreateAttributeString", "data",
       [](Objects&, Outs& o) {
         return G().CreateAttributeString("s", nullptr, 3, &o.g.attribute);
       }},
      {"CreateAttributeString", "out",
       [](Objects&, Outs&) { return G().CreateAttributeString("s", "abc", 3, nullptr); }},
      {"CreateAttributeTensor", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeTensor(nullptr, b.value, &o.g.attribute);
       }},
      {"CreateAttributeTensor", "value",
       [](Objects&, Outs& o) { return G().CreateAttributeTensor("t", nullptr, &o.g.attribute); }},
      {"CreateAttributeTensor", "out",
       [](Objects& b, Outs&) { return G().CreateAttributeTensor("t", b.value, nullptr); }},
      {"CreateAttributeWithOwnedGraph", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeWithOwnedGraph(nullptr, b.g.free_graph, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraph", "graph",
       [](Objects&, Outs& o) {
         return G().CreateAttributeWithOwnedGraph("body", nullptr, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraph", "out",
       [](Objects& b, Outs&) {
         return G().CreateAttributeWithOwnedGraph("body", b.g.free_graph, nullptr);
       }},
      {"CreateAttributeInts", "name",
       [](Objects&, Outs& o) {
         return G().CreateAttributeInts(nullptr, kDims, 2, &o.g.attribute);
       }},
      {"CreateAttributeInts", "values",
       [](Objects&, Outs& o) { return G().CreateAttributeInts("a", nullptr, 2, &o.g.attribute); }},
      {"CreateAttributeInts", "out",
       [](Objects&, Outs&) { return G().CreateAttributeInts("a", kDims, 2, nullptr); }},
      {"CreateAttributeFloats", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeFloats(nullptr, b.data, 2, &o.g.attribute);
       }},
      {"CreateAttributeFloats", "values",
       [](Objects&, Outs& o) {
         return G().CreateAttributeFloats("a", nullptr, 2, &o.g.attribute);
       }},
      {"CreateAttributeFloats", "out",
       [](Objects& b, Outs&) { return G().CreateAttributeFloats("a", b.data, 2, nullptr); }},
      {"CreateAttributeStrings", "name",
       [](Objects&, Outs& o) {
         const KilnStringRef s[] = {{"p", 1}};
         return G().CreateAttributeStrings(nullptr, s, 1, &o.g.attribute);
       }},
      {"CreateAttributeStrings", "values",
       [](Objects&, Outs& o) {
         return G().CreateAttributeStrings("a", nullptr, 1, &o.g.attribute);
       }},
      {"CreateAttributeStrings", "out",
       [](Objects&, Outs&) {
         const KilnStringRef s[] = {{"p", 1}};
         return G().CreateAttributeStrings("a", s, 1, nullptr);
       }},
      {"CreateAttributeTensors", "name",
       [](Objects& b, Outs& o) {
         const KilnValue* t[] = {b.value};
         return G().CreateAttributeTensors(nullptr, t, 1, &o.g.attribute);
       }},
      {"CreateAttributeTensors", "values",
       [](Objects&, Outs& o) {
         return G().CreateAttributeTensors("a", nullptr, 1, &o.g.attribute);
       }},
      {"CreateAttributeTensors", "values",  // an entry of the array
       [](Objects& b, Outs& o) {
         const KilnValue* t[] = {b.value, nullptr};
         return G().CreateAttributeTensors("a", t, 2, &o.g.attribute);
       }},
      {"CreateAttributeTensors", "out",
       [](Objects& b, Outs&) {
         const KilnValue* t[] = {b.value};
         return G().CreateAttributeTensors("a", t, 1, nullptr);
       }},
      {"CreateAttributeWithOwnedGraphs", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeWithOwnedGraphs(nullptr, &b.g.free_graph, 1, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraphs", "graphs",
       [](Objects&, Outs& o) {
         return G().CreateAttributeWithOwnedGraphs("a", nullptr, 1, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraphs", "graphs",  // an entry of the array
       [](Objects& b, Outs& o) {
         KilnGraph* graphs[] = {b.g.free_graph, nullptr};
         return G().CreateAttributeWithOwnedGraphs("a", graphs, 2, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraphs", "out",
       [](Objects& b, Outs&) {
         return G().CreateAttributeWithOwnedGraphs("a", &b.g.free_graph, 1, nullptr);
       }},
      {"AttributeGetName", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetName(nullptr, &o.g.ref); }},
      {"AttributeGetName", "out",
       [](Objects& b, Outs&) { return G().AttributeGetName(b.g.attr_int, nullptr); }},
      {"AttributeGetType", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetType(nullptr, &o.g.attribute_type); }},
      {"AttributeGetType", "out",
       [](Objects& b, Outs&) { return G().AttributeGetType(b.g.attr_int, nullptr); }},
      {"AttributeGetInt", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetInt(nullptr, &o.version); }},
      {"AttributeGetInt", "out",
       [](Objects& b, Outs&) { return G().AttributeGetInt(b.g.attr_int, nullptr); }},
      {"AttributeGetFloat", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetFloat(nullptr, &o.f); }},
      {"AttributeGetFloat", "out",
       [](Objects& b, Outs&) { return G().AttributeGetFloat(b.g.attr_float, nullptr); }},
      {"AttributeGetString", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetString(nullptr, &o.g.ref); }},
      {"AttributeGetString", "out",
       [](Objects& b, Outs&) { return G().AttributeGetString(b.g.attr_string, nullptr); }},
      {"AttributeGetTensor", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetTensor(nullptr, &o.const_value); }},
      {"AttributeGetTensor", "out",
       [](Objects& b, Outs&) { return G().AttributeGetTensor(b.g.attr_tensor, nullptr); }},
      {"AttributeGetGraph", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetGraph(nullptr, &o.g.graph); }},
      {"AttributeGetGraph", "out",
       [](Objects& b, Outs&) { return G().AttributeGetGraph(b.g.attr_graph, nullptr); }},
      {"AttributeGetNumElements", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetNumElements(nullptr, &o.size); }},
      {"AttributeGetNumElements", "out",
       [](Objects& b, Outs&) { return G().AttributeGetNumElements(b.g.attr_ints, nullptr); }},
      {"AttributeGetInts", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetInts(nullptr, &o.ints); }},
      {"AttributeGetInts", "out",
       [](Objects& b, Outs&) { return G().AttributeGetInts(b.g.attr_ints, nullptr); }},
      {"AttributeGetFloats", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetFloats(nullptr, &o.floats); }},
      {"AttributeGetFloats", "out",
       [](Objects& b, Outs&) { return G().AttributeGetFloats(b.g.attr_floats, nullptr); }},
      {"AttributeGetStringAt", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetStringAt(nullptr, 0, &o.g.ref); }},
      {"AttributeGetStringAt", "out",
       [](Objects& b, Outs&) { return G().AttributeGetStringAt(b.g.attr_strings, 0, nullptr); }},
      {"AttributeGetTensorAt", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetTensorAt(nullptr, 0, &o.const_value); }},
      {"AttributeGetTensorAt", "out",
       [](Objects& b, Outs&) { return G().AttributeGetTensorAt(b.g.attr_tensors, 0, nullptr); }},
      {"AttributeGetGraphAt", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetGraphAt(nullptr, 0, &o.g.graph); }},
      {"AttributeGetGraphAt", "out",
       [](Objects& b, Outs&) { return G().AttributeGetGraphAt(b.g.attr_graphs, 0, nullptr); }},
  };
  for (Case& c : GraphAttributeNullCases()) cases.push_back(std::move(c));
  return cases;
}

std::vector<Case> GraphHandleCases(bool stale) {
  // A handle of the wrong kind for each kind of argument, or a released one of its own.
  auto as_model = [stale](Objects& b) {
    return stale ? b.g.stale_model : reinterpret_cast<KilnModel*>(b.g.graph);
  };
  auto as_graph = [stale](Objects& b) {
    return stale ? b.g.stale_graph : reinterpret_cast<KilnGraph*>(b.g.model);
  };
  auto as_node = [stale](Objects& b) {
    return stale ? b.g.stale_node : reinterpret_cast<KilnNode*>(b.g.input);
  };
  auto as_value_info = [stale](Objects& b) {
    return stale ? b.g.stale_value_info : reinterpret_cast<KilnValueInfo*>(b.g.node);
  };
  auto as_attribute = [stale](Objects& b) {
    return stale ? b.g.stale_attribute : reinterpret_cast<KilnAttribute*>(b.g.type);
  };
  auto as_type = [stale](Objects& b) {
    return stale ? b.g.stale_type : reinterpret_cast<KilnTypeInfo*>(b.g.attr_int);
  };
  auto as_value = [stale](Objects& b) {
    return stale ? b.stale_value : reinterpret_cast<KilnValue*>(b.g.input);
  };
  auto as_env = [stale](Objects& b) {
    return stale ? b.stale_env : reinterpret_cast<KilnEnv*>(b.g.model);
  };
  auto as_session = [stale](Objects& b) {
    return stale ? b.stale_session : reinterpret_cast<KilnSession*>(b.g.graph);
  };
  auto as_session_options = [stale](Objects& b) {
    return stale ? b.stale_session_options : reinterpret_cast<KilnSessionOptions*>(b.g.node);
  };
  std::vector<Case> cases = {
      // ---- Models
      {"ModelGetIrVersion", "model",
       [=](Objects& b, Outs& o) { return G().ModelGetIrVersion(as_model(b), &o.version); }},
      {"ModelGetNumOpsetImports", "model",
       [=](Objects& b, Outs& o) { return G().ModelGetNumOpsetImports(as_model(b), &o.size); }},
      {"ModelGetOpsetImport", "model",
       [=](Objects& b, Outs& o) {
         return G().ModelGetOpsetImport(as_model(b), 0, &o.g.ref, &o.version);
       }},
      {"ModelSetOwnedGraph", "model",
       [=](Objects& b, Outs&) { return G().ModelSetOwnedGraph(as_model(b), b.g.free_graph); }},
      {"ModelSetOwnedGraph", "graph",
       [=](Objects& b, Outs&) { return G().ModelSetOwnedGraph(b.g.empty_model, as_graph(b)); }},
      {"ModelGetGraph", "model",
       [=](Objects& b, Outs& o) { return G().ModelGetGraph(as_model(b), &o.g.graph); }},
      {"ModelVerify", "model",
       [=](Objects& b, Outs&) { return G().ModelVerify(as_model(b), nullptr); }},
      {"ModelVerify", "options",
       [=](Objects& b, Outs&) { return G().ModelVerify(b.g.model, as_session_options(b)); }},
      {"ModelSave", "model",
       [=](Objects& b, Outs&) { return G().ModelSave(as_model(b), SavePath().c_str()); }},
      {"ModelPrint", "model",
       [=](Objects& b, Outs&) {
         return G().ModelPrint(as_model(b), -1, KILN_PRINT_DEFAULT, &DiscardText, nullptr);
       }},
      {"CreateSessionFromModel", "env",
       [=](Objects& b, Outs& o) {
         return G().CreateSessionFromModel(as_env(b), b.g.model, nullptr, &o.session);
       }},
      {"CreateSessionFromModel", "model",
       [=](Objects& b, Outs& o) {
         return G().CreateSessionFromModel(b.env, as_model(b), nullptr, &o.session);
       }},
      {"CreateSessionFromModel", "options",
       [=](Objects& b, Outs& o) {
         return G().CreateSessionFromModel(b.env, b.g.model, as_session_options(b), &o.session);
       }},
      {"SessionGetGraph", "session",
       [=](Objects& b, Outs& o) {
         return G().SessionGetGraph(as_session(b), KILN_GRAPH_OPTIMIZED, &o.g.graph);
       }},
      // ---- Graphs
      {"GraphGetModel", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetModel(as_graph(b), &o.g.model); }},
      {"GraphGetName", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetName(as_graph(b), &o.g.ref); }},
      {"GraphGetNumInputs", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetNumInputs(as_graph(b), &o.size); }},
      {"GraphGetInput", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetInput(as_graph(b), 0, &o.g.value_info); }},
      {"GraphGetNumOutputs", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetNumOutputs(as_graph(b), &o.size); }},
      {"GraphGetOutput", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetOutput(as_graph(b), 0, &o.g.value_info); }},
      {"GraphGetNumInitializers", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetNumInitializers(as_graph(b), &o.size); }},
      {"GraphGetInitializer", "graph",
       [=](Objects& b, Outs& o) {
         return G().GraphGetInitializer(as_graph(b), 0, &o.g.value_info);
       }},
      {"GraphGetNumNodes", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetNumNodes(as_graph(b), &o.size); }},
      {"GraphGetNode", "graph",
       [=](Objects& b, Outs& o) { return G().GraphGetNode(as_graph(b), 0, &o.g.node); }},
      {"GraphSetOwnedInputs", "graph",
       [=](Objects& b, Outs&) {
         return G().GraphSetOwnedInputs(as_graph(b), &b.g.free_value_info, 1);
       }},
      {"GraphSetOwnedInputs", "inputs[0]",
       [=](Objects& b, Outs&) {
         KilnValueInfo* inputs[] = {as_value_info(b)};
         return G().GraphSetOwnedInputs(b.g.free_graph, inputs, 1);
       }},
      {"GraphSetOwnedOutputs", "graph",
       [=](Objects& b, Outs&) {
         return G().GraphSetOwnedOutputs(as_graph(b), &b.g.free_value_info, 1);
       }},
      {"GraphSetOwnedOutputs", "outputs[0]",
       [=](Objects& b, Outs&) {
         KilnValueInfo* outputs[] = {as_value_info(b)};
         return G().GraphSetOwnedOutputs(b.g.free_graph, outputs, 1);
       }},
      {"GraphAddInitializer", "graph",
       [=](Objects& b, Outs&) { return G().GraphAddInitializer(as_graph(b), "w2", b.value); }},
      {"GraphAddInitializer", "value",
       [=](Objects& b, Outs&) {
         return G().GraphAddInitializer(b.g.free_graph, "w2", as_value(b));
       }},
      {"GraphAddOwnedNode", "graph",
       [=](Objects& b, Outs&) { return G().GraphAddOwnedNode(as_graph(b), b.g.free_node); }},
      {"GraphAddOwnedNode", "node",
       [=](Objects& b, Outs&) { return G().GraphAddOwnedNode(b.g.free_graph, as_node(b)); }},
      {"GraphPrint", "graph",
       [=](Objects& b, Outs&) {
         return G().GraphPrint(as_graph(b), -1, KILN_PRINT_DEFAULT, &DiscardText, nullptr);
       }},
      // ---- Types
      {"CreateSequenceTypeInfo", "element",
       [=](Objects& b, Outs& o) { return G().CreateSequenceTypeInfo(as_type(b), &o.g.type); }},
      {"CreateOptionalTypeInfo", "element",
       [=](Objects& b, Outs& o) { return G().CreateOptionalTypeInfo(as_type(b), &o.g.type); }},
      {"CreateMapTypeInfo", "value",
       [=](Objects& b, Outs& o) {
         return G().CreateMapTypeInfo(KILN_ELEMENT_TYPE_INT64, as_type(b), &o.g.type);
       }},
      {"TypeInfoGetKind", "type",
       [=](Objects& b, Outs& o) { return G().TypeInfoGetKind(as_type(b), &o.g.kind); }},
      {"TypeInfoGetElementType", "type",
       [=](Objects& b, Outs& o) {
         return G().TypeInfoGetElementType(as_type(b), &o.element_type);
       }},
      {"TypeInfoGetRank", "type",
       [=](Objects& b, Outs& o) { return G().TypeInfoGetRank(as_type(b), &o.size); }},
      {"TypeInfoGetDimensions", "type",
       [=](Objects& b, Outs& o) { return G().TypeInfoGetDimensions(as_type(b), o.dims, 2); }},
      {"TypeInfoGetDimParam", "type",
       [=](Objects& b, Outs& o) { return G().TypeInfoGetDimParam(as_type(b), 0, &o.g.ref); }},
      {"TypeInfoGetContainedType", "type",
       [=](Objects& b, Outs& o) {
         return G().TypeInfoGetContainedType(as_type(b), &o.g.const_type);
       }},
      // ---- Values
      {"CreateValueInfo", "type",
       [=](Objects& b, Outs& o) { return G().CreateValueInfo("v", as_type(b), &o.g.value_info); }},
      {"ValueInfoGetName", "value",
       [=](Objects& b, Outs& o) { return G().ValueInfoGetName(as_value_info(b), &o.g.ref); }},
      {"ValueInfoGetType", "value",
       [=](Objects& b, Outs& o) {
         return G().ValueInfoGetType(as_value_info(b), &o.g.const_type);
       }},
      {"ValueInfoGetProducer", "value",
       [=](Objects& b, Outs& o) {
         return G().ValueInfoGetProducer(as_value_info(b), &o.g.node, &o.g.index);
       }},
      {"ValueInfoGetNumConsumers", "value",
       [=](Objects& b, Outs& o) {
         return G().ValueInfoGetNumConsumers(as_value_info(b), &o.size);
       }},
      {"ValueInfoGetConsumer", "value",
       [=](Objects& b, Outs& o) {
         return G().ValueInfoGetConsumer(as_value_info(b), 0, &o.g.node, &o.g.index);
       }},
      {"ValueInfoGetInitializer", "value",
       [=](Objects& b, Outs& o) {
         return G().ValueInfoGetInitializer(as_value_info(b), &o.const_value);
       }},
      {"ValueInfoIsCaptured", "value",
       [=](Objects& b, Outs& o) { return G().ValueInfoIsCaptured(as_value_info(b), &o.i); }},
      // ---- Nodes
      {"NodeGetName", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetName(as_node(b), &o.g.ref); }},
      {"NodeGetOpType", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetOpType(as_node(b), &o.g.ref); }},
      {"NodeGetDomain", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetDomain(as_node(b), &o.g.ref); }},
      {"NodeGetSinceVersion", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetSinceVersion(as_node(b), &o.version); }},
      {"NodeGetNumInputs", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetNumInputs(as_node(b), &o.size); }},
      {"NodeGetInput", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetInput(as_node(b), 0, &o.g.value_info); }},
      {"NodeGetNumOutputs", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetNumOutputs(as_node(b), &o.size); }},
      {"NodeGetOutput", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetOutput(as_node(b), 0, &o.g.value_info); }},
      {"NodeGetNumImplicitInputs", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetNumImplicitInputs(as_node(b), &o.size); }},
      {"NodeGetImplicitInput", "node",
       [=](Objects& b, Outs& o) {
         return G().NodeGetImplicitInput(as_node(b), 0, &o.g.value_info);
       }},
      {"NodeGetNumAttributes", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetNumAttributes(as_node(b), &o.size); }},
      {"NodeGetAttribute", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetAttribute(as_node(b), 0, &o.g.attribute); }},
      {"NodeGetAttributeByName", "node",
       [=](Objects& b, Outs& o) {
         return G().NodeGetAttributeByName(as_node(b), "then_branch", &o.g.attribute);
       }},
      {"NodeAddOwnedAttribute", "node",
       [=](Objects& b, Outs&) { return G().NodeAddOwnedAttribute(as_node(b), b.g.attr_int); }},
      {"NodeAddOwnedAttribute", "attribute",
       [=](Objects& b, Outs&) {
         return G().NodeAddOwnedAttribute(b.g.free_node, as_attribute(b));
       }},
      {"NodeGetKernel", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetKernel(as_node(b), &o.g.ref); }},
      {"NodeGetNumFusedFrom", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetNumFusedFrom(as_node(b), &o.size); }},
      {"NodeGetFusedFrom", "node",
       [=](Objects& b, Outs& o) { return G().NodeGetFusedFrom(as_node(b), 0, &o.g.ref); }},
      // ---- Attributes
      {"CreateAttributeTensor", "value",
       [=](Objects& b, Outs& o) {
         return G().CreateAttributeTensor("t", as_value(b), &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraph", "graph",
       [=](Objects& b, Outs& o) {
         return G().CreateAttributeWithOwnedGraph("body", as_graph(b), &o.g.attribute);
       }},
      {"CreateAttributeTensors", "values[0]",
       [=](Objects& b, Outs& o) {
         const KilnValue* t[] = {as_value(b)};
         return G().CreateAttributeTensors("a", t, 1, &o.g.attribute);
       }},
      {"CreateAttributeWithOwnedGraphs", "graphs[0]",
       [=](Objects& b, Outs& o) {
         KilnGraph* graphs[] = {as_graph(b)};
         return G().CreateAttributeWithOwnedGraphs("a", graphs, 1, &o.g.attribute);
       }},
      {"AttributeGetName", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetName(as_attribute(b), &o.g.ref); }},
      {"AttributeGetType", "attribute",
       [=](Objects& b, Outs& o) {
         return G().AttributeGetType(as_attribute(b), &o.g.attribute_type);
       }},
      {"AttributeGetInt", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetInt(as_attribute(b), &o.version); }},
      {"AttributeGetFloat", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetFloat(as_attribute(b), &o.f); }},
      {"AttributeGetString", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetString(as_attribute(b), &o.g.ref); }},
      {"AttributeGetTensor", "attribute",
       [=](Objects& b,
           Outs& o) { return G().AttributeGetTensor(as_attribute(b), &o.const_value); }},
      {"AttributeGetGraph", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetGraph(as_attribute(b), &o.g.graph); }},
      {"AttributeGetNumElements", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetNumElements(as_attribute(b), &o.size); }},
      {"AttributeGetInts", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetInts(as_attribute(b), &o.ints); }},
      {"AttributeGetFloats", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetFloats(as_attribute(b), &o.floats); }},
      {"AttributeGetStringAt", "attribute",
       [=](Objects& b, Outs& o) { return G().AttributeGetStringAt(as_attribute(b), 0, &o.g.ref); }},
      {"AttributeGetTensorAt", "attribute",
       [=](Objects& b,
           Outs& o) { return G().AttributeGetTensorAt(as_attribute(b), 0, &o.const_value); }},
      {"AttributeGetGraphAt", "attribute",
       [=](Objects& b,
           Outs& o) { return G().AttributeGetGraphAt(as_attribute(b), 0, &o.g.graph); }},
  };
  for (Case& c : GraphAttributeHandleCases(stale)) cases.push_back(std::move(c));
  return cases;
}

// The graph entries whose arguments include no handle.
std::set<std::string> GraphNoHandleArgument() {
  return {"CreateModel",
          "CreateModelFromFile",
          "CreateModelFromArray",
          "CreateModelFromText",
          "CreateGraph",
          "CreateTensorTypeInfo",
          "CreateSparseTensorTypeInfo",
          "CreateNode",
          "CreateAttributeInt",
          "CreateAttributeFloat",
          "CreateAttributeString",
          "CreateAttributeInts",
          "CreateAttributeFloats",
          "CreateAttributeStrings"};
}

}  // namespace kiln_test
