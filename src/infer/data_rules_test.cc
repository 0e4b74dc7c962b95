// Inference rules of Unique, ReverseSequence and the training optimizers.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;

TEST(InferUnique, FlattenedAndAlongAxis) {
  auto flat = RuleTest("Unique", 11).Input(kF, {2, 3}).Outputs(4).Run();
  EXPECT_EQ(flat[0].type, kF);
  EXPECT_EQ(Dims(flat[0]), (V{-1}));
  EXPECT_EQ(Dims(flat[2]), (V{6}));
  EXPECT_EQ(flat[3].type, kI64);
  auto axis = RuleTest("Unique", 11).Attr("axis", int64_t{-1}).Input(kF, {2, 3}).Outputs(4).Run();
  EXPECT_EQ(Dims(axis[0]), (V{2, -1}));
  EXPECT_EQ(Dims(axis[2]), (V{3}));
  EXPECT_THROW(RuleTest("Unique", 11).Attr("axis", int64_t{2}).Input(kF, {2, 3}).Run(), Error);
  EXPECT_EQ(Dims(RuleTest("Unique", 11).UnknownRankInput(kF).Outputs(4).Run()[2]), (V{-1}));
}

TEST(InferMl, BinarizerArrayFeatureExtractorLabelEncoderTreeEnsemble) {
  const std::string ml = "ai.onnx.ml";
  auto bin = RuleTest("Binarizer", 1, ml).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(bin[0]), (V{2, 3}));
  EXPECT_EQ(bin[0].type, kF);
  auto afe = RuleTest("ArrayFeatureExtractor", 1, ml).Input(kF, {2, 5}).Input(kI64, {3}).Run();
  EXPECT_EQ(Dims(afe[0]), (V{2, 3}));
  auto afe1 = RuleTest("ArrayFeatureExtractor", 1, ml).Input(kF, {5}).Input(kI64, {2}).Run();
  EXPECT_EQ(Dims(afe1[0]), (V{1, 2}));
  auto le = RuleTest("LabelEncoder", 2, ml)
                .Attr("keys_int64s", std::vector<int64_t>{1})
                .Attr("values_floats", std::vector<float>{0.5f})
                .Input(kI64, {4})
                .Run();
  EXPECT_EQ(le[0].type, kF);
  EXPECT_EQ(Dims(le[0]), (V{4}));
  auto tree = RuleTest("TreeEnsemble", 5, ml).Attr("n_targets", int64_t{2}).Input(kF, {3, 4}).Run();
  EXPECT_EQ(Dims(tree[0]), (V{3, 2}));
}

TEST(InferReverseSequence, KeepsTheInput) {
  auto out = RuleTest("ReverseSequence", 10).Input(kF, {4, 2, 3}).Input(kI64, {2}).Run();
  EXPECT_EQ(Dims(out[0]), (V{4, 2, 3}));
  EXPECT_EQ(out[0].type, kF);
}

TEST(InferOptimizers, OutputsMirrorTheOptimizedTensors) {
  auto out = RuleTest("Adam", 1, "ai.onnx.preview.training")
                 .Input(kF, {})
                 .Input(kI64, {})
                 .Input(kF, {2})
                 .Input(kF, {3, 1})
                 .Input(kF, {2})
                 .Input(kF, {3, 1})
                 .Input(kF, {2})
                 .Input(kF, {3, 1})
                 .Input(kF, {2})
                 .Input(kF, {3, 1})
                 .Outputs(6)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2}));
  EXPECT_EQ(Dims(out[3]), (V{3, 1}));
  EXPECT_EQ(Dims(out[4]), (V{2}));
  // A node whose input count does not fit its outputs is left to the kernel's error.
  auto odd = RuleTest("Momentum", 1, "ai.onnx.preview.training")
                 .Input(kF, {})
                 .Input(kI64, {})
                 .Input(kF, {2})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(odd[0].type, DataType::kUndefined);
}

TEST(InferStringOps, ShapesAndTypes) {
  constexpr DataType kS = DataType::kString;
  EXPECT_EQ(Dims(RuleTest("StringNormalizer", 10).Input(kS, {1, 4}).Run()[0]), (V{1, -1}));
  auto concat = RuleTest("StringConcat", 20).Input(kS, {2, 1}).Input(kS, {3}).Run();
  EXPECT_EQ(Dims(concat[0]), (V{2, 3}));
  EXPECT_THROW(RuleTest("StringConcat", 20).Input(kS, {2}).Input(kS, {3}).Run(), Error);
  auto split = RuleTest("StringSplit", 20).Input(kS, {2, 2}).Outputs(2).Run();
  EXPECT_EQ(Dims(split[0]), (V{2, 2, -1}));
  EXPECT_EQ(Dims(split[1]), (V{2, 2}));
  EXPECT_EQ(split[1].type, kI64);
  auto regex = RuleTest("RegexFullMatch", 20).Input(kS, {2, 0}).Run();
  EXPECT_EQ(regex[0].type, DataType::kBool);
  EXPECT_EQ(Dims(regex[0]), (V{2, 0}));
  auto tfidf = RuleTest("TfIdfVectorizer", 9)
                   .Attr("ngram_indexes", V{0, 4, 2})
                   .Input(DataType::kInt32, {3, 6})
                   .Run();
  EXPECT_EQ(Dims(tfidf[0]), (V{3, 5}));
  EXPECT_EQ(tfidf[0].type, kF);
}

TEST(InferBernoulli, InputShapeAndDtype) {
  auto same = RuleTest("Bernoulli", 15).Input(kF, {2, 3}).Run();
  EXPECT_EQ(same[0].type, kF);
  EXPECT_EQ(Dims(same[0]), (V{2, 3}));
  auto ints = RuleTest("Bernoulli", 15).Attr("dtype", int64_t{7}).Input(kF, {4}).Run();
  EXPECT_EQ(ints[0].type, kI64);
}

}  // namespace
}  // namespace kiln::infer::testing
