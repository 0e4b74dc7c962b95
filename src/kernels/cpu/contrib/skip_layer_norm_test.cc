// SkipLayerNormalization (com.microsoft): random data against a double-precision reference, 2-D and
// 3-D inputs, every skip form ([B,S,H], [1,S,H], [S,H]), beta and bias present or absent, each
// optional output wanted or not, epsilon, 1 and 2 threads, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

struct Expected {
  std::vector<double> y, mean, inv_std, sum;
};

Expected Reference(const std::vector<float>& x, const std::vector<float>& skip,
                   const std::vector<float>& gamma, const std::vector<float>& beta,
                   const std::vector<float>& bias, size_t width, double epsilon) {
  Expected e;
  const size_t rows = x.size() / width;
  const size_t skip_rows = skip.size() / width;
  for (size_t r = 0; r < rows; ++r) {
    std::vector<double> s(width);
    double mean = 0;
    for (size_t i = 0; i < width; ++i) {
      s[i] = static_cast<double>(x[r * width + i]) + skip[(r % skip_rows) * width + i] +
             (bias.empty() ? 0.0 : bias[i]);
      mean += s[i];
    }
    mean /= static_cast<double>(width);
    double var = 0;
    for (double v : s) var += (v - mean) * (v - mean);
    var /= static_cast<double>(width);
    const double inv_std = 1.0 / std::sqrt(var + epsilon);
    for (size_t i = 0; i < width; ++i) {
      e.y.push_back((s[i] - mean) * inv_std * gamma[i] + (beta.empty() ? 0.0 : beta[i]));
      e.sum.push_back(s[i]);
    }
    e.mean.push_back(mean);
    e.inv_std.push_back(inv_std);
  }
  return e;
}

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

struct Case {
  std::vector<int64_t> input;
  std::vector<int64_t> skip;
};

TEST(ContribSkipLayerNormalization, MatchesReferenceForEveryForm) {
  const std::vector<Case> cases = {
      {{2, 3, 8}, {2, 3, 8}},    {{2, 3, 8}, {1, 3, 8}},   {{2, 3, 8}, {3, 8}},
      {{1, 5, 13}, {1, 5, 13}},  {{4, 7}, {4, 7}},         {{2, 128, 768}, {2, 128, 768}},
      {{3, 17, 100}, {17, 100}}, {{2, 4, 33}, {1, 1, 33}},
  };
  uint32_t seed = 10;
  for (const Case& c : cases) {
    const auto h = static_cast<size_t>(c.input.back());
    const std::vector<float> x = RandomFloats(Count(c.input), seed++);
    const std::vector<float> skip = RandomFloats(Count(c.skip), seed++);
    const std::vector<float> gamma = RandomFloats(h, seed++, 0.5f, 1.5f);
    const std::vector<float> beta = RandomFloats(h, seed++);
    const std::vector<float> bias = RandomFloats(h, seed++, -1.0f, 1.0f);
    std::vector<int64_t> stats_dims = c.input;
    stats_dims.back() = 1;
    for (int variant = 0; variant < 4; ++variant) {
      const bool with_beta = (variant & 1) != 0;
      const bool with_bias = (variant & 2) != 0;
      for (int threads : {1, 2}) {
        NodeTest t("SkipLayerNormalization", 1, kMs);
        t.Input<float>(c.input, x)
            .Input<float>(c.skip, skip)
            .Input<float>({c.input.back()}, gamma, true);
        if (with_beta) {
          t.Input<float>({c.input.back()}, beta, true);
        } else {
          t.MissingInput();
        }
        if (with_bias) t.Input<float>({c.input.back()}, bias, true);
        t.Outputs(4);
        auto out = t.Run(threads);
        const Expected e = Reference(x, skip, gamma, with_beta ? beta : std::vector<float>{},
                                     with_bias ? bias : std::vector<float>{}, h, 1e-12);
        SCOPED_TRACE(::testing::Message() << "case " << Shape(c.input).ToString() << " skip "
                                          << Shape(c.skip).ToString() << " variant " << variant);
        EXPECT_EQ(out[0]->shape(), Shape(c.input));
        ExpectClose(*out[0], e.y);
        EXPECT_EQ(out[1]->shape(), Shape(stats_dims));
        EXPECT_EQ(out[1]->type(), DataType::kFloat);
        ExpectClose(*out[1], e.mean);
        EXPECT_EQ(out[2]->shape(), Shape(stats_dims));
        ExpectClose(*out[2], e.inv_std);
        EXPECT_EQ(out[3]->shape(), Shape(c.input));
        ExpectClose(*out[3], e.sum);
      }
    }
  }
}

