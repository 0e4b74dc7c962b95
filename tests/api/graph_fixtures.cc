#include "graph_fixtures.h"

#include <cstring>
#include <string>

#include "test_models.h"

namespace kiln_test {

void GraphObjects::Make(KilnValue* tensor, KilnSession* session) {
  const KilnGraphApi& g = graph_api();
  const char* domains[] = {""};
  const int64_t versions[] = {17};
  const int64_t dims[] = {-1, 3};
  const char* params[] = {"N", nullptr};
  ExpectOk(g.CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, dims, params, 2, &type));
  ExpectOk(g.CreateSequenceTypeInfo(type, &seq_type));

  ExpectOk(g.CreateModel(8, domains, versions, 1, &model));
  ExpectOk(g.CreateGraph("main", &graph));
  ExpectOk(g.CreateValueInfo("x", type, &input));
  ExpectOk(g.GraphSetOwnedInputs(graph, &input, 1));
  ExpectOk(g.GraphAddInitializer(graph, "w", tensor));
  const char* add_in[] = {"x", "w"};
  const char* add_out[] = {"y"};
  ExpectOk(g.CreateNode("Add", "", "add", add_in, 2, add_out, 1, &node));
  ExpectOk(g.GraphAddOwnedNode(graph, node));
  ExpectOk(g.CreateValueInfo("y", nullptr, &output));
  ExpectOk(g.GraphSetOwnedOutputs(graph, &output, 1));
  ExpectOk(g.ModelSetOwnedGraph(model, graph));
  ExpectOk(g.GraphGetInitializer(graph, 0, &weight));
  ExpectOk(g.CreateModel(8, domains, versions, 1, &empty_model));

  ExpectOk(g.CreateModelFromText(kIfModelText, std::strlen(kIfModelText), &text_model));
  ExpectOk(g.ModelGetGraph(text_model, &text_graph));
  ExpectOk(g.GraphGetNode(text_graph, 0, &if_node));

  ExpectOk(g.CreateGraph("free", &free_graph));
  const char* relu_in[] = {"y"};
  const char* relu_out[] = {"z"};
  ExpectOk(g.CreateNode("Relu", "", "relu", relu_in, 1, relu_out, 1, &free_node));
  ExpectOk(g.CreateValueInfo("v", type, &free_value_info));
  ExpectOk(g.CreateValueInfo("y", nullptr, &free_value_info2));
  ExpectOk(g.CreateGraph("free2", &free_graph2));

  ExpectOk(g.CreateAttributeInt("i", 7, &attr_int));
  ExpectOk(g.CreateAttributeFloat("f", 0.5f, &attr_float));
  ExpectOk(g.CreateAttributeString("s", "a\0b", 3, &attr_string));
  ExpectOk(g.CreateAttributeTensor("t", tensor, &attr_tensor));
  KilnGraph* body = nullptr;
  ExpectOk(g.CreateGraph("body", &body));
  ExpectOk(g.CreateAttributeWithOwnedGraph("body", body, &attr_graph));
  const int64_t ints[] = {1, 2};
  ExpectOk(g.CreateAttributeInts("ints", ints, 2, &attr_ints));
  const float floats[] = {0.5f, 1.5f};
  ExpectOk(g.CreateAttributeFloats("floats", floats, 2, &attr_floats));
  const KilnStringRef strings[] = {{"p", 1}, {"q", 1}};
  ExpectOk(g.CreateAttributeStrings("strings", strings, 2, &attr_strings));
  const KilnValue* tensors[] = {tensor};
  ExpectOk(g.CreateAttributeTensors("tensors", tensors, 1, &attr_tensors));
  KilnGraph* bodies[] = {nullptr};
  ExpectOk(g.CreateGraph("body0", &bodies[0]));
  ExpectOk(g.CreateAttributeWithOwnedGraphs("bodies", bodies, 1, &attr_graphs));
  {
    KilnAllocator* alloc = nullptr;
    ExpectOk(api().GetAllocatorWithDefaultOptions(&alloc));
    const int64_t nnz[] = {2};
    ExpectOk(api().CreateTensorAsValue(alloc, nnz, 1, KILN_ELEMENT_TYPE_FLOAT, &sparse_values));
    ExpectOk(api().CreateTensorAsValue(alloc, nnz, 1, KILN_ELEMENT_TYPE_INT64, &sparse_indices));
    void* p = nullptr;
    ExpectOk(api().GetTensorMutableData(sparse_values, &p));
    const float v[] = {1.5f, -2.0f};
    std::memcpy(p, v, sizeof v);
    ExpectOk(api().GetTensorMutableData(sparse_indices, &p));
    const int64_t at[] = {0, 5};
    std::memcpy(p, at, sizeof at);
    const int64_t dense[] = {2, 3};
    ExpectOk(g.CreateAttributeSparseTensor("sparse", sparse_values, sparse_indices, dense, 2,
                                           &attr_sparse));
    const KilnValue* values2[] = {sparse_values, sparse_values};
    const KilnValue* indices2[] = {sparse_indices, sparse_indices};
    const int64_t* dims2[] = {dense, dense};
    const size_t ranks2[] = {2, 2};
    ExpectOk(g.CreateAttributeSparseTensors("sparses", values2, indices2, dims2, ranks2, 2,
                                            &attr_sparses));
    ExpectOk(g.CreateAttributeTypeProto("type", type, &attr_type));
    const KilnTypeInfo* types2[] = {type, seq_type};
    ExpectOk(g.CreateAttributeTypeProtos("types", types2, 2, &attr_types));
  }

