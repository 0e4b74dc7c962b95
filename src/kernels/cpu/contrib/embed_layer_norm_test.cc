// EmbedLayerNormalization (com.microsoft): random tables against a double-precision reference,
// with and without segments, beta, position_ids ([B, S] and [1, S]) and a mask, each optional
// output wanted or not, 1 and 2 threads, and the errors (ids outside their tables among them).
// QEmbedLayerNormalization: 8-bit tables (uint8 and int8, zero points given or left out) against
// the same reference on their dequantized values, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

constexpr int64_t kB = 2, kS = 3, kH = 8, kV = 5, kP = 6, kG = 2;

struct Tables {
  std::vector<float> words = RandomFloats(size_t{kV * kH}, 31);
  std::vector<float> positions = RandomFloats(size_t{kP * kH}, 32);
  std::vector<float> segments = RandomFloats(size_t{kG * kH}, 33);
  std::vector<float> gamma = RandomFloats(size_t{kH}, 34, 0.5f, 1.5f);
  std::vector<float> beta = RandomFloats(size_t{kH}, 35);
};

// (functions: no global with a throwing constructor)
std::vector<int32_t> Ids() {
  return {4, 0, 2, 1, 1, 3};
}
std::vector<int32_t> SegmentIds() {
  return {0, 0, 1, 1, 0, 1};
}
std::vector<int32_t> Mask() {
  return {1, 1, 0, 1, 1, 1};
}

// The embedding sums and the normalised rows, token by token.
void Reference(const Tables& t, bool segments, bool beta, const std::vector<int32_t>& positions,
               std::vector<double>& y, std::vector<double>& sum) {
  const std::vector<int32_t> ids = Ids();
  const std::vector<int32_t> segment_ids = SegmentIds();
  for (size_t token = 0; token < ids.size(); ++token) {
    std::vector<double> e(kH);
    double mean = 0;
    for (size_t i = 0; i < kH; ++i) {
      e[i] = double{t.words[static_cast<size_t>(ids[token]) * kH + i]} +
             t.positions[static_cast<size_t>(positions[token]) * kH + i] +
             (segments ? t.segments[static_cast<size_t>(segment_ids[token]) * kH + i] : 0.0f);
      mean += e[i];
      sum.push_back(e[i]);
    }
    mean /= kH;
    double var = 0;
    for (double v : e) var += (v - mean) * (v - mean);
    const double inv_std = 1.0 / std::sqrt(var / kH + 1e-12);
    for (size_t i = 0; i < kH; ++i) {
      y.push_back((e[i] - mean) * inv_std * t.gamma[i] + (beta ? t.beta[i] : 0.0));
    }
  }
}

NodeTest Eln(const Tables& t, bool segments, bool beta) {
  NodeTest n("EmbedLayerNormalization", 1, kMs);
  n.Input<int32_t>({kB, kS}, Ids());
  if (segments) {
    n.Input<int32_t>({kB, kS}, SegmentIds());
  } else {
    n.MissingInput();
  }
  n.Input<float>({kV, kH}, t.words).Input<float>({kP, kH}, t.positions);
  if (segments) {
    n.Input<float>({kG, kH}, t.segments);
  } else {
    n.MissingInput();
  }
  n.Input<float>({kH}, t.gamma);
  if (beta) {
    n.Input<float>({kH}, t.beta);
  } else {
    n.MissingInput();
  }
  return n;
}

