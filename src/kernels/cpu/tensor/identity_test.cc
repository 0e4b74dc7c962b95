#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace kiln::testing {
namespace {

TEST(TensorIdentity, CopiesValuesTypeAndShape) {
  auto out = NodeTest("Identity", 16).Input<int64_t>({2, 2}, {1, 2, 3, 4}).Run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(TensorIdentity, CopiesStrings) {
  auto out = NodeTest("Identity", 1).Input<std::string>({2}, {"a", "bc"}).Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"a", "bc"}));
}

TEST(TensorDropout, InferenceCopiesAndMaskIsBoolTrue) {
  auto out = NodeTest("Dropout", 13)
                 .Input<float>({3}, {1, -2, 3})
                 .Input<float>({}, {0.5f})
                 .Input<bool>({}, {false})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(Values<bool>(*out[1]), (std::vector<bool>{true, true, true}));
}

TEST(TensorDropout, Opset7MaskHasInputType) {
  auto out = NodeTest("Dropout", 7).Attr("ratio", 0.3f).Input<double>({2}, {4, 5}).Outputs(2).Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{4, 5}));
  EXPECT_EQ(Values<double>(*out[1]), (std::vector<double>{1, 1}));
}

TEST(TensorDropout, Opset10MaskIsBool) {
  auto out = NodeTest("Dropout", 10).Input<float>({1}, {4}).Outputs(2).Run();
  EXPECT_EQ(out[1]->type(), DataType::kBool);
}

TEST(TensorDropout, Opset1IgnoresIsTestAndConsumedInputs) {
  auto out = NodeTest("Dropout", 1)
                 .Attr("is_test", int64_t{0})
                 .Attr("consumed_inputs", std::vector<int64_t>{0})
                 .Input<float>({2}, {1, 2})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 2}));
}

TEST(TensorDropout, MaskLeftOut) {
  auto out = NodeTest("Dropout", 22).Input<float>({1}, {4}).Outputs(2, {1}).Run();
  EXPECT_EQ(out[1], nullptr);
}

TEST(TensorDropout, TrainingModeIsNotImplemented) {
  ExpectError(NodeTest("Dropout", 12).Input<float>({1}, {4}).MissingInput().Input<bool>({}, {true}),
              ErrorCode::kNotImplemented, "training mode");
}

TEST(TensorDropout, TrainingModeMustBeBool) {
  ExpectError(NodeTest("Dropout", 12).Input<float>({1}, {4}).MissingInput().Input<int64_t>({}, {0}),
              ErrorCode::kInvalidArgument, "training_mode");
}

}  // namespace
}  // namespace kiln::testing