TEST(ContribSkipLayerNormalization, OnlyWantedOutputsAndEpsilon) {
  const std::vector<float> x = RandomFloats(size_t{96}, 1, -0.01f, 0.01f);
  const std::vector<float> skip = RandomFloats(x.size(), 2, -0.01f, 0.01f);
  const std::vector<float> gamma = RandomFloats(16, 3);
  // A small variance makes epsilon matter.
  const Expected e = Reference(x, skip, gamma, {}, {}, 16, 1e-3);
  for (const std::vector<size_t>& missing :
       std::vector<std::vector<size_t>>{{1, 2, 3}, {1, 2}, {3}, {1, 3}, {2}}) {
    auto out = NodeTest("SkipLayerNormalization", 1, kMs)
                   .Attr("epsilon", 1e-3f)
                   .Input<float>({2, 3, 16}, x)
                   .Input<float>({2, 3, 16}, skip)
                   .Input<float>({16}, gamma)
                   .Outputs(4, missing)
                   .Run(2);
    ExpectClose(*out[0], e.y);
    for (size_t i = 1; i < 4; ++i) {
      const bool gone = std::find(missing.begin(), missing.end(), i) != missing.end();
      EXPECT_EQ(out[i] == nullptr, gone) << "output " << i;
    }
    if (out[1] != nullptr) ExpectClose(*out[1], e.mean);
    if (out[2] != nullptr) ExpectClose(*out[2], e.inv_std);
    if (out[3] != nullptr) ExpectClose(*out[3], e.sum);
  }
  // One output only (the common case after fusion).
  auto single = NodeTest("SkipLayerNormalization", 1, kMs)
                    .Attr("epsilon", 1e-3f)
                    .Input<float>({2, 3, 16}, x)
                    .Input<float>({2, 3, 16}, skip)
                    .Input<float>({16}, gamma)
                    .Run();
  ExpectClose(*single[0], e.y);
}

// SkipSimplifiedLayerNormalization: s = input + skip (+ bias), y = s / sqrt(mean(s²) + epsilon)
// · gamma; outputs 2 (inv_std_var) and 3 (the sum); output 1, a mean, is refused.
TEST(ContribSkipSimplifiedLayerNormalization, MatchesRmsReference) {
  const std::vector<float> x = RandomFloats(size_t{48}, 21);
  const std::vector<float> skip = RandomFloats(size_t{24}, 22);
  const std::vector<float> gamma = RandomFloats(size_t{8}, 23, 0.5f, 1.5f);
  const std::vector<float> bias = RandomFloats(size_t{8}, 24);
  for (bool with_bias : {false, true}) {
    std::vector<double> y, inv_std, sum;
    for (size_t r = 0; r < 6; ++r) {
      std::vector<double> s(8);
      double squares = 0;
      for (size_t i = 0; i < 8; ++i) {
        s[i] = double{x[r * 8 + i]} + skip[(r % 3) * 8 + i] + (with_bias ? bias[i] : 0.0);
        squares += s[i] * s[i];
      }
      const double inv = 1.0 / std::sqrt(squares / 8 + 1e-3);
      for (size_t i = 0; i < 8; ++i) {
        y.push_back(s[i] * inv * gamma[i]);
        sum.push_back(s[i]);
      }
      inv_std.push_back(inv);
    }
    for (int threads : {1, 2}) {
      NodeTest t("SkipSimplifiedLayerNormalization", 1, kMs);
      t.Attr("epsilon", 1e-3f).Input<float>({2, 3, 8}, x).Input<float>({3, 8}, skip);
      t.Input<float>({8}, gamma);
      if (with_bias) t.Input<float>({8}, bias);
      auto out = t.Outputs(4, {1}).Run(threads);
      SCOPED_TRACE(with_bias ? "with bias" : "without bias");
      ExpectClose(*out[0], y);
      EXPECT_EQ(out[1], nullptr);
      EXPECT_EQ(out[2]->shape(), Shape({2, 3, 1}));
      ExpectClose(*out[2], inv_std);
      ExpectClose(*out[3], sum);
    }
  }
  ExpectNodeError(NodeTest("SkipSimplifiedLayerNormalization", 1, kMs)
                      .Input<float>({2, 8}, RandomFloats(size_t{16}, 1))
                      .Input<float>({2, 8}, RandomFloats(size_t{16}, 2))
                      .Input<float>({8}, gamma)
                      .Outputs(2),
                  ErrorCode::kInvalidGraph, "output 1 ('mean') is not defined");
  ExpectNodeError(NodeTest("SkipSimplifiedLayerNormalization", 1, kMs)
                      .Input<float>({2, 8}, RandomFloats(size_t{16}, 1))
                      .Input<float>({2, 8}, RandomFloats(size_t{16}, 2))
                      .Input<float>({8}, gamma)
                      .Input<float>({7}, RandomFloats(size_t{7}, 3)),
                  ErrorCode::kInvalidArgument, "input 'bias' has shape [7]");
}

