#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
using I64 = std::vector<int64_t>;
using S = std::vector<std::string>;
constexpr const char* kMl = "ai.onnx.ml";

TEST(MlBinarizer, Threshold) {
  auto out = NodeTest("Binarizer", 1, kMl)
                 .Attr("threshold", 1.0f)
                 .Input<float>({4}, {0.5f, 1.0f, 1.5f, -2.0f})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{0, 0, 1, 0}));
  auto ints = NodeTest("Binarizer", 1, kMl).Input<int64_t>({2}, {-1, 3}).Run();
  EXPECT_EQ(Values<int64_t>(*ints[0]), (I64{0, 1}));
  ExpectNodeError(NodeTest("Binarizer", 1, kMl).Input<std::string>({1}, {"a"}),
                  ErrorCode::kNotImplemented, "string");
}

TEST(MlArrayFeatureExtractor, PicksLastAxis) {
  auto out = NodeTest("ArrayFeatureExtractor", 1, kMl)
                 .Input<float>({2, 3}, {0, 1, 2, 3, 4, 5})
                 .Input<int64_t>({2}, {2, 0})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*out[0]), (F{2, 0, 5, 3}));
  auto flat = NodeTest("ArrayFeatureExtractor", 1, kMl)
                  .Input<std::string>({3}, {"a", "b", "c"})
                  .Input<int64_t>({1}, {1})
                  .Run();
  EXPECT_EQ(flat[0]->shape(), Shape({1, 1}));
  EXPECT_EQ(Values<std::string>(*flat[0]), (S{"b"}));
  ExpectNodeError(
      NodeTest("ArrayFeatureExtractor", 1, kMl).Input<float>({2}, {1, 2}).Input<int64_t>({1}, {2}),
      ErrorCode::kInvalidArgument, "'Y' entry 0 is 2");
  ExpectNodeError(
      NodeTest("ArrayFeatureExtractor", 1, kMl).Input<float>({2}, {1, 2}).Input<int32_t>({1}, {0}),
      ErrorCode::kInvalidArgument, "'Y' must be int64");
  ExpectNodeError(
      NodeTest("ArrayFeatureExtractor", 1, kMl).Input<float>({}, {1}).Input<int64_t>({1}, {0}),
      ErrorCode::kInvalidArgument, "'X'");
}

TEST(MlLabelEncoder, ListsTensorsAndDefaults) {
  auto s2i = NodeTest("LabelEncoder", 2, kMl)
                 .Attr("keys_strings", S{"a", "b"})
                 .Attr("values_int64s", I64{7, 8})
                 .Input<std::string>({3}, {"b", "z", "a"})
                 .Run();
  EXPECT_EQ(Values<int64_t>(*s2i[0]), (I64{8, -1, 7}));
  auto f2s = NodeTest("LabelEncoder", 2, kMl)
                 .Attr("keys_floats", F{1.5f, NAN})
                 .Attr("values_strings", S{"x", "nan"})
                 .Input<float>({3}, {NAN, 1.5f, 2.0f})
                 .Run();
  EXPECT_EQ(Values<std::string>(*f2s[0]), (S{"nan", "x", "_Unused"}));
  auto tensor = NodeTest("LabelEncoder", 4, kMl)
                    .Attr("keys_tensor", MakeTensor<int32_t>({2}, {3, 4}))
                    .Attr("values_tensor", MakeTensor<int16_t>({2}, {30, 40}))
                    .Attr("default_tensor", MakeTensor<int16_t>({1}, {-5}))
                    .Input<int32_t>({3}, {4, 9, 3})
                    .Run();
  EXPECT_EQ(Values<int16_t>(*tensor[0]), (std::vector<int16_t>{40, -5, 30}));
}

