// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv: small products worked out by hand,
// zero points and scales per tensor and per row/column/channel, broadcasting, and every error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using U8 = std::vector<uint8_t>;
using I32 = std::vector<int32_t>;

TEST(QuantMatMulInteger, ZeroPointsAndBroadcasting) {
  auto out = NodeTest("MatMulInteger", 10)
                 .Input<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<uint8_t>({3, 2}, {1, 0, 0, 1, 1, 1})
                 .Input<uint8_t>({}, {1})
                 .Input<uint8_t>({}, {0})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (I32{2, 3, 8, 9}));
  auto per_row = NodeTest("MatMulInteger", 10)
                     .Input<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6})
                     .Input<uint8_t>({3, 2}, {1, 0, 0, 1, 1, 1})
                     .Input<uint8_t>({2}, {1, 0})
                     .Run();
  EXPECT_EQ(Values<int32_t>(*per_row[0]), (I32{2, 3, 10, 11}));
  auto batched = NodeTest("MatMulInteger", 10)
                     .Input<int8_t>({2, 1, 2}, {1, 2, -3, 4})
                     .Input<int8_t>({2, 1}, {1, 1})
                     .Run();
  EXPECT_EQ(batched[0]->shape(), Shape({2, 1, 1}));
  EXPECT_EQ(Values<int32_t>(*batched[0]), (I32{3, 1}));
  auto vec = NodeTest("MatMulInteger", 10)
                 .Input<uint8_t>({3}, {1, 2, 3})
                 .Input<int8_t>({3, 2}, {1, -1, 1, -1, 1, -1})
                 .Run();
  EXPECT_EQ(vec[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<int32_t>(*vec[0]), (I32{6, -6}));
  auto empty = NodeTest("MatMulInteger", 10)
                   .Input<uint8_t>({0, 3}, {})
                   .Input<uint8_t>({3, 2}, {1, 0, 0, 1, 1, 1})
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 2}));
}

TEST(QuantMatMulInteger, Errors) {
  ExpectNodeError(
      NodeTest("MatMulInteger", 10).Input<float>({1, 1}, {1}).Input<uint8_t>({1, 1}, {1}),
      ErrorCode::kInvalidArgument, "input 'A'");
  ExpectNodeError(NodeTest("MatMulInteger", 10)
                      .Input<uint8_t>({1, 2}, {1, 2})
                      .Input<uint8_t>({3, 1}, {1, 2, 3}),
                  ErrorCode::kInvalidArgument, "inner");
  ExpectNodeError(NodeTest("MatMulInteger", 10)
                      .Input<uint8_t>({2, 1, 1}, {1, 2})
                      .Input<uint8_t>({3, 1, 1}, {1, 2, 3}),
                  ErrorCode::kInvalidArgument, "broadcast");
  ExpectNodeError(NodeTest("MatMulInteger", 10)
                      .Input<uint8_t>({2, 1}, {1, 2})
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<uint8_t>({3}, {1, 2, 3}),
                  ErrorCode::kInvalidArgument, "a_zero_point");
  ExpectNodeError(NodeTest("MatMulInteger", 10)
                      .Input<uint8_t>({2, 1}, {1, 2})
                      .Input<uint8_t>({1, 1}, {1})
                      .MissingInput()
                      .Input<int8_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "b_zero_point");
  ExpectNodeError(NodeTest("MatMulInteger", 10).Input<uint8_t>({}, {1}).Input<uint8_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "rank 1");
}

NodeTest QMatMul(int64_t opset, const std::vector<float>& b_scale, const U8& b,
                 std::vector<int64_t> b_shape) {
  NodeTest t("QLinearMatMul", opset);
  const auto n = static_cast<int64_t>(b_scale.size());
  t.Input<uint8_t>({1, 2}, {10, 20})
      .Input<float>({}, {0.5f})
      .Input<uint8_t>({}, {0})
      .Input<uint8_t>(std::move(b_shape), b)
      .Input<float>({n}, b_scale)
      .Input<uint8_t>({}, {0})
      .Input<float>({}, {2})
      .Input<uint8_t>({}, {1});
  return t;
}

