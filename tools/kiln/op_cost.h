// The arithmetic of the nodes a session runs, for the profile's GFLOP/s: convolutions, matrix
// products (the ONNX ops and Kiln's fused and quantized forms of them) and attention, from the
// shapes of the session's optimized graph (the graph API's KILN_GRAPH_OPTIMIZED view: inferred
// types, symbolic dimensions given values by the inputs fed).
//
//   std::map<std::string, int64_t> dims = FedDimensions(session, in);   // {"batch": 8}
//   std::map<std::string, NodeCost> nodes = NodeCosts(session, dims);
//   nodes["conv1"].flops;  // 2 x multiply-adds of one run, when every dimension is known
#ifndef KILN_TOOLS_KILN_OP_COST_H_
#define KILN_TOOLS_KILN_OP_COST_H_

#include <kiln/kiln_cxx_api.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inputs.h"

namespace kiln::cli {

// A value's shape: its dimensions (-1 where not known), or nothing when its rank is not known.
using MaybeShape = std::optional<std::vector<int64_t>>;

// What Flops needs of a node.
struct OpShapes {
  std::string op_type;  // without its domain
  std::vector<MaybeShape> inputs;
  std::vector<MaybeShape> outputs;
  std::map<std::string, int64_t> ints;  // the INT attributes that matter (transA, expand, ...)
};

// Whether Flops counts the op: Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv,
// FusedConv, NhwcConv, NhwcQLinearConv; MatMul, FusedMatMul, MatMulInteger, QLinearMatMul,
// MatMulIntegerToFloat, DynamicQuantizeMatMul, MatMulNBits, BlockedMatMul; Gemm, QGemm;
// MultiHeadAttention (com.microsoft, which Kiln's attention fusion makes of the products).
bool CountsFlops(const std::string& op_type);

// Two operations (a multiply and an add) per multiply-add of one run of the node:
//   convolutions  2 · |Y| · |W| / M    (|W| / M = C/group · kernel size; W [M, C/group, k...])
//                 plus, for NhwcConv's fused 1×1 expansion (expand = 1), 2 · |X| · M_expand
//   ConvTranspose 2 · |X| · |W| / C    (W [C, M/group, k...])
//   products      2 · |Y| · K          (K: A's last dimension, or the one before it when
//                                       transposed by transA)
//   attention     2·B·S·L·D + 2·B·S·L·Dv  (MultiHeadAttention's Q·Kᵀ and softmax·V: query
//                                       [B, S, D], key [B, L, D], value [B, L, Dv]; the
//                                       number of heads does not change it; not the packed
//                                       forms)
// Bias additions, activations and attention's softmax are not counted. Empty for an op CountsFlops
// does not count, or when a dimension it needs is not known.
std::optional<double> Flops(const OpShapes& op);

// A node of the optimized graph as the profile shows it.
struct NodeCost {
  std::string op_type;          // "Conv"; "ai.kiln.NhwcConv" outside the default domain
  bool counted = false;         // CountsFlops
  std::optional<double> flops;  // Flops, when counted and known
};

// Every node of the session's optimized graph and of its subgraphs, by node name (the first of
// a name wins; unnamed nodes are left out). `dims` gives values to symbolic dimensions. Throws
// Error when the graph API fails.
std::map<std::string, NodeCost> NodeCosts(const kiln::Session& session,
                                          const std::map<std::string, int64_t>& dims);

// The values of the symbolic dimensions the model's tensor inputs name, as the fed tensors have
// them (a name given two values keeps the first).
std::map<std::string, int64_t> FedDimensions(const kiln::Session& session, const Inputs& in);

// Whether a counted node's FLOPs are not known.
bool SomeFlopsUnknown(const std::map<std::string, NodeCost>& nodes);

// Fills the FLOPs `nodes` leaves unknown from `fixed`, a session of the same model made with its
// symbolic dimensions fixed to the sizes fed (AddFreeDimensionOverrideByName), whose inference
// then knows the shapes that symbolic names do not carry through: for each node of the same name
// and op type there. Returns how many were filled.
int FillFlopsFrom(const kiln::Session& fixed, std::map<std::string, NodeCost>& nodes);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_OP_COST_H_
