// MeanVarianceNormalization and GroupNormalization against statistics computed here.
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

// Normalizes x in place over the index sets `groups` (each a list of flat indices), with
// y = (x - mean) * mul(var) + add.
template <typename Mul>
void NormalizeGroups(std::vector<float>& x, const std::vector<std::vector<size_t>>& groups,
                     const Mul& mul) {
  for (const auto& g : groups) {
    double sum = 0;
    for (size_t i : g) sum += x[i];
    const double mean = sum / static_cast<double>(g.size());
    double sq = 0;
    for (size_t i : g) sq += (x[i] - mean) * (x[i] - mean);
    const double var = sq / static_cast<double>(g.size());
    for (size_t i : g) x[i] = static_cast<float>((x[i] - mean) * mul(var));
  }
}

TEST(NnMeanVarianceNormalization, DefaultAndExplicitAxes) {
  // [2, 3, 2, 2] with default axes {0, 2, 3}: one group per channel.
  const std::vector<float> x = Pattern(24);
  std::vector<std::vector<size_t>> per_channel(3);
  for (size_t i = 0; i < 24; ++i) per_channel[(i / 4) % 3].push_back(i);
  std::vector<float> want = x;
  NormalizeGroups(want, per_channel, [](double var) { return 1.0 / (std::sqrt(var) + 1e-9); });
  auto out = NodeTest("MeanVarianceNormalization", 13).Input<float>({2, 3, 2, 2}, x).Run();
  ExpectNear(Values<float>(*out[0]), want, 1e-5);
  // axes {-1} of [2, 3]: each row.
  std::vector<float> rows(x.begin(), x.begin() + 6);
  std::vector<float> want_rows = rows;
  NormalizeGroups(want_rows, {{0, 1, 2}, {3, 4, 5}},
                  [](double var) { return 1.0 / (std::sqrt(var) + 1e-9); });
  auto r = NodeTest("MeanVarianceNormalization", 9)
               .Attr("axes", std::vector<int64_t>{-1})
               .Input<float>({2, 3}, rows)
               .Run();
  ExpectNear(Values<float>(*r[0]), want_rows, 1e-5);
}

TEST(NnMeanVarianceNormalization, BadAxesAndEmpty) {
  ExpectNodeError(NodeTest("MeanVarianceNormalization", 13)
                      .Attr("axes", std::vector<int64_t>{0, 0})
                      .Input<float>({2, 3}, Pattern(6)),
                  ErrorCode::kInvalidGraph, "attribute 'axes'");
  ExpectNodeError(NodeTest("MeanVarianceNormalization", 13)
                      .Attr("axes", std::vector<int64_t>{2})
                      .Input<float>({2, 3}, Pattern(6)),
                  ErrorCode::kInvalidArgument, "axes");
  auto empty = NodeTest("MeanVarianceNormalization", 13).Input<float>({0, 3, 1, 1}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 3, 1, 1}));
}

// X [2, 4, 3], 2 groups of 2 channels.
std::vector<float> GroupReference(const std::vector<float>& x, const std::vector<float>& scale,
                                  const std::vector<float>& bias, bool per_channel) {
  std::vector<float> y = x;
  std::vector<std::vector<size_t>> groups(4);
  for (size_t i = 0; i < 24; ++i) groups[i / 6].push_back(i);
  NormalizeGroups(y, groups, [](double var) { return 1.0 / std::sqrt(var + 1e-5); });
  for (size_t i = 0; i < 24; ++i) {
    const size_t channel = (i / 3) % 4;
    const size_t p = per_channel ? channel : channel / 2;
    y[i] = y[i] * scale[p] + bias[p];
  }
  return y;
}

TEST(NnGroupNormalization, PerGroupAtOpset18PerChannelAt21) {
  const std::vector<float> x = Pattern(24);
  const std::vector<float> g2 = {0.5f, 2.0f};
  const std::vector<float> b2 = {1.0f, -1.0f};
  auto v18 = NodeTest("GroupNormalization", 18)
                 .Attr("num_groups", int64_t{2})
                 .Input<float>({2, 4, 3}, x)
                 .Input<float>({2}, g2)
                 .Input<float>({2}, b2)
                 .Run();
  ExpectNear(Values<float>(*v18[0]), GroupReference(x, g2, b2, false), 1e-5);
  const std::vector<float> g4 = {0.5f, 2.0f, 1.0f, -1.0f};
  const std::vector<float> b4 = {1.0f, -1.0f, 0.0f, 0.5f};
  auto v21 = NodeTest("GroupNormalization", 21)
                 .Attr("num_groups", int64_t{2})
                 .Input<float>({2, 4, 3}, x)
                 .Input<float>({4}, g4)
                 .Input<float>({4}, b4)
                 .Run(2);
  ExpectNear(Values<float>(*v21[0]), GroupReference(x, g4, b4, true), 1e-5);
}

TEST(NnGroupNormalization, Errors) {
  const auto make = [](int64_t opset, int64_t groups, int64_t params) {
    NodeTest t("GroupNormalization", opset);
    t.Attr("num_groups", groups)
        .Input<float>({1, 4, 2}, Pattern(8))
        .Input<float>({params}, std::vector<float>(static_cast<size_t>(params), 1.0f))
        .Input<float>({params}, std::vector<float>(static_cast<size_t>(params), 0.0f));
    return t;
  };
  ExpectNodeError(make(21, 3, 4), ErrorCode::kInvalidArgument, "'num_groups' (3)");
  ExpectNodeError(make(21, 2, 2), ErrorCode::kInvalidArgument, "input 'scale' has shape [2]");
  ExpectNodeError(make(18, 2, 4), ErrorCode::kInvalidArgument, "one per group");
  ExpectNodeError(make(18, 0, 4), ErrorCode::kInvalidGraph, "attribute 'num_groups'");
  ExpectNodeError(NodeTest("GroupNormalization", 21)
                      .Input<float>({1, 4, 2}, Pattern(8))
                      .Input<float>({4}, {1, 1, 1, 1})
                      .Input<float>({4}, {0, 0, 0, 0}),
                  ErrorCode::kInvalidGraph, "'num_groups' is required");
  ExpectNodeError(NodeTest("GroupNormalization", 21)
                      .Attr("num_groups", int64_t{1})
                      .Input<float>({4}, Pattern(4))
                      .Input<float>({1}, {1})
                      .Input<float>({1}, {0}),
                  ErrorCode::kInvalidArgument, "input 'X' has shape [4]");
}

}  // namespace
}  // namespace kiln::testing