TEST(QuantQLinearMatMul, RequantizesPerTensorAndPerColumn) {
  auto out = QMatMul(10, {1}, {2, 4}, {2, 1}).Run();
  // acc 100, multiplier 0.5 * 1 / 2: 25 + 1.
  EXPECT_EQ(Values<uint8_t>(*out[0]), (U8{26}));
  // acc [30, 60], multipliers [0.25, 0.5]: 7.5 rounds to even 8.
  auto cols = QMatMul(10, {1, 2}, {1, 2, 1, 2}, {2, 2}).Run();
  EXPECT_EQ(Values<uint8_t>(*cols[0]), (U8{9, 31}));
  const Float16 h = Float16::FromFloat(0.1f);
  const Float16 one = Float16::FromFloat(1);
  auto half = NodeTest("QLinearMatMul", 21)
                  .Input<int8_t>({1, 1}, {100})
                  .Input<Float16>({1}, {h})
                  .Input<int8_t>({1}, {0})
                  .Input<int8_t>({1, 1}, {1})
                  .Input<Float16>({1}, {one})
                  .Input<int8_t>({1}, {0})
                  .Input<Float16>({1}, {one})
                  .Input<int8_t>({1}, {-1})
                  .Run();
  EXPECT_EQ(Values<int8_t>(*half[0]), (std::vector<int8_t>{9}));  // 9.9976 -> 10, - 1
}

// QLinearMatMul on Int8Gemm against its definition over random bytes: b constant (packed at
// creation) and not, b's scale and zero point per tensor and per column, a batch of A, 1 and 2
// threads, uint8 and int8 outputs.
template <typename TA, typename TB, typename TY>
void CheckQLinearMatMul(bool per_column, bool constant_b) {
  const int64_t batch = 2, m = 9, k = 45, n = 37;
  uint32_t state = 7;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<int32_t>(state >> 24);
  };
  const auto shifted = [](int32_t v, bool is_signed) { return is_signed ? v - 128 : v; };
  constexpr bool kAS = std::is_signed_v<TA>, kBS = std::is_signed_v<TB>;
  std::vector<int32_t> a32(static_cast<size_t>(batch * m * k)), b32(static_cast<size_t>(k * n));
  for (int32_t& v : a32) v = shifted(next(), kAS);
  for (int32_t& v : b32) v = shifted(next(), kBS);
  const size_t nb = per_column ? static_cast<size_t>(n) : 1;
  std::vector<float> bs(nb);
  std::vector<int32_t> bz32(nb);
  for (size_t j = 0; j < nb; ++j) {
    bs[j] = 0.001f * static_cast<float>(1 + next() % 7);
    bz32[j] = shifted(next(), kBS) / 4;
  }
  const int32_t az32 = shifted(next(), kAS) / 4;
  const float as = 0.02f, ys = 0.3f;
  const int32_t yz32 = std::is_signed_v<TY> ? -5 : 120;
  const auto bytes = [](const std::vector<int32_t>& v, auto zero) {
    std::vector<decltype(zero)> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<decltype(zero)>(v[i]);
    return out;
  };
  std::vector<TY> want(static_cast<size_t>(batch * m * n));
  for (int64_t t = 0; t < batch; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int32_t acc = 0;
        const int32_t bz = bz32[per_column ? static_cast<size_t>(j) : 0];
        for (int64_t p = 0; p < k; ++p) {
          acc += (a32[static_cast<size_t>((t * m + i) * k + p)] - az32) *
                 (b32[static_cast<size_t>(p * n + j)] - bz);
        }
        const auto ab = static_cast<float>(static_cast<double>(as) *
                                           bs[per_column ? static_cast<size_t>(j) : 0]);
        const auto mult = static_cast<float>(static_cast<double>(ab) / ys);
        const double q = std::nearbyint(acc * static_cast<double>(mult)) + yz32;
        const double lo = std::numeric_limits<TY>::lowest(), hi = std::numeric_limits<TY>::max();
        want[static_cast<size_t>((t * m + i) * n + j)] = static_cast<TY>(std::clamp(q, lo, hi));
      }
    }
  }
  const std::vector<int64_t> bshape = per_column ? std::vector<int64_t>{n} : std::vector<int64_t>{};
  for (int threads : {1, 2}) {
    NodeTest t("QLinearMatMul", 10);
    t.Input<TA>({batch, m, k}, bytes(a32, TA{}));
    t.Input<float>({}, {as});
    t.Input<TA>({}, {static_cast<TA>(az32)});
    t.Input<TB>({k, n}, bytes(b32, TB{}), constant_b);
    t.Input<float>(bshape, bs);
    t.Input<TB>(bshape, bytes(bz32, TB{}));
    t.Input<float>({}, {ys});
    t.Input<TY>({}, {static_cast<TY>(yz32)});
    EXPECT_EQ(Values<TY>(*t.Run(threads)[0]), want)
        << "per_column " << per_column << " constant " << constant_b << " threads " << threads;
  }
}