TEST(ContribEmbedLayerNormalization, MatchesReferenceForEveryForm) {
  const Tables t;
  for (int variant = 0; variant < 4; ++variant) {
    const bool segments = (variant & 1) != 0;
    const bool beta = (variant & 2) != 0;
    for (int positions = 0; positions < 3; ++positions) {
      // 0: none (position s); 1: [B, S]; 2: [1, S], shared by the batch.
      std::vector<int32_t> used = {0, 1, 2, 0, 1, 2};
      NodeTest n = Eln(t, segments, beta);
      n.Input<int32_t>({kB, kS}, Mask());
      if (positions == 1) {
        used = {5, 0, 3, 2, 2, 4};
        n.Input<int32_t>({kB, kS}, used);
      } else if (positions == 2) {
        used = {1, 4, 0, 1, 4, 0};
        n.Input<int32_t>({1, kS}, {1, 4, 0});
      }
      std::vector<double> y, sum;
      Reference(t, segments, beta, used, y, sum);
      for (int threads : {1, 2}) {
        auto out = NodeTest(n).Outputs(3).Run(threads);
        SCOPED_TRACE(::testing::Message() << "variant " << variant << " positions " << positions);
        EXPECT_EQ(out[0]->shape(), Shape({kB, kS, kH}));
        ExpectClose(*out[0], y);
        EXPECT_EQ(out[1]->type(), DataType::kInt32);
        EXPECT_EQ(Values<int32_t>(*out[1]), (std::vector<int32_t>{2, 3}));
        ExpectClose(*out[2], sum);
      }
    }
  }
  // Without a mask, mask_index is 0; only the wanted outputs are made.
  auto bare = Eln(t, false, true).Outputs(3, {2}).Run();
  EXPECT_EQ(Values<int32_t>(*bare[1]), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(bare[2], nullptr);
}

TEST(ContribEmbedLayerNormalization, Errors) {
  const Tables t;
  ExpectNodeError(
      Eln(t, false, true).Input<int32_t>({kB, kS}, Mask()).Input<int32_t>({kS}, {0, 1, 2}),
      ErrorCode::kInvalidArgument, "input 'position_ids' has shape [3]");
  ExpectNodeError(Eln(t, false, true).MissingInput().Input<int32_t>({kB, kS}, {0, 1, 2, 0, 6, 1}),
                  ErrorCode::kInvalidArgument,
                  "position_ids of token [1, 1] is 6; its table has 6 rows");
  NodeTest bad_id("EmbedLayerNormalization", 1, kMs);
  bad_id.Input<int32_t>({1, 2}, {0, 5})
      .MissingInput()
      .Input<float>({kV, kH}, t.words)
      .Input<float>({kP, kH}, t.positions)
      .MissingInput()
      .Input<float>({kH}, t.gamma);
  ExpectNodeError(bad_id, ErrorCode::kInvalidArgument,
                  "input_ids of token [0, 1] is 5; its table has 5 rows");
  ExpectNodeError(NodeTest("EmbedLayerNormalization", 1, kMs)
                      .Input<int32_t>({1, 2}, {0, 1})
                      .Input<int32_t>({1, 2}, {0, 2})
                      .Input<float>({kV, kH}, t.words)
                      .Input<float>({kP, kH}, t.positions)
                      .Input<float>({kG, kH}, t.segments)
                      .Input<float>({kH}, t.gamma),
                  ErrorCode::kInvalidArgument, "segment_ids of token [0, 1] is 2");
  ExpectNodeError(NodeTest("EmbedLayerNormalization", 1, kMs)
                      .Input<int32_t>({1, 2}, {0, 1})
                      .Input<int32_t>({1, 2}, {0, 1})
                      .Input<float>({kV, kH}, t.words)
                      .Input<float>({kP, kH}, t.positions)
                      .MissingInput()
                      .Input<float>({kH}, t.gamma),
                  ErrorCode::kInvalidArgument,
                  "'segment_ids' and 'segment_embedding' come together");
  ExpectNodeError(NodeTest("EmbedLayerNormalization", 1, kMs)
                      .Input<int64_t>({1, 2}, {0, 1})
                      .MissingInput()
                      .Input<float>({kV, kH}, t.words)
                      .Input<float>({kP, kH}, t.positions)
                      .MissingInput()
                      .Input<float>({kH}, t.gamma),
                  ErrorCode::kInvalidArgument, "input 'input_ids' is int64; it must be int32");
  ExpectNodeError(NodeTest("EmbedLayerNormalization", 1, kMs)
                      .Input<int32_t>({1, 2}, {0, 1})
                      .MissingInput()
                      .Input<float>({kV, kH}, t.words)
                      .Input<float>({kP, 4}, RandomFloats(size_t{kP * 4}, 1))
                      .MissingInput()
                      .Input<float>({kH}, t.gamma),
                  ErrorCode::kInvalidArgument, "input 'position_embedding' has shape [6,4]");
  ExpectNodeError(NodeTest("EmbedLayerNormalization", 1, kMs)
                      .Input<int32_t>({1, 2}, {0, 1})
                      .MissingInput()
                      .Input<float>({kV, kH}, t.words)
                      .Input<float>({kP, kH}, t.positions)
                      .MissingInput()
                      .Input<float>({4}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'gamma' is float [4]");
}

// QEmbedLayerNormalization's tables: 8-bit codes with per-table scales and zero points, and the
// float tables they stand for ((q - zero) · scale, in float as the kernel computes them).
struct QuantizedTables {
  std::vector<uint8_t> words, segments, gamma;  // uint8
  std::vector<int8_t> positions, beta;          // int8
  static constexpr float kScale[5] = {0.02f, 0.015f, 0.03f, 0.004f, 0.01f};
  static constexpr int32_t kZero[5] = {128, -3, 120, 0, 7};
  Tables dequantized;

  explicit QuantizedTables(bool zero_points) {
    const auto codes = [](size_t n, uint32_t seed, int lo, int hi) {
      std::vector<int> v(n);
      for (size_t i = 0; i < n; ++i)
        v[i] = lo + static_cast<int>((i * 2654435761u + seed) % 97u) * (hi - lo) / 96;
      return v;
    };
    const auto fill = [&](auto& q, std::vector<float>& f, size_t n, uint32_t seed, int lo, int hi,
                          size_t k) {
      const std::vector<int> c = codes(n, seed, lo, hi);
      q.assign(c.begin(), c.end());
      f.resize(n);
      const int32_t zero = zero_points ? kZero[k] : 0;
      for (size_t i = 0; i < n; ++i) f[i] = static_cast<float>(c[i] - zero) * kScale[k];
    };
    fill(words, dequantized.words, size_t{kV * kH}, 3, 0, 255, 0);
    fill(positions, dequantized.positions, size_t{kP * kH}, 5, -128, 127, 1);
    fill(segments, dequantized.segments, size_t{kG * kH}, 7, 0, 255, 2);
    fill(gamma, dequantized.gamma, size_t{kH}, 11, 130, 250, 3);
    fill(beta, dequantized.beta, size_t{kH}, 13, -100, 100, 4);
  }
};

NodeTest Qeln(const QuantizedTables& t, bool segments, bool beta, bool zero_points) {
  NodeTest n("QEmbedLayerNormalization", 1, kMs);
  n.Input<int32_t>({kB, kS}, Ids());
  if (segments) {
    n.Input<int32_t>({kB, kS}, SegmentIds());
  } else {
    n.MissingInput();
  }
  n.Input<uint8_t>({kV, kH}, t.words).Input<int8_t>({kP, kH}, t.positions);
  if (segments) {
    n.Input<uint8_t>({kG, kH}, t.segments);
  } else {
    n.MissingInput();
  }
  n.Input<uint8_t>({kH}, t.gamma);
  if (beta) {
    n.Input<int8_t>({kH}, t.beta);
  } else {
    n.MissingInput();
  }
  n.Input<int32_t>({kB, kS}, Mask());
  for (size_t k = 0; k < 5; ++k) n.Input<float>({1}, {QuantizedTables::kScale[k]});
  if (zero_points) {
    const auto& z = QuantizedTables::kZero;
    n.Input<uint8_t>({}, {static_cast<uint8_t>(z[0])}).Input<int8_t>({1}, {int8_t(z[1])});
    n.Input<uint8_t>({1}, {static_cast<uint8_t>(z[2])}).Input<uint8_t>({}, {uint8_t(z[3])});
    n.Input<int8_t>({}, {static_cast<int8_t>(z[4])});
  }
  return n;
}

TEST(ContribQEmbedLayerNormalization, MatchesReferenceOnDequantizedTables) {
  for (bool zero_points : {true, false}) {
    const QuantizedTables t(zero_points);
    for (int variant = 0; variant < 4; ++variant) {
      const bool segments = (variant & 1) != 0;
      const bool beta = (variant & 2) != 0;
      std::vector<double> y, sum;
      Reference(t.dequantized, segments, beta, {0, 1, 2, 0, 1, 2}, y, sum);
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message() << "zero points " << zero_points << " variant " << variant
                                          << " threads " << threads);
        auto out = Qeln(t, segments, beta, zero_points).Outputs(2).Run(threads);
        EXPECT_EQ(out[0]->shape(), Shape({kB, kS, kH}));
        ExpectClose(*out[0], y);
        EXPECT_EQ(Values<int32_t>(*out[1]), (std::vector<int32_t>{2, 3}));
      }
    }
  }
}

TEST(ContribQEmbedLayerNormalization, Errors) {
  const QuantizedTables t(true);
  // A float table where the codes belong.
  NodeTest float_words("QEmbedLayerNormalization", 1, kMs);
  float_words.Input<int32_t>({kB, kS}, Ids())
      .MissingInput()
      .Input<float>({kV, kH}, t.dequantized.words)
      .Input<int8_t>({kP, kH}, t.positions)
      .MissingInput()
      .Input<uint8_t>({kH}, t.gamma);
  ExpectNodeError(float_words, ErrorCode::kInvalidArgument,
                  "input 'word_embedding' is float; it must be uint8 or int8");
  // A zero point of another type than its table.
  NodeTest mixed = Qeln(t, true, true, false);
  mixed.Input<int8_t>({}, {0});
  ExpectNodeError(mixed, ErrorCode::kInvalidArgument,
                  "input 'word_embedding_zero_point' is int8 []; it must be one uint8");
  // A scale of two elements; a scale missing.
  NodeTest wide("QEmbedLayerNormalization", 1, kMs);
  wide.Input<int32_t>({kB, kS}, Ids())
      .MissingInput()
      .Input<uint8_t>({kV, kH}, t.words)
      .Input<int8_t>({kP, kH}, t.positions)
      .MissingInput()
      .Input<uint8_t>({kH}, t.gamma)
      .MissingInput()
      .MissingInput()
      .Input<float>({2}, {0.1f, 0.2f});
  ExpectNodeError(wide, ErrorCode::kInvalidArgument,
                  "input 'word_embedding_scale' is float [2]; it must be one float");
  NodeTest unscaled("QEmbedLayerNormalization", 1, kMs);
  unscaled.Input<int32_t>({kB, kS}, Ids())
      .MissingInput()
      .Input<uint8_t>({kV, kH}, t.words)
      .Input<int8_t>({kP, kH}, t.positions)
      .MissingInput()
      .Input<uint8_t>({kH}, t.gamma)
      .MissingInput()
      .MissingInput()
      .Input<float>({1}, {0.1f});
  ExpectNodeError(unscaled, ErrorCode::kInvalidArgument,
                  "input 'position_embedding_scale' (input 9) is missing");
  // gamma of the wrong type; an id outside the word table.
  NodeTest float_gamma("QEmbedLayerNormalization", 1, kMs);
  float_gamma.Input<int32_t>({kB, kS}, Ids())
      .MissingInput()
      .Input<uint8_t>({kV, kH}, t.words)
      .Input<int8_t>({kP, kH}, t.positions)
      .MissingInput()
      .Input<float>({kH}, t.dequantized.gamma);
  ExpectNodeError(float_gamma, ErrorCode::kInvalidArgument,
                  "input 'gamma' is float [8]; it must be uint8 or int8 [8]");
  NodeTest far("QEmbedLayerNormalization", 1, kMs);
  far.Input<int32_t>({1, 2}, {0, kV})
      .MissingInput()
      .Input<uint8_t>({kV, kH}, t.words)
      .Input<int8_t>({kP, kH}, t.positions)
      .MissingInput()
      .Input<uint8_t>({kH}, t.gamma)
      .MissingInput()
      .MissingInput();
  for (size_t k = 0; k < 5; ++k) far.Input<float>({1}, {QuantizedTables::kScale[k]});
  ExpectNodeError(far, ErrorCode::kInvalidArgument,
                  "input_ids of token [0, 1] is 5; its table has 5 rows");
}

}  // namespace
}  // namespace kiln::testing
