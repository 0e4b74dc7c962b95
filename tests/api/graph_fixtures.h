// The graph API's share of the common ground of the table-driven tests (fixtures.h): objects of
// every graph handle type, owned, borrowed and released, and sentinel-filled out-parameters of
// the graph entries' types.
//
//   const KilnGraphApi& g = graph_api();
//   ExpectOk(g.GraphGetNumNodes(b.g.graph, &o.size));
#ifndef KILN_TESTS_API_GRAPH_FIXTURES_H_
#define KILN_TESTS_API_GRAPH_FIXTURES_H_

#include <cstdint>

#include "api_test_util.h"

namespace kiln_test {

inline const KilnGraphApi& graph_api() {
  static const KilnGraphApi* const kGraphApi = api().GetGraphApi(KILN_GRAPH_API_VERSION);
  return *kGraphApi;
}

// c: bool [], x: float [2]; y = If(c), whose branches read x from the main graph
// (so x is the node's implicit input): then_branch gives Identity(x), else_branch Neg(x).
// (The node has no name: the text gives none.)
inline constexpr const char kIfModelText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y)
{
  y = If <then_branch = then_g () => (float[2] t)
    {
      t = Identity (x)
    }, else_branch = else_g () => (float[2] e)
    {
      e = Neg (x)
    }> (c)
}
)";

// A print callback that drops the text.
inline void KILN_API_CALL DiscardText(const char*, size_t, void*) {}

// Graph API objects of every kind. Make() builds them; Release() releases the caller's, children
// first (a handle an `…Owned…` entry took meanwhile is only logged as borrowed, and goes with its
// new owner).
struct GraphObjects {
  // Built with the graph API (IR 8, opset 17): x: float [N, 3] (`type`), w: the tensor given to
  // Make() (an initializer), y = Add(x, w) (node "add"), y the output, with no declared type.
  KilnModel* model = nullptr;
  KilnGraph* graph = nullptr;                 // model's main graph, "main" (borrowed)
  KilnNode* node = nullptr;                   // "add" (borrowed)
  KilnValueInfo* input = nullptr;             // x (borrowed; read by "add")
  KilnValueInfo* output = nullptr;            // y (borrowed; produced by "add")
  KilnValueInfo* weight = nullptr;            // w (borrowed; an initializer)
  KilnModel* empty_model = nullptr;           // IR 8, opset 17, no graph yet
  KilnModel* text_model = nullptr;            // kIfModelText
  KilnGraph* text_graph = nullptr;            // its main graph (borrowed)
  KilnNode* if_node = nullptr;                // its If node (borrowed; one implicit input, x)
  KilnGraph* free_graph = nullptr;            // "free": empty, the caller's
  KilnGraph* free_graph2 = nullptr;           // "free2": empty, the caller's
  KilnNode* free_node = nullptr;              // z = Relu(y), node "relu", the caller's
  KilnValueInfo* free_value_info = nullptr;   // "v" of `type`, the caller's
  KilnValueInfo* free_value_info2 = nullptr;  // "y", no type, the caller's
  KilnTypeInfo* type = nullptr;               // tensor(float) [N, 3], dimension 0 named "N"
  KilnTypeInfo* seq_type = nullptr;           // seq(tensor(float) [N, 3])
  // The caller's attributes, one of each type: "i" = 7, "f" = 0.5, "s" = "a\0b" (3 bytes),
  // "t" = the tensor, "body" = an empty graph, "ints" = [1, 2], "floats" = [0.5, 1.5],
  // "strings" = ["p", "q"], "tensors" = [the tensor], "bodies" = [an empty graph].
  KilnAttribute* attr_int = nullptr;
  KilnAttribute* attr_float = nullptr;
  KilnAttribute* attr_string = nullptr;
  KilnAttribute* attr_tensor = nullptr;
  KilnAttribute* attr_graph = nullptr;
  KilnAttribute* attr_ints = nullptr;
  KilnAttribute* attr_floats = nullptr;
  KilnAttribute* attr_strings = nullptr;
  KilnAttribute* attr_tensors = nullptr;
  KilnAttribute* attr_graphs = nullptr;
  // A sparse tensor's parts (float [2] values, int64 [2] offsets {0, 5}; dense shape [2, 3]) and
  // "sparse" = that sparse tensor, "sparses" = [it, it], "type" = `type`, "types" = [type,
  // seq_type], the caller's.
  KilnValue* sparse_values = nullptr;
  KilnValue* sparse_indices = nullptr;
  KilnAttribute* attr_sparse = nullptr;
  KilnAttribute* attr_sparses = nullptr;
  KilnAttribute* attr_type = nullptr;
  KilnAttribute* attr_types = nullptr;
  // Set by no Make: for a test to park a borrowed handle it fetched (released with its parent).
  KilnValueInfo* parked_value = nullptr;
  KilnAttribute* parked_attribute = nullptr;
  // The optimized view of the session given to Make() (borrowed from it) and its first node.
  KilnGraph* view = nullptr;
  KilnNode* view_node = nullptr;
  // Made by MakeFused() only: a session of models::ConvRelu() at the extended level, and its
  // fused node (one the optimizer made of "conv" and "relu"; borrowed).
  KilnSession* fused_session = nullptr;
  KilnNode* fused_node = nullptr;
  // Made and not yet released by Make(); ReleaseStale() releases them.
  KilnModel* stale_model = nullptr;
  KilnGraph* stale_graph = nullptr;
  KilnNode* stale_node = nullptr;
  KilnValueInfo* stale_value_info = nullptr;
  KilnAttribute* stale_attribute = nullptr;
  KilnTypeInfo* stale_type = nullptr;