TEST(QuantQLinearMatMul, Int8ProductMatchesTheDefinition) {
  for (bool per_column : {false, true}) {
    for (bool constant : {false, true}) {
      CheckQLinearMatMul<uint8_t, int8_t, uint8_t>(per_column, constant);
      CheckQLinearMatMul<int8_t, uint8_t, int8_t>(per_column, constant);
    }
  }
}

TEST(QuantQLinearMatMul, Errors) {
  const Float16 one = Float16::FromFloat(1);
  ExpectNodeError(NodeTest("QLinearMatMul", 10)
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<Float16>({}, {one})
                      .Input<uint8_t>({}, {0})
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<Float16>({}, {one})
                      .Input<uint8_t>({}, {0})
                      .Input<Float16>({}, {one})
                      .Input<uint8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "a_scale");
  ExpectNodeError(NodeTest("QLinearMatMul", 21)
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<Float16>({}, {one})
                      .Input<uint8_t>({}, {0})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "same element type");
  ExpectNodeError(NodeTest("QLinearMatMul", 10)
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<uint8_t>({1, 1}, {1})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<float>({}, {1})
                      .Input<int32_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "y_zero_point");
  ExpectNodeError(QMatMul(10, {1, 1}, {1, 2, 3, 4, 5, 6}, {2, 3}), ErrorCode::kInvalidArgument,
                  "b_scale");
}

TEST(QuantConvInteger, ZeroPointsPaddingAndChannels) {
  const U8 x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto out = NodeTest("ConvInteger", 10)
                 .Input<uint8_t>({1, 1, 3, 3}, x)
                 .Input<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1})
                 .Input<uint8_t>({}, {1})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 2, 2}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (I32{8, 12, 20, 24}));
  auto padded = NodeTest("ConvInteger", 10)
                    .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                    .Input<uint8_t>({1, 1, 3, 3}, x)
                    .Input<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1})
                    .Input<uint8_t>({}, {1})
                    .Run();
  EXPECT_EQ(padded[0]->shape(), Shape({1, 1, 4, 4}));
  EXPECT_EQ(Values<int32_t>(*padded[0]),
            (I32{0, 1, 3, 2, 3, 8, 12, 7, 9, 20, 24, 13, 6, 13, 15, 8}));
  auto channels = NodeTest("ConvInteger", 10)
                      .Input<uint8_t>({1, 1, 1, 2}, {3, 4})
                      .Input<int8_t>({2, 1, 1, 1}, {2, 3})
                      .MissingInput()
                      .Input<int8_t>({2}, {1, 1})
                      .Run();
  EXPECT_EQ(Values<int32_t>(*channels[0]), (I32{3, 4, 6, 8}));
}

// ConvInteger on the unfolded-rows path against a direct loop over random bytes: groups (one,
// two, depthwise), strides, dilations, asymmetric padding, 1-D and 2-D, a batch of two, every
// pairing of int8 and uint8, w's zero point per tensor and per channel (per run, constant or left
// out), w constant (packed at creation) and not, 1 and 2 threads.
// w_zero_point given per run, as a constant (the depthwise weights then made once at creation),
// or left out (0).
enum class WeightZero { kRuntime, kConstant, kAbsent };