TEST(MlLabelEncoder, Errors) {
  ExpectNodeError(NodeTest("LabelEncoder", 2, kMl).Attr("values_int64s", I64{1}),
                  ErrorCode::kInvalidGraph, "'keys_strings'");
  ExpectNodeError(NodeTest("LabelEncoder", 2, kMl)
                      .Attr("keys_strings", S{"a"})
                      .Attr("values_int64s", I64{1, 2}),
                  ErrorCode::kInvalidGraph, "entries");
  ExpectNodeError(NodeTest("LabelEncoder", 4, kMl)
                      .Attr("keys_strings", S{"a"})
                      .Attr("values_int64s", I64{1})
                      .Attr("default_tensor", MakeTensor<float>({1}, {1})),
                  ErrorCode::kInvalidGraph, "'default_tensor'");
  ExpectNodeError(NodeTest("LabelEncoder", 2, kMl)
                      .Attr("keys_strings", S{"a"})
                      .Attr("values_int64s", I64{1})
                      .Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "'X'");
}

// Node 0: x0 <= 1 ? node 1 : leaf 2; node 1: x1 in {5, 6} ? leaf 0 : leaf 1.
NodeTest Tree(int64_t aggregate, int64_t post, I64 true_ids = {1, 0}, I64 leaf_targets = {0, 1, 1},
              I64 roots = {0}, const std::vector<uint8_t>& modes = {0, 6}) {
  NodeTest t("TreeEnsemble", 5, kMl);
  t.Attr("aggregate_function", aggregate)
      .Attr("post_transform", post)
      .Attr("n_targets", int64_t{2})
      .Attr("tree_roots", std::move(roots))
      .Attr("nodes_featureids", I64{0, 1})
      .Attr("nodes_modes", MakeTensor<uint8_t>({2}, modes))
      .Attr("nodes_splits", MakeTensor<double>({2}, {1.0, 0.0}))
      .Attr("nodes_truenodeids", std::move(true_ids))
      .Attr("nodes_trueleafs", I64{0, 1})
      .Attr("nodes_falsenodeids", I64{2, 1})
      .Attr("nodes_falseleafs", I64{1, 1})
      .Attr("membership_values", MakeTensor<double>({3}, {5, 6, NAN}))
      .Attr("leaf_targetids", std::move(leaf_targets))
      .Attr("leaf_weights", MakeTensor<double>({3}, {1.5, 2.5, -1.0}));
  return t;
}

TEST(MlTreeEnsemble, WalksTreesAndTransforms) {
  auto out = Tree(1, 0).Input<float>({3, 2}, {0, 5, 0, 7, 2, 5}).Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{1.5f, 0, 0, 2.5f, 0, -1.0f}));
  auto logistic = Tree(1, 3).Input<double>({1, 2}, {0, 6}).Run();
  EXPECT_DOUBLE_EQ(Values<double>(*logistic[0])[0], 1 / (1 + std::exp(-1.5)));
  EXPECT_DOUBLE_EQ(Values<double>(*logistic[0])[1], 0.5);
  auto softmax = Tree(1, 1).Input<double>({1, 2}, {0, 6}).Run();
  EXPECT_NEAR(Values<double>(*softmax[0])[0], std::exp(1.5) / (std::exp(1.5) + 1), 1e-12);
}

TEST(MlTreeEnsemble, Errors) {
  ExpectNodeError(Tree(4, 0), ErrorCode::kInvalidGraph, "'aggregate_function'");
  ExpectNodeError(Tree(1, 4), ErrorCode::kNotImplemented, "'post_transform'");
  ExpectNodeError(Tree(1, 0, {0, 0}), ErrorCode::kInvalidGraph, "'nodes_truenodeids' entry 0");
  ExpectNodeError(Tree(1, 0, {1, 0}, {0, 1, 2}), ErrorCode::kInvalidGraph, "'leaf_targetids'");
  ExpectNodeError(Tree(1, 0, {1, 0}, {0, 1, 1}, {3}), ErrorCode::kInvalidGraph, "'tree_roots'");
  ExpectNodeError(Tree(1, 0, {1, 0}, {0, 1, 1}, {0}, {0, 9}), ErrorCode::kInvalidGraph,
                  "'nodes_modes'");
  ExpectNodeError(Tree(1, 0).Input<float>({2, 1}, {1, 2}), ErrorCode::kInvalidArgument, "'X'");
}

}  // namespace
}  // namespace kiln::testing
