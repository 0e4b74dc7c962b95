// Helpers the inference rules share: reading what is known of an input, numpy broadcasting with
// unknown dimensions, axis normalisation, constant integer inputs and overflow-safe dimension
// arithmetic. A dimension < 0 is unknown, a symbolic one (infer.h) named; helpers return -1 for
// an unknown result, and pass symbols through only where the result is that dimension.
//
//   std::optional<std::vector<int64_t>> out = BroadcastInputs(ctx, {{0, "A"}, {1, "B"}});
//   std::optional<std::vector<int64_t>> axes = ConstantInts(ctx, 1);
#ifndef KILN_INFER_RULE_UTIL_H_
#define KILN_INFER_RULE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "infer/infer.h"

namespace kiln::infer {

inline constexpr int64_t kUnknownDim = -1;

inline bool IsKnownDim(int64_t d) noexcept {
  return d >= 0;
}

// The dimensions of input i when its rank is known, each unknown one -1; nullopt when it is
// missing or of unknown rank.
std::optional<std::vector<int64_t>> InputDims(const InferenceContext& ctx, size_t i);

// InputDims with the symbols (infer.h) kept, for a rule that passes each dimension it takes from
// them to its outputs only where the output's dimension is that one (never one it changes by a
// size that is not known, as Pad would with an unknown one left in place).
std::optional<std::vector<int64_t>> InputNamedDims(const InferenceContext& ctx, size_t i);

// The element type of input i; kUndefined when it is missing or not known.
DataType InputType(const InferenceContext& ctx, size_t i);

// Sets output i to `dims` (nullopt: unknown rank), with every negative dimension written as -1
// except a symbol that one of the node's inputs has.
void SetOutputDims(InferenceContext& ctx, size_t i, DataType type,
                   const std::optional<std::vector<int64_t>>& dims);

// "[2,3,-1]" for messages (a symbol written as -1).
std::string DimsText(const std::vector<int64_t>& dims);

// An input as messages name it.
struct NamedInput {
  size_t index;
  std::string name;
};

// Broadcasts `dims` (input `name`) into `out` as numpy does, a -1 where the result depends on
// an unknown dimension (the symbol where it is a symbol). Fails when two known dimensions differ
// and neither is 1.
void BroadcastInto(const InferenceContext& ctx, std::vector<int64_t>& out,
                   const std::vector<int64_t>& dims, const std::string& name);

// The numpy broadcast of the inputs' shapes; nullopt when one of them has an unknown rank (the
// known ones are still checked against each other). Missing inputs are skipped. Symbols are kept.
std::optional<std::vector<int64_t>> BroadcastInputs(const InferenceContext& ctx,
                                                    std::span<const NamedInput> inputs);

// `axis` in [-rank, rank) mapped to [0, rank); nullopt when out of range.
std::optional<size_t> NormalizeAxis(int64_t axis, size_t rank) noexcept;

// NormalizeAxis, failing with "<what> <axis> is out of range for input '<input>' of rank r".
size_t RequireAxis(const InferenceContext& ctx, int64_t axis, size_t rank, const std::string& what,
                   const std::string& input);

// The values of input i when it is a known int32 or int64 constant; nullopt otherwise.
std::optional<std::vector<int64_t>> ConstantInts(const InferenceContext& ctx, size_t i);

// The contents of input i as dimensions, each a value or a symbol: its dims_value, or its values
// when it is a known int32 or int64 constant of rank 0 or 1 (and none of them reads as a symbol);
// nullopt otherwise.
std::optional<std::vector<int64_t>> InputDimsValue(const InferenceContext& ctx, size_t i);

// The single value of input i when it is a known int32 or int64 constant of one element.
std::optional<int64_t> ConstantScalarInt(const InferenceContext& ctx, size_t i);

// a * b of dimensions: 0 when either is 0, -1 when either is unknown or the product overflows.
int64_t MulDims(int64_t a, int64_t b) noexcept;

// a + b of dimensions: -1 when either is unknown or the sum overflows.
int64_t AddDims(int64_t a, int64_t b) noexcept;

// Product of dims[begin, end) with MulDims.
int64_t ProductOfDims(const std::vector<int64_t>& dims, size_t begin, size_t end) noexcept;

// Whether the graph leaves optional input i out (or the node has fewer inputs).
inline bool IsMissing(const InferenceContext& ctx, size_t i) noexcept {
  return ctx.Input(i) == nullptr;
}

}  // namespace kiln::infer

#endif  // KILN_INFER_RULE_UTIL_H_