  // `tensor`: a float [2, 3] tensor; `session`: one whose optimized view has a node.
  void Make(KilnValue* tensor, KilnSession* session);
  void MakeFused(KilnEnv* env);
  // Replaces text_model with a new one of which no handle was asked for yet but its main graph's
  // (text_graph); if_node is left NULL.
  void RemakeTextModel();
  void ReleaseStale();
  void Release();
};

// Out-parameters of the graph entries' types, pre-filled with sentinels.
struct GraphOuts {
  KilnModel* model = Sentinel<KilnModel>();
  KilnGraph* graph = Sentinel<KilnGraph>();
  KilnNode* node = Sentinel<KilnNode>();
  KilnValueInfo* value_info = Sentinel<KilnValueInfo>();
  KilnAttribute* attribute = Sentinel<KilnAttribute>();
  KilnTypeInfo* type = Sentinel<KilnTypeInfo>();
  const KilnTypeInfo* const_type = Sentinel<const KilnTypeInfo>();
  const void* data = Sentinel<const void>();
  KilnStringRef ref = {Sentinel<const char>(), kSizeSentinel};
  // Valid enum values the calls would never produce for the fixture objects.
  KilnTypeKind kind = KILN_TYPE_SPARSE_TENSOR;
  KilnAttributeType attribute_type = KILN_ATTRIBUTE_TYPE_PROTOS;
  size_t index = kSizeSentinel;  // a second count: an output or input index
  const KilnValue* value2 = Sentinel<const KilnValue>();  // a sparse tensor's indices
  const int64_t* dims = Sentinel<const int64_t>();
  size_t rank = kSizeSentinel;

  bool Untouched() const {
    const GraphOuts fresh;
    return model == fresh.model && graph == fresh.graph && node == fresh.node &&
           value_info == fresh.value_info && attribute == fresh.attribute && type == fresh.type &&
           const_type == fresh.const_type && data == fresh.data && ref.data == fresh.ref.data &&
           ref.length == fresh.ref.length && kind == fresh.kind &&
           attribute_type == fresh.attribute_type && index == fresh.index &&
           value2 == fresh.value2 && dims == fresh.dims && rank == fresh.rank;
  }
};

}  // namespace kiln_test

#endif  // KILN_TESTS_API_GRAPH_FIXTURES_H_