TEST(ContribSkipLayerNormalization, EmptyInput) {
  auto out = NodeTest("SkipLayerNormalization", 1, kMs)
                 .Input<float>({0, 3, 4}, {})
                 .Input<float>({3, 4}, RandomFloats(12, 1))
                 .Input<float>({4}, {1, 1, 1, 1})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 3, 4}));
  EXPECT_EQ(out[1]->shape(), Shape({0, 3, 1}));
  // Rows of no values: the statistics are 0/0.
  auto no_hidden = NodeTest("SkipLayerNormalization", 1, kMs)
                       .Input<float>({2, 0}, {})
                       .Input<float>({2, 0}, {})
                       .Input<float>({0}, {})
                       .Outputs(4)
                       .Run();
  EXPECT_EQ(no_hidden[0]->shape(), Shape({2, 0}));
  EXPECT_EQ(no_hidden[3]->shape(), Shape({2, 0}));
  for (size_t i : {size_t{1}, size_t{2}}) {
    EXPECT_EQ(no_hidden[i]->shape(), Shape({2, 1}));
    for (float v : Values<float>(*no_hidden[i])) EXPECT_TRUE(std::isnan(v));
  }
}

NodeTest Sln(const std::vector<int64_t>& input, const std::vector<int64_t>& skip,
             const std::vector<int64_t>& gamma) {
  NodeTest t("SkipLayerNormalization", 1, kMs);
  t.Input<float>(input, RandomFloats(Count(input), 1))
      .Input<float>(skip, RandomFloats(Count(skip), 2))
      .Input<float>(gamma, RandomFloats(Count(gamma), 3));
  return t;
}

TEST(ContribSkipLayerNormalization, Errors) {
  ExpectNodeError(Sln({8}, {8}, {8}), ErrorCode::kInvalidArgument,
                  "input 'input' has shape [8]; it must be 2-D or 3-D");
  ExpectNodeError(Sln({1, 2, 2, 8}, {1, 2, 2, 8}, {8}), ErrorCode::kInvalidArgument,
                  "input 'input' has shape [1,2,2,8]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 4}, {8}), ErrorCode::kInvalidArgument,
                  "input 'skip' has shape [2,3,4]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 8}, {8}), ErrorCode::kInvalidArgument,
                  "input 'skip' has shape [2,8]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 1, 8}, {8}), ErrorCode::kInvalidArgument,
                  "input 'skip' has shape [2,1,8]");
  ExpectNodeError(Sln({3, 8}, {1, 3, 8}, {8}), ErrorCode::kInvalidArgument,
                  "input 'skip' has shape [1,3,8]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 8}, {4}), ErrorCode::kInvalidArgument,
                  "input 'gamma' has shape [4]; it must be [8]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 8}, {1, 8}), ErrorCode::kInvalidArgument,
                  "input 'gamma' has shape [1,8]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 8}, {8}).Input<float>({7}, RandomFloats(7, 4)),
                  ErrorCode::kInvalidArgument, "input 'beta' has shape [7]");
  ExpectNodeError(
      Sln({2, 3, 8}, {2, 3, 8}, {8}).MissingInput().Input<float>({9}, RandomFloats(9, 4)),
      ErrorCode::kInvalidArgument, "input 'bias' has shape [9]");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 8}, {8}).Input<double>({8}, std::vector<double>(8, 1.0)),
                  ErrorCode::kInvalidArgument, "input 'beta' is double");
  ExpectNodeError(NodeTest("SkipLayerNormalization", 1, kMs)
                      .Input<double>({1, 2}, {1, 2})
                      .Input<double>({1, 2}, {1, 2})
                      .Input<double>({2}, {1, 2}),
                  ErrorCode::kNotImplemented, "input 'input' is double");
  ExpectNodeError(Sln({2, 3, 8}, {2, 3, 8}, {8}).Attr("epsilon", -1.0f), ErrorCode::kInvalidGraph,
                  "attribute 'epsilon'");
}

}  // namespace
}  // namespace kiln::testing
