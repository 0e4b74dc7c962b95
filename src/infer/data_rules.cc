// Rules for the data-dependent tensor ops and the training optimizers, as kernels/cpu/tensor/
// unique.cc, compress_reverse.cc and kernels/cpu/training/optimizers.cc compute their outputs:
//   Unique (Y: rank 1 of unknown length, or the input's shape with the axis unknown; indices and
//   counts [unknown]; inverse_indices [element count or axis length]), ReverseSequence (the
//   input's shape and type), Adagrad/Adam/Momentum (each output group mirrors X1..Xn), and the
//   string ops of kernels/cpu/text/: StringNormalizer (rank kept, length unknown), StringConcat
//   (broadcast), StringSplit (the input's shape plus an unknown last dimension; int64 counts of
//   the input's shape), RegexFullMatch (bool of the input's shape), TfIdfVectorizer (float
//   [max(ngram_indexes) + 1], after the batch dimension of a 2-D input), Bernoulli (like its
//   input, of type `dtype` when given), and kernels/cpu/ml/'s Binarizer (like its input),
//   ArrayFeatureExtractor, LabelEncoder (the values' type) and TreeEnsemble ([N, n_targets]).
#include <algorithm>
#include <optional>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

void Unique(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const bool has_axis = ctx.info().HasAttribute("axis");
  int64_t slices = kUnknownDim;
  std::optional<std::vector<int64_t>> y = std::vector<int64_t>{kUnknownDim};
  if (has_axis) {
    y = x;
    if (x) {
      const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", 0), x->size(), "axis", "X");
      slices = (*x)[axis];
      (*y)[axis] = kUnknownDim;
    }
  } else if (x) {
    slices = ProductOfDims(*x, 0, x->size());
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), y);
  SetOutputDims(ctx, 1, DataType::kInt64, std::vector<int64_t>{kUnknownDim});
  SetOutputDims(ctx, 2, DataType::kInt64, std::vector<int64_t>{slices});
  SetOutputDims(ctx, 3, DataType::kInt64, std::vector<int64_t>{kUnknownDim});
}

void SameAsInput(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputDims(ctx, 0));
}

// ai.onnx.ml ArrayFeatureExtractor: X's shape with the last axis replaced by Y's element count
// ([1, count] for a 1-D X).
void ArrayFeatureExtractor(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> y = InputDims(ctx, 1);
  if (x && y && !x->empty()) {
    const int64_t count = ProductOfDims(*y, 0, y->size());
    if (x->size() == 1) x->insert(x->begin(), 1);
    x->back() = count;
  } else {
    x.reset();
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

// ai.onnx.ml LabelEncoder: the input's shape, of the type of the values attribute or tensor.
void LabelEncoder(InferenceContext& ctx) {
  DataType type = DataType::kUndefined;
  const KernelInfo& info = ctx.info();
  if (info.HasAttribute("values_strings")) type = DataType::kString;
  if (info.HasAttribute("values_int64s")) type = DataType::kInt64;
  if (info.HasAttribute("values_floats")) type = DataType::kFloat;
  if (info.opset() >= 4 && info.HasAttribute("values_tensor")) {
    type = info.GetTensor("values_tensor")->type();
  }
  if (type == DataType::kUndefined) return;
  SetOutputDims(ctx, 0, type, InputDims(ctx, 0));
}

// ai.onnx.ml TreeEnsemble: [N, n_targets] of X's type.
void TreeEnsemble(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const int64_t targets = ctx.info().GetInt("n_targets", kUnknownDim);
  std::optional<std::vector<int64_t>> y;
  if (x && x->size() == 2) y = std::vector<int64_t>{(*x)[0], targets >= 1 ? targets : kUnknownDim};
  SetOutputDims(ctx, 0, InputType(ctx, 0), y);
}

// Inputs R, T, X1..Xn and the state groups; outputs: `groups` groups of n, each like X1..Xn.
template <size_t kGroups>
void Optimizer(InferenceContext& ctx) {
  const size_t n = ctx.output_count() / kGroups;
  if (n == 0 || ctx.input_count() != 2 + (kGroups + 1) * n) return;
  for (size_t g = 0; g < kGroups; ++g) {
    for (size_t i = 0; i < n; ++i) {
      SetOutputDims(ctx, g * n + i, InputType(ctx, 2 + i), InputDims(ctx, 2 + i));
    }
  }
}

void StringNormalizer(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (x && !x->empty()) x->back() = kUnknownDim;
  SetOutputDims(ctx, 0, DataType::kString, x);
}

void StringConcat(InferenceContext& ctx) {
  const NamedInput inputs[] = {{0, "X"}, {1, "Y"}};
  SetOutputDims(ctx, 0, DataType::kString, BroadcastInputs(ctx, inputs));
}

void StringSplit(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  SetOutputDims(ctx, 1, DataType::kInt64, x);
  if (x) x->push_back(kUnknownDim);
  SetOutputDims(ctx, 0, DataType::kString, x);
}

void RegexFullMatch(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kBool, InputDims(ctx, 0));
}

void TfIdfVectorizer(InferenceContext& ctx) {
  int64_t columns = 0;
  for (int64_t i : ctx.info().GetInts("ngram_indexes")) columns = std::max(columns, i + 1);
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  std::optional<std::vector<int64_t>> y;
  if (x && x->size() == 1) y = std::vector<int64_t>{columns};
  if (x && x->size() == 2) y = std::vector<int64_t>{(*x)[0], columns};
  SetOutputDims(ctx, 0, DataType::kFloat, y);
}

// Bernoulli: the input's shape; `dtype` when given, else the input's type.
void Bernoulli(InferenceContext& ctx) {
  DataType type = InputType(ctx, 0);
  if (ctx.info().HasAttribute("dtype")) {
    const int64_t dtype = ctx.info().GetInt("dtype", 0);
    type = IsKnownDataType(static_cast<int32_t>(dtype)) ? static_cast<DataType>(dtype)
                                                        : DataType::kUndefined;
  }
  SetOutputDims(ctx, 0, type, InputDims(ctx, 0));
}

constexpr const char* kTraining = "ai.onnx.preview.training";
constexpr const char* kMl = "ai.onnx.ml";

constexpr RuleDef kRules[] = {
    {"Unique", Unique},
    {"ReverseSequence", SameAsInput},
    {"Adagrad", Optimizer<2>, kTraining},
    {"Adam", Optimizer<3>, kTraining},
    {"Momentum", Optimizer<2>, kTraining},
    {"StringNormalizer", StringNormalizer},
    {"StringConcat", StringConcat},
    {"StringSplit", StringSplit},
    {"RegexFullMatch", RegexFullMatch},
    {"TfIdfVectorizer", TfIdfVectorizer},
    {"Bernoulli", Bernoulli},
    {"Binarizer", SameAsInput, kMl},
    {"ArrayFeatureExtractor", ArrayFeatureExtractor, kMl},
    {"LabelEncoder", LabelEncoder, kMl},
    {"TreeEnsemble", TreeEnsemble, kMl},
};

}  // namespace

std::span<const RuleDef> DataRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
