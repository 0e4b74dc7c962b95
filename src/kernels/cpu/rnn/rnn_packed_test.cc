// LSTM, GRU and RNN with W and R as initializers, which the kernels pack when they are made,
// against the same nodes with W and R given at run time (packed per run, or not at all for one
// batch entry): every output, both directions, sequence lengths, layout 1, one batch entry; and
// a badly shaped initializer, which must give the run-time shape error, not a packed product.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/rnn/rnn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

std::vector<float> Wave(size_t n, double phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(0.4 * std::sin(0.37 * static_cast<double>(i) + phase));
  return v;
}

struct RnnCase {
  std::string name;
  std::string op;  // LSTM, GRU or RNN
  size_t gates = 4;
  int64_t seq = 4, batch = 3, input = 7, hidden = 20;
  std::string direction = "forward";
  bool layout1 = false;
  bool linear_before_reset = false;
  std::vector<int32_t> lens = {};
};

std::vector<std::shared_ptr<Tensor>> RunCase(const RnnCase& k, bool constant) {
  const int64_t dirs = k.direction == "bidirectional" ? 2 : 1;
  const auto g = static_cast<int64_t>(k.gates);
  const size_t outputs = k.op == "LSTM" ? 3 : 2;
  NodeTest t(k.op, 14);
  t.Attr("direction", k.direction.c_str()).Attr("hidden_size", k.hidden);
  if (k.layout1) t.Attr("layout", int64_t{1});
  if (k.linear_before_reset) t.Attr("linear_before_reset", int64_t{1});
  const std::vector<int64_t> x_shape = k.layout1 ? std::vector<int64_t>{k.batch, k.seq, k.input}
                                                 : std::vector<int64_t>{k.seq, k.batch, k.input};
  t.Input<float>(x_shape, Wave(static_cast<size_t>(k.seq * k.batch * k.input), 0.1));
  t.Input<float>({dirs, g * k.hidden, k.input},
                 Wave(static_cast<size_t>(dirs * g * k.hidden * k.input), 0.2), constant);
  t.Input<float>({dirs, g * k.hidden, k.hidden},
                 Wave(static_cast<size_t>(dirs * g * k.hidden * k.hidden), 0.3), constant);
  t.Input<float>({dirs, 2 * g * k.hidden}, Wave(static_cast<size_t>(dirs * 2 * g * k.hidden), 0.4));
  if (k.lens.empty()) {
    t.MissingInput();
  } else {
    t.Input<int32_t>({k.batch}, k.lens);
  }
  const std::vector<int64_t> state = k.layout1 ? std::vector<int64_t>{k.batch, dirs, k.hidden}
                                               : std::vector<int64_t>{dirs, k.batch, k.hidden};
  t.Input<float>(state, Wave(static_cast<size_t>(dirs * k.batch * k.hidden), 0.5));
  if (k.op == "LSTM") {
    t.Input<float>(state, Wave(static_cast<size_t>(dirs * k.batch * k.hidden), 0.6));
  }
  t.Outputs(outputs);
  return t.Run(2);
}

TEST(RnnPacked, InitializerWeightsMatchRunTimeWeights) {
  const std::vector<RnnCase> cases = {
      {.name = "LSTM bidirectional, lengths",
       .op = "LSTM",
       .direction = "bidirectional",
       .lens = {4, 1, 3}},
      {.name = "LSTM one batch entry, reverse, layout 1",
       .op = "LSTM",
       .batch = 1,
       .direction = "reverse",
       .layout1 = true},
      {.name = "GRU bidirectional",
       .op = "GRU",
       .gates = 3,
       .direction = "bidirectional",
       .lens = {2, 4, 0}},
      {.name = "GRU linear_before_reset, one batch entry",
       .op = "GRU",
       .gates = 3,
       .batch = 1,
       .linear_before_reset = true},
      {.name = "GRU linear_before_reset, bidirectional",
       .op = "GRU",
       .gates = 3,
       .direction = "bidirectional",
       .linear_before_reset = true},
      {.name = "RNN bidirectional",
       .op = "RNN",
       .gates = 1,
       .batch = 2,
       .direction = "bidirectional"},
  };
  for (const RnnCase& k : cases) {
    SCOPED_TRACE(k.name);
    const auto want = RunCase(k, false);
    const auto got = RunCase(k, true);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      ASSERT_EQ(got[i]->shape(), want[i]->shape());
      const std::vector<float> g = Values<float>(*got[i]);
      const std::vector<float> w = Values<float>(*want[i]);
      size_t bad = 0;
      for (size_t j = 0; j < g.size(); ++j) bad += std::fabs(g[j] - w[j]) <= 1e-5f ? 0 : 1;
      EXPECT_EQ(bad, 0u);
      // Not all zeros: the states went through the product.
      double norm = 0;
      for (float v : g) norm += std::fabs(v);
      EXPECT_GT(norm, 0.1);
    }
  }
}

TEST(RnnPacked, BadlyShapedInitializerGivesTheRunTimeError) {
  // W [1, 6, 1] for an LSTM of hidden size 2 (needs [1, 8, 1]); 6 rows do not split into 4 gates.
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Attr("hidden_size", int64_t{2})
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 6, 1}, std::vector<float>(6, 0.5f), true)
                      .Input<float>({1, 8, 2}, std::vector<float>(16, 0.5f), true),
                  ErrorCode::kInvalidArgument, "input 'W' has shape [1,6,1] but must be [1,8,1]");
  // R [1, 12, 3] splits into 4 gates of 3 but hidden_size is 2: packed, but not used.
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Attr("hidden_size", int64_t{2})
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 8, 1}, std::vector<float>(8, 0.5f), true)
                      .Input<float>({1, 12, 3}, std::vector<float>(36, 0.5f), true),
                  ErrorCode::kInvalidArgument, "input 'R' has shape [1,12,3]");
}

}  // namespace
}  // namespace kiln::testing