template <typename TX, typename TW>
void CheckConvInteger(int64_t c, int64_t m, int64_t group, std::vector<int64_t> spatial,
                      std::vector<int64_t> kernel, int64_t stride, int64_t dilation,
                      std::vector<int64_t> pads, bool per_channel, bool constant_w,
                      WeightZero w_zero = WeightZero::kRuntime) {
  const size_t rank = spatial.size();
  std::vector<int64_t> x_shape{2, c};
  std::vector<int64_t> w_shape{m, c / group};
  for (size_t d = 0; d < rank; ++d) {
    x_shape.push_back(spatial[d]);
    w_shape.push_back(kernel[d]);
  }
  size_t nx = 1, nw = 1;
  for (int64_t d : x_shape) nx *= static_cast<size_t>(d);
  for (int64_t d : w_shape) nw *= static_cast<size_t>(d);
  uint32_t state = 99;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<uint8_t>(state >> 24);
  };
  // Values in each type's range as int32 (for the reference), and as the inputs' bytes.
  const auto in_range = [&](bool is_signed) {
    const int32_t v = next();
    return is_signed ? v - 128 : v;
  };
  constexpr bool kXSigned = std::is_signed_v<TX>;
  constexpr bool kWSigned = std::is_signed_v<TW>;
  std::vector<int32_t> x32(nx), w32(nw), wz32(per_channel ? static_cast<size_t>(m) : 1);
  for (int32_t& v : x32) v = in_range(kXSigned);
  for (int32_t& v : w32) v = in_range(kWSigned);
  const int32_t xz32 = in_range(kXSigned);
  for (int32_t& v : wz32) v = w_zero == WeightZero::kAbsent ? 0 : in_range(kWSigned);
  const auto bytes_of = [](const std::vector<int32_t>& v, auto zero) {
    std::vector<decltype(zero)> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<decltype(zero)>(v[i]);
    return out;
  };
  const std::vector<TX> x = bytes_of(x32, TX{});
  const std::vector<TW> w = bytes_of(w32, TW{});
  const std::vector<TW> wz = bytes_of(wz32, TW{});
  const auto xz = static_cast<TX>(xz32);
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t extent = (kernel[d] - 1) * dilation + 1;
    out[d] = (spatial[d] + pads[d] + pads[d + rank] - extent) / stride + 1;
  }
  size_t plane = 1;
  for (int64_t o : out) plane *= static_cast<size_t>(o);
  std::vector<int32_t> want(2 * static_cast<size_t>(m) * plane);
  const int64_t gc = c / group, gf = m / group;
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t f = 0; f < m; ++f) {
      const int32_t zw = wz32[per_channel ? static_cast<size_t>(f) : 0];
      for (size_t o = 0; o < plane; ++o) {
        // The output position's coordinates (row-major over `out`).
        std::vector<int64_t> pos(rank);
        size_t rest = o;
        for (size_t d = rank; d-- > 0;) {
          pos[d] = static_cast<int64_t>(rest % static_cast<size_t>(out[d]));
          rest /= static_cast<size_t>(out[d]);
        }
        int32_t sum = 0;
        for (int64_t cc = 0; cc < gc; ++cc) {
          const int64_t ch = (f / gf) * gc + cc;
          size_t taps = 1;
          for (int64_t kd : kernel) taps *= static_cast<size_t>(kd);
          for (size_t t = 0; t < taps; ++t) {
            std::vector<int64_t> kk(rank);
            size_t tr = t;
            for (size_t d = rank; d-- > 0;) {
              kk[d] = static_cast<int64_t>(tr % static_cast<size_t>(kernel[d]));
              tr /= static_cast<size_t>(kernel[d]);
            }
            size_t xi = static_cast<size_t>(n * c + ch);
            bool inside = true;
            for (size_t d = 0; d < rank; ++d) {
              const int64_t at = pos[d] * stride - pads[d] + kk[d] * dilation;
              inside = inside && at >= 0 && at < spatial[d];
              xi = xi * static_cast<size_t>(spatial[d]) + static_cast<size_t>(inside ? at : 0);
            }
            if (!inside) continue;
            const size_t wi = static_cast<size_t>(f * gc + cc) * taps + t;
            sum += (x32[xi] - xz32) * (w32[wi] - zw);
          }
        }
        want[(static_cast<size_t>(n * m + f)) * plane + o] = sum;
      }
    }
  }
  for (int threads : {1, 2}) {
    NodeTest t("ConvInteger", 10);
    t.Attr("group", group)
        .Attr("strides", std::vector<int64_t>(rank, stride))
        .Attr("dilations", std::vector<int64_t>(rank, dilation))
        .Attr("pads", pads);
    t.Input<TX>(x_shape, x);
    t.Input<TW>(w_shape, w, constant_w);
    t.Input<TX>({}, {xz});
    if (w_zero != WeightZero::kAbsent) {
      t.Input<TW>(per_channel ? std::vector<int64_t>{m} : std::vector<int64_t>{}, wz,
                  w_zero == WeightZero::kConstant);
    }
    EXPECT_EQ(Values<int32_t>(*t.Run(threads)[0]), want)
        << "c " << c << " m " << m << " group " << group << " rank " << rank << " stride " << stride
        << " dilation " << dilation << " threads " << threads;
  }
}