  if (session != nullptr) {
    ExpectOk(g.SessionGetGraph(session, KILN_GRAPH_OPTIMIZED, &view));
    ExpectOk(g.GraphGetNode(view, 0, &view_node));
  }

  ExpectOk(g.CreateModel(8, domains, versions, 1, &stale_model));
  ExpectOk(g.CreateGraph("stale", &stale_graph));
  ExpectOk(g.CreateNode("Relu", "", "stale", relu_in, 1, relu_out, 1, &stale_node));
  ExpectOk(g.CreateValueInfo("stale", nullptr, &stale_value_info));
  ExpectOk(g.CreateAttributeInt("stale", 0, &stale_attribute));
  ExpectOk(g.CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, dims, nullptr, 2, &stale_type));
}

void GraphObjects::MakeFused(KilnEnv* env) {
  if (fused_session != nullptr) return;
  const KilnGraphApi& g = graph_api();
  static const std::string model = models::ConvRelu();
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().SetSessionGraphOptimizationLevel(options, KILN_GRAPH_OPTIMIZATION_EXTENDED));
  ExpectOk(api().CreateSessionFromArray(env, model.data(), model.size(), options, &fused_session));
  api().ReleaseSessionOptions(options);
  KilnGraph* optimized = nullptr;
  ExpectOk(g.SessionGetGraph(fused_session, KILN_GRAPH_OPTIMIZED, &optimized));
  size_t count = 0;
  ExpectOk(g.GraphGetNumNodes(optimized, &count));
  for (size_t i = 0; i < count && fused_node == nullptr; ++i) {
    KilnNode* n = nullptr;
    ExpectOk(g.GraphGetNode(optimized, i, &n));
    size_t fused = 0;
    ExpectOk(g.NodeGetNumFusedFrom(n, &fused));
    if (fused > 0) fused_node = n;
  }
  EXPECT_NE(fused_node, nullptr) << "ConvRelu was not fused";
}

void GraphObjects::RemakeTextModel() {
  const KilnGraphApi& g = graph_api();
  g.ReleaseModel(text_model);
  text_graph = nullptr;
  if_node = nullptr;
  ExpectOk(g.CreateModelFromText(kIfModelText, std::strlen(kIfModelText), &text_model));
  ExpectOk(g.ModelGetGraph(text_model, &text_graph));
}

void GraphObjects::ReleaseStale() {
  const KilnGraphApi& g = graph_api();
  g.ReleaseModel(stale_model);
  g.ReleaseGraph(stale_graph);
  g.ReleaseNode(stale_node);
  g.ReleaseValueInfo(stale_value_info);
  g.ReleaseAttribute(stale_attribute);
  g.ReleaseTypeInfo(stale_type);
}

void GraphObjects::Release() {
  const KilnGraphApi& g = graph_api();
  for (KilnAttribute* a : {attr_int, attr_float, attr_string, attr_tensor, attr_graph, attr_ints,
                           attr_floats, attr_strings, attr_tensors, attr_graphs, attr_sparse,
                           attr_sparses, attr_type, attr_types}) {
    g.ReleaseAttribute(a);
  }
  api().ReleaseValue(sparse_values);
  api().ReleaseValue(sparse_indices);
  g.ReleaseNode(free_node);
  g.ReleaseValueInfo(free_value_info);
  g.ReleaseValueInfo(free_value_info2);
  g.ReleaseTypeInfo(seq_type);
  g.ReleaseTypeInfo(type);
  g.ReleaseGraph(free_graph);
  g.ReleaseGraph(free_graph2);
  g.ReleaseModel(empty_model);
  g.ReleaseModel(text_model);
  g.ReleaseModel(model);
  api().ReleaseSession(fused_session);
}

}  // namespace kiln_test
