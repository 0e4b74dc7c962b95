// FusedGemm (com.microsoft): Gemm then an activation, against a double reference for every
// activation ONNX Runtime fuses (with its parameters and defaults), transA/transB, C broadcast,
// float and double, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

double Act(const std::string& name, double x, double a, double b) {
  if (name.empty()) return x;
  if (name == "Relu") return std::max(x, 0.0);
  if (name == "LeakyRelu") return x >= 0 ? x : a * x;
  if (name == "Tanh") return std::tanh(x);
  if (name == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (name == "HardSigmoid") return std::clamp(a * x + b, 0.0, 1.0);
  if (name == "Elu") return x >= 0 ? x : a * (std::exp(x) - 1);
  if (name == "Selu") return x > 0 ? b * x : b * (a * std::exp(x) - a);
  if (name == "Softsign") return x / (1 + std::fabs(x));
  if (name == "Softplus") return std::log(1 + std::exp(x));
  if (name == "ThresholdedRelu") return x > a ? x : 0.0;
  if (name == "ScaledTanh") return a * std::tanh(b * x);
  if (name == "ParametricSoftplus") return a * std::log(1 + std::exp(b * x));
  ADD_FAILURE() << name;
  return 0;
}

TEST(ContribFusedGemm, EveryActivationAgainstReference) {
  struct Activation {
    std::string name;
    double a, b;  // the values the reference uses
    bool set_a, set_b;
  };
  const std::vector<Activation> acts = {
      {"", 0, 0, false, false},
      {"Relu", 0, 0, false, false},
      {"LeakyRelu", 0.01, 0, false, false},
      {"LeakyRelu", 0.3, 0, true, false},
      {"Tanh", 0, 0, false, false},
      {"Sigmoid", 0, 0, false, false},
      {"HardSigmoid", 0.2, 0.5, false, false},
      {"HardSigmoid", 0.1, 0.3, true, true},
      {"Elu", 1.0, 0, false, false},
      {"Elu", 0.5, 0, true, false},
      {"Selu", 1.6732632423543772, 1.0507009873554805, false, false},
      {"Softsign", 0, 0, false, false},
      {"Softplus", 0, 0, false, false},
      {"ThresholdedRelu", 0.4, 0, true, false},
      {"ScaledTanh", 2.0, 0.5, true, true},
      {"ParametricSoftplus", 1.5, 0.7, true, true},
  };
  const int64_t m = 5, k = 7, n = 6;
  const std::vector<float> a = RandomFloats(size_t{m * k}, 50);
  const std::vector<float> b = RandomFloats(size_t{k * n}, 51);
  const std::vector<float> c = RandomFloats(size_t{n}, 52);
  for (const Activation& act : acts) {
    for (int trans = 0; trans < 4; ++trans) {
      const bool ta = (trans & 1) != 0;
      const bool tb = (trans & 2) != 0;
      // Stored transposed when trans: A as [k, m], B as [n, k] (the same values, moved).
      std::vector<float> as(a.size());
      std::vector<float> bs(b.size());
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) as[ta ? j * m + i : i * k + j] = a[i * k + j];
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) bs[tb ? j * k + i : i * n + j] = b[i * n + j];
      NodeTest t("FusedGemm", 1, kMs);
      t.Attr("alpha", 0.5f).Attr("beta", 2.0f);
      t.Attr("transA", int64_t{ta ? 1 : 0}).Attr("transB", int64_t{tb ? 1 : 0});
      if (!act.name.empty()) t.Attr("activation", act.name);
      if (act.set_a) t.Attr("activation_alpha", static_cast<float>(act.a));
      if (act.set_b) {
        t.Attr(act.name == "Selu" ? "activation_gamma" : "activation_beta",
               static_cast<float>(act.b));
      }
      t.Input<float>(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, as);
      t.Input<float>(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, bs);
      t.Input<float>({n}, c);
      auto out = t.Run(2);
      std::vector<double> want;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t p = 0; p < k; ++p) dot += double{a[i * k + p]} * b[p * n + j];
          want.push_back(Act(act.name, 0.5 * dot + 2.0 * c[j], act.a, act.b));
        }
      }
      SCOPED_TRACE(act.name + " trans " + std::to_string(trans));
      EXPECT_EQ(out[0]->shape(), Shape({m, n}));
      ExpectClose(*out[0], want, 1e-4, 1e-5);
    }
  }
}

TEST(ContribFusedGemm, BroadcastCDoubleAndErrors) {
  // C [m, 1] broadcast over the columns, in double, LeakyRelu's older leaky_relu_alpha.
  auto out = NodeTest("FusedGemm", 1, kMs)
                 .Attr("activation", "LeakyRelu")
                 .Attr("leaky_relu_alpha", 0.5f)
                 .Input<double>({2, 2}, {1, 2, 3, 4})
                 .Input<double>({2, 2}, {1, 0, 0, 1})
                 .Input<double>({2, 1}, {-10, 1})
                 .Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{-4.5, -4, 4, 5}));
  // An unsupported type is refused before anything is made, even with an empty product.
  ExpectNodeError(NodeTest("FusedGemm", 1, kMs)
                      .Input<int32_t>({0, 2}, {})
                      .Input<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                  ErrorCode::kNotImplemented, "input 'A' is int32");
  ExpectNodeError(NodeTest("FusedGemm", 1, kMs)
                      .Attr("activation", "Gelu")
                      .Input<float>({1, 1}, {1})
                      .Input<float>({1, 1}, {1}),
                  ErrorCode::kInvalidGraph, "attribute 'activation' is 'Gelu'");
  ExpectNodeError(NodeTest("FusedGemm", 1, kMs)
                      .Input<float>({2, 3}, RandomFloats(6, 1))
                      .Input<float>({2, 3}, RandomFloats(6, 2)),
                  ErrorCode::kInvalidArgument, "have inner dimensions 3 and 2");
  ExpectNodeError(NodeTest("FusedGemm", 1, kMs)
                      .Input<float>({2, 2}, RandomFloats(4, 1))
                      .Input<float>({2, 2}, RandomFloats(4, 2))
                      .Input<float>({3}, RandomFloats(3, 3)),
                  ErrorCode::kInvalidArgument,
                  "input 'C' has shape [3]; it must broadcast to [2, 2]");
}

}  // namespace
}  // namespace kiln::testing