TEST(QuantConvInteger, UnfoldedRowsMatchADirectLoop) {
  for (bool constant : {false, true}) {
    CheckConvInteger<uint8_t, int8_t>(6, 8, 1, {9, 8}, {3, 3}, 1, 1, {1, 1, 1, 1}, true, constant);
    CheckConvInteger<int8_t, uint8_t>(6, 4, 2, {9, 7}, {3, 2}, 2, 1, {0, 1, 2, 0}, false, constant);
    CheckConvInteger<uint8_t, uint8_t>(4, 4, 4, {10, 10}, {3, 3}, 1, 2, {2, 2, 2, 2}, true,
                                       constant);
    CheckConvInteger<int8_t, int8_t>(5, 7, 1, {23}, {5}, 2, 1, {2, 1}, true, constant);
    CheckConvInteger<uint8_t, int8_t>(3, 33, 1, {11, 11}, {1, 1}, 1, 1, {0, 0, 0, 0}, false,
                                      constant);
    // Depthwise over 40 channels (a chunk of 32 in tap pairs, 8 after), the weights' zero points
    // constant or left out.
    for (WeightZero z : {WeightZero::kConstant, WeightZero::kAbsent}) {
      CheckConvInteger<uint8_t, int8_t>(40, 40, 40, {9, 8}, {3, 3}, 1, 1, {1, 1, 1, 1}, true,
                                        constant, z);
      CheckConvInteger<int8_t, uint8_t>(40, 40, 40, {7, 9}, {5, 5}, 2, 1, {2, 2, 2, 2}, false,
                                        constant, z);
    }
  }
}

TEST(QuantConvInteger, Errors) {
  ExpectNodeError(
      NodeTest("ConvInteger", 10).Input<uint8_t>({1, 1}, {1}).Input<uint8_t>({1, 1}, {1}),
      ErrorCode::kInvalidArgument, "input 'x'");
  ExpectNodeError(
      NodeTest("ConvInteger", 10).Input<uint8_t>({1, 1, 1}, {1}).Input<uint8_t>({1, 1, 1, 1}, {1}),
      ErrorCode::kInvalidArgument, "input 'w'");
  ExpectNodeError(NodeTest("ConvInteger", 10)
                      .Attr("group", int64_t{2})
                      .Input<uint8_t>({1, 3, 1}, {1, 2, 3})
                      .Input<uint8_t>({2, 1, 1}, {1, 1}),
                  ErrorCode::kInvalidArgument, "group");
  ExpectNodeError(NodeTest("ConvInteger", 10)
                      .Attr("group", int64_t{0})
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<uint8_t>({1, 1, 1}, {1}),
                  ErrorCode::kInvalidArgument, "group");
  ExpectNodeError(NodeTest("ConvInteger", 10)
                      .Attr("kernel_shape", std::vector<int64_t>{2})
                      .Input<uint8_t>({1, 1, 3}, {1, 2, 3})
                      .Input<uint8_t>({1, 1, 1}, {1}),
                  ErrorCode::kInvalidArgument, "kernel_shape");
  ExpectNodeError(NodeTest("ConvInteger", 10)
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<uint8_t>({3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "w_zero_point");
  ExpectNodeError(NodeTest("ConvInteger", 10)
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<int8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "x_zero_point");
}

NodeTest QConv(bool bias_ok) {
  NodeTest t("QLinearConv", 10);
  t.Input<uint8_t>({1, 1, 2, 2}, {2, 4, 6, 8})
      .Input<float>({}, {0.5f})
      .Input<uint8_t>({}, {0})
      .Input<int8_t>({1, 1, 1, 1}, {2})
      .Input<float>({1}, {1})
      .Input<int8_t>({1}, {0})
      .Input<float>({}, {1})
      .Input<uint8_t>({}, {5});
  if (bias_ok) {
    t.Input<int32_t>({1}, {1});
  } else {
    t.Input<int32_t>({2}, {1, 1});
  }
  return t;
}

TEST(QuantQLinearConv, BiasAndRequantization) {
  // acc = 2x + 1 = [5, 9, 13, 17], times 0.5 rounds half to even: [2, 4, 6, 8], plus 5.
  auto out = QConv(true).Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 2, 2}));
  EXPECT_EQ(Values<uint8_t>(*out[0]), (U8{7, 9, 11, 13}));
}

TEST(QuantQLinearConv, Errors) {
  ExpectNodeError(QConv(false), ErrorCode::kInvalidArgument, "input 'B'");
  ExpectNodeError(NodeTest("QLinearConv", 10)
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<int32_t>({}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<uint8_t>({1, 1, 1}, {1})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "x_scale");
}

}  // namespace
}  // namespace kiln::testing
