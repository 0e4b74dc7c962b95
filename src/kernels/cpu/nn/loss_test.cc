// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against losses computed here from their
// definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectNear;
using nn_test::Pattern;

// Input [2, 3, 2] (N, C, d1), targets [2, 2] with one ignored (-1), weights per class.
std::vector<int64_t> Targets() {
  return {0, 2, -1, 1};
}
std::vector<float> Weights() {
  return {0.5f, 1.0f, 2.0f};
}

// -x[n, t, d] * w[t] per (n, d), 0 where ignored; `logp` the [2, 3, 2] values.
std::vector<float> NllReference(const std::vector<float>& logp, bool weighted, float* weight_sum) {
  std::vector<float> losses;
  *weight_sum = 0;
  for (size_t n = 0; n < 2; ++n) {
    for (size_t d = 0; d < 2; ++d) {
      const int64_t t = Targets()[n * 2 + d];
      if (t == -1) {
        losses.push_back(0);
        continue;
      }
      const float w = weighted ? Weights()[static_cast<size_t>(t)] : 1.0f;
      losses.push_back(-logp[(n * 3 + static_cast<size_t>(t)) * 2 + d] * w);
      *weight_sum += w;
    }
  }
  return losses;
}

NodeTest Nll(const char* reduction, bool weighted) {
  NodeTest t("NegativeLogLikelihoodLoss", 13);
  t.Attr("reduction", reduction)
      .Attr("ignore_index", int64_t{-1})
      .Input<float>({2, 3, 2}, Pattern(12))
      .Input<int64_t>({2, 2}, Targets());
  if (weighted) t.Input<float>({3}, Weights());
  return t;
}

TEST(NnNegativeLogLikelihoodLoss, ReductionsWeightsAndIgnoreIndex) {
  float weight_sum = 0;
  const std::vector<float> none = NllReference(Pattern(12), true, &weight_sum);
  auto out = Nll("none", true).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  ExpectNear(Values<float>(*out[0]), none, 1e-6);
  float sum = 0;
  for (float v : none) sum += v;
  ExpectNear(Values<float>(*Nll("sum", true).Run()[0]), {sum}, 1e-5);
  ExpectNear(Values<float>(*Nll("mean", true).Run()[0]), {sum / weight_sum}, 1e-5);
  const std::vector<float> plain = NllReference(Pattern(12), false, &weight_sum);
  float plain_sum = 0;
  for (float v : plain) plain_sum += v;
  auto mean = Nll("mean", false).Run();
  EXPECT_EQ(mean[0]->shape(), Shape(std::vector<int64_t>{}));
  ExpectNear(Values<float>(*mean[0]), {plain_sum / 3}, 1e-5);  // three targets counted
}

TEST(NnNegativeLogLikelihoodLoss, Int32TargetsAndDouble) {
  auto out = NodeTest("NegativeLogLikelihoodLoss", 12)
                 .Attr("reduction", "sum")
                 .Input<double>({2, 2}, {-1.0, -2.0, -3.0, -4.0})
                 .Input<int32_t>({2}, {1, 0})
                 .Run();
  ExpectNear(Values<double>(*out[0]), {5.0}, 1e-12);
}

TEST(NnNegativeLogLikelihoodLoss, Errors) {
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({2}, {0, 3}),
                  ErrorCode::kInvalidArgument, "input 'target' holds 3");
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({3}, {0, 1, 2}),
                  ErrorCode::kInvalidArgument, "input 'target' has shape [3]");
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Input<float>({3}, Pattern(3))
                      .Input<int64_t>({1}, {0}),
                  ErrorCode::kInvalidArgument, "input 'input' has shape [3]");
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<float>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "input 'target' is float");
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({2}, {0, 1})
                      .Input<float>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "input 'weight' has shape [2]");
  ExpectNodeError(NodeTest("NegativeLogLikelihoodLoss", 13)
                      .Attr("reduction", "max")
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({2}, {0, 1}),
                  ErrorCode::kInvalidGraph, "attribute 'reduction'");
}

TEST(NnNegativeLogLikelihoodLoss, EmptyBatch) {
  auto out = NodeTest("NegativeLogLikelihoodLoss", 13)
                 .Attr("reduction", "none")
                 .Input<float>({0, 3}, {})
                 .Input<int64_t>({0}, {})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0}));
}

TEST(NnSoftmaxCrossEntropyLoss, LogProbAndLoss) {
  const std::vector<float> x = Pattern(12);
  std::vector<float> logp(12);
  for (size_t n = 0; n < 2; ++n) {
    for (size_t d = 0; d < 2; ++d) {
      double sum = 0;
      for (size_t c = 0; c < 3; ++c) sum += std::exp(double{x[(n * 3 + c) * 2 + d]});
      for (size_t c = 0; c < 3; ++c) {
        const size_t i = (n * 3 + c) * 2 + d;
        logp[i] = static_cast<float>(x[i] - std::log(sum));
      }
    }
  }
  float weight_sum = 0;
  const std::vector<float> losses = NllReference(logp, true, &weight_sum);
  float sum = 0;
  for (float v : losses) sum += v;
  auto out = NodeTest("SoftmaxCrossEntropyLoss", 13)
                 .Attr("ignore_index", int64_t{-1})
                 .Input<float>({2, 3, 2}, x)
                 .Input<int64_t>({2, 2}, Targets())
                 .Input<float>({3}, Weights())
                 .Outputs(2)
                 .Run();
  ExpectNear(Values<float>(*out[0]), {sum / weight_sum}, 1e-5);
  EXPECT_EQ(out[1]->shape(), Shape({2, 3, 2}));
  ExpectNear(Values<float>(*out[1]), logp, 1e-5);
  auto none = NodeTest("SoftmaxCrossEntropyLoss", 12)
                  .Attr("reduction", "none")
                  .Attr("ignore_index", int64_t{-1})
                  .Input<float>({2, 3, 2}, x)
                  .Input<int64_t>({2, 2}, Targets())
                  .Input<float>({3}, Weights())
                  .Run();
  ExpectNear(Values<float>(*none[0]), losses, 1e-5);
}

TEST(NnSoftmaxCrossEntropyLoss, Errors) {
  ExpectNodeError(NodeTest("SoftmaxCrossEntropyLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({2}, {0, -1}),
                  ErrorCode::kInvalidArgument, "input 'labels' holds -1");
  ExpectNodeError(NodeTest("SoftmaxCrossEntropyLoss", 13)
                      .Input<float>({2, 3}, Pattern(6))
                      .Input<int64_t>({2}, {0, 1})
                      .Input<double>({3}, {1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'weights' is double");
  ExpectNodeError(NodeTest("SoftmaxCrossEntropyLoss", 13)
                      .Input<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})
                      .Input<int64_t>({2}, {0, 1}),
                  ErrorCode::kNotImplemented, "int32");
}

}  // namespace
}  // namespace kiln::testing
