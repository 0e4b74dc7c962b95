// com.microsoft GatherBlockQuantized against a reference that walks the output coordinate by
// coordinate: uint8 data of 8, 4 and 2 bits with zero points packed and absent (2^(bits - 1)),
// int4 and uint4 data with quantize_axis and gather_axis elsewhere than last and first, blocks
// that do not divide the axis, negative indices, int32 and int64 indices, float, float16 and
// bfloat16 scales, 1 and 2 threads; and each error naming its input or attribute.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/tensor.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

int64_t Product(const V& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= d[i];
  return p;
}

// Values in [lo, hi], deterministic.
std::vector<int> Codes(size_t n, uint32_t seed, int lo, int hi) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = lo + static_cast<int>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }
  return v;
}

// Rows of `cols` values of `bits` bits packed into bytes from the low bits up, each row starting
// a new byte.
std::vector<uint8_t> PackRows(const std::vector<int>& v, size_t cols, int bits) {
  const size_t per = 8 / static_cast<size_t>(bits);
  const size_t row_bytes = (cols + per - 1) / per;
  const size_t rows = v.size() / cols;
  std::vector<uint8_t> out(rows * row_bytes, 0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      out[r * row_bytes + c / per] |=
          static_cast<uint8_t>((v[r * cols + c] & ((1 << bits) - 1)) << ((c % per) * bits));
    }
  }
  return out;
}

std::shared_ptr<Tensor> Raw(DataType t, V shape, const std::vector<uint8_t>& bytes) {
  std::shared_ptr<Tensor> r = Tensor::Allocate(t, Shape(std::move(shape)), CpuAllocator());
  EXPECT_EQ(r->byte_size(), bytes.size());
  std::memcpy(r->data(), bytes.data(), bytes.size());
  return r;
}

// One case: logical data codes, scales and zero points (nullptr-like: empty), and the reference.
struct Case {
  DataType type = DataType::kUint8;
  int bits = 4;
  V dims;  // logical
  int64_t gather_axis = 0, quantize_axis = 1, block = 16;
  std::vector<int> codes, zeros;  // zeros empty: none given
  std::vector<float> scales;
  std::vector<int64_t> indices;
  V index_dims;

  V ScaleDims() const {
    V s = dims;
    const auto q = static_cast<size_t>(quantize_axis);
    s[q] = (dims[q] + block - 1) / block;
    return s;
  }

  int DefaultZero() const { return type == DataType::kUint8 ? 1 << (bits - 1) : 0; }

  std::vector<double> Reference() const {
    const auto g = static_cast<size_t>(gather_axis);
    const auto q = static_cast<size_t>(quantize_axis);
    const V sd = ScaleDims();
    V out_dims(dims.begin(), dims.begin() + gather_axis);
    out_dims.insert(out_dims.end(), index_dims.begin(), index_dims.end());
    out_dims.insert(out_dims.end(), dims.begin() + gather_axis + 1, dims.end());
    const int64_t total = Product(out_dims, 0, out_dims.size());
    std::vector<double> y;
    for (int64_t o = 0; o < total; ++o) {
      // The output coordinate, then the data coordinate it reads.
      V oc(out_dims.size());
      int64_t rest = o;
      for (size_t a = out_dims.size(); a-- > 0;) {
        oc[a] = rest % out_dims[a];
        rest /= out_dims[a];
      }
      V dc(oc.begin(), oc.begin() + gather_axis);
      int64_t flat_index = 0;
      for (size_t a = 0; a < index_dims.size(); ++a)
        flat_index = flat_index * index_dims[a] + oc[g + a];
      int64_t row = indices[static_cast<size_t>(flat_index)];
      if (row < 0) row += dims[g];
      dc.push_back(row);
      dc.insert(dc.end(), oc.begin() + gather_axis + static_cast<int64_t>(index_dims.size()),
                oc.end());
      int64_t d = 0, s = 0;
      for (size_t a = 0; a < dims.size(); ++a) {
        d = d * dims[a] + dc[a];
        s = s * sd[a] + (a == q ? dc[a] / block : dc[a]);
      }
      const int zero = zeros.empty() ? DefaultZero() : zeros[static_cast<size_t>(s)];
      y.push_back(static_cast<double>(codes[static_cast<size_t>(d)] - zero) *
                  scales[static_cast<size_t>(s)]);
    }
    return y;
  }

  NodeTest Node(DataType scale_type = DataType::kFloat, bool int32_indices = false) const {
    NodeTest n("GatherBlockQuantized", 1, kMs);
    n.Attr("gather_axis", gather_axis)
        .Attr("quantize_axis", quantize_axis)
        .Attr("block_size", block)
        .Attr("bits", int64_t{bits});
    const V sd = ScaleDims();
    if (type == DataType::kUint8) {
      V stored = dims;
      stored.back() /= 8 / bits;
      n.Input(Raw(type, stored, PackRows(codes, static_cast<size_t>(dims.back()), bits)));
    } else {
      n.Input(Raw(type, dims, PackRows(codes, codes.size(), 4)));
    }
    if (int32_indices) {
      n.Input<int32_t>(index_dims, std::vector<int32_t>(indices.begin(), indices.end()));
    } else {
      n.Input<int64_t>(index_dims, indices);
    }
    if (scale_type == DataType::kFloat) {
      n.Input<float>(sd, scales);
    } else if (scale_type == DataType::kFloat16) {
      std::vector<Float16> h;
      for (float f : scales) h.push_back(Float16::FromFloat(f));
      n.Input<Float16>(sd, h);
    } else {
      std::vector<BFloat16> b;
      for (float f : scales) b.push_back(BFloat16::FromFloat(f));
      n.Input<BFloat16>(sd, b);
    }
    if (!zeros.empty()) {
      if (type == DataType::kUint8) {
        V zd = sd;
        const int64_t per = 8 / bits;
        zd.back() = (zd.back() + per - 1) / per;
        n.Input(Raw(type, zd, PackRows(zeros, static_cast<size_t>(sd.back()), bits)));
      } else {
        n.Input(Raw(type, sd, PackRows(zeros, zeros.size(), 4)));
      }
    }
    return n;
  }
};

// A uint8 table [rows, cols] of `bits` bits, blocks of 16 along the columns.
Case Bytes(int bits, bool zeros, uint32_t seed) {
  Case c;
  c.bits = bits;
  c.dims = {7, 48};  // three blocks of 16; 24, 12 or 48 bytes a row
  const int hi = (1 << bits) - 1;
  c.codes = Codes(size_t{7} * 48, seed, 0, hi);
  const V sd = c.ScaleDims();
  const auto n = static_cast<size_t>(Product(sd, 0, sd.size()));
  c.scales.clear();
  for (int v : Codes(n, seed + 1, 1, 50)) c.scales.push_back(0.01f * static_cast<float>(v));
  if (zeros) c.zeros = Codes(n, seed + 2, 0, hi);
  c.indices = {6, 0, -1, 3, 3, -7};
  c.index_dims = {2, 3};
  return c;
}

void ExpectMatches(const Case& c, DataType scale_type = DataType::kFloat,
                   bool int32_indices = false) {
  const std::vector<double> want = c.Reference();
  for (int threads : {1, 2}) {
    auto out = c.Node(scale_type, int32_indices).Run(threads);
    ASSERT_EQ(out[0]->type(), scale_type);
    ASSERT_EQ(static_cast<size_t>(out[0]->element_count()), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      double got = 0;
      if (scale_type == DataType::kFloat) {
        got = Values<float>(*out[0])[i];
      } else if (scale_type == DataType::kFloat16) {
        got = Values<Float16>(*out[0])[i].ToFloat();
      } else {
        got = Values<BFloat16>(*out[0])[i].ToFloat();
      }
      const double tol = scale_type == DataType::kFloat ? 1e-6 : 1e-2;
      ASSERT_NEAR(got, want[i], tol * (1 + std::abs(want[i])))
          << "element " << i << " threads " << threads;
    }
  }
}

TEST(QuantGatherBlockQuantized, Uint8OfEachWidthWithAndWithoutZeroPoints) {
  for (int bits : {8, 4, 2}) {
    for (bool zeros : {true, false}) {
      SCOPED_TRACE(::testing::Message() << bits << " bits, zero points " << zeros);
      const Case c = Bytes(bits, zeros, 40u + static_cast<uint32_t>(bits));
      ExpectMatches(c);
      auto out = c.Node().Run();
      EXPECT_EQ(out[0]->shape(), Shape({2, 3, 48}));
    }
  }
  // 8 bits are not packed: any quantize_axis, zero points of the scales' shape.
  Case first_axis = Bytes(8, true, 12);
  first_axis.quantize_axis = 0;
  first_axis.gather_axis = 1;
  first_axis.indices = {47, -48, 16};
  first_axis.index_dims = {3};
  const auto blocks = static_cast<size_t>(first_axis.ScaleDims()[0] * 48);
  first_axis.scales.resize(blocks, 0.25f);
  first_axis.zeros.resize(blocks, 100);
  ExpectMatches(first_axis);
  ExpectMatches(Bytes(4, true, 9), DataType::kFloat, /*int32_indices=*/true);
  ExpectMatches(Bytes(4, true, 9), DataType::kFloat16);
  ExpectMatches(Bytes(4, false, 9), DataType::kBfloat16);
}

TEST(QuantGatherBlockQuantized, Int4AndUint4OnOtherAxes) {
  for (DataType type : {DataType::kInt4, DataType::kUint4}) {
    for (bool zeros : {true, false}) {
      SCOPED_TRACE(::testing::Message() << DataTypeName(type) << " zero points " << zeros);
      // data [3, 40, 5]: quantized along axis 1 in blocks of 16 (three, the last short),
      // gathered along axis 2.
      Case c;
      c.type = type;
      c.dims = {3, 40, 5};
      c.quantize_axis = 1;
      c.gather_axis = 2;
      const bool sign = type == DataType::kInt4;
      c.codes = Codes(size_t{3} * 40 * 5, 77, sign ? -8 : 0, sign ? 7 : 15);
      const auto n = static_cast<size_t>(3 * 3 * 5);
      for (int v : Codes(n, 78, 1, 40)) c.scales.push_back(0.02f * static_cast<float>(v));
      if (zeros) c.zeros = Codes(n, 79, sign ? -8 : 0, sign ? 7 : 15);
      c.indices = {4, -5, 2, 2};
      c.index_dims = {4};
      ExpectMatches(c);
      // Gathered along the quantized axis itself, by a negative axis attribute.
      c.gather_axis = -2;
      c.indices = {39, 0, 17, -24};
      c.index_dims = {2, 2};
      Case d = c;
      d.gather_axis = 1;  // the reference takes it normalised
      const std::vector<double> want = d.Reference();
      auto out = c.Node().Run(2);
      EXPECT_EQ(out[0]->shape(), Shape({3, 2, 2, 5}));
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(Values<float>(*out[0])[i], want[i], 1e-6 * (1 + std::abs(want[i])));
      }
    }
  }
}

TEST(QuantGatherBlockQuantized, Errors) {
  const Case c = Bytes(4, true, 5);
  Case far = c;
  far.indices = {6, 0, 7, 3, 3, 1};
  ExpectNodeError(far.Node(), ErrorCode::kInvalidArgument,
                  "indices element 2 is 7; gather_axis 0 of 'data' has 7 entries");
  far.indices = {6, 0, -8, 3, 3, 1};
  ExpectNodeError(far.Node(), ErrorCode::kInvalidArgument, "indices element 2 is -8");
  // Scales of the wrong number of blocks.
  NodeTest wide("GatherBlockQuantized", 1, kMs);
  wide.Attr("block_size", int64_t{32})
      .Input(Raw(DataType::kUint8, {7, 24}, PackRows(c.codes, 48, 4)))
      .Input<int64_t>({1}, {0})
      .Input<float>({7, 3}, c.scales);
  ExpectNodeError(wide, ErrorCode::kInvalidArgument,
                  "input 'scales' has shape [7,3]; it must be [7,2]");
  // Zero points not packed.
  NodeTest unpacked("GatherBlockQuantized", 1, kMs);
  unpacked.Attr("block_size", int64_t{16})
      .Input(Raw(DataType::kUint8, {7, 24}, PackRows(c.codes, 48, 4)))
      .Input<int64_t>({1}, {0})
      .Input<float>({7, 3}, c.scales)
      .Input<uint8_t>({7, 3}, std::vector<uint8_t>(21, 8));
  ExpectNodeError(unpacked, ErrorCode::kInvalidArgument,
                  "input 'zero_points' is uint8 [7,3]; it must be uint8 [7,2], packed");
  Case odd_block = c;
  odd_block.block = 24;  // two blocks a row
  odd_block.scales.resize(14);
  odd_block.zeros.resize(14);
  ExpectNodeError(odd_block.Node(), ErrorCode::kInvalidGraph,
                  "attribute 'block_size' is 24; it must be a power of 2, 16 or more");
  Case three = c;
  three.bits = 3;
  ExpectNodeError(three.Node(), ErrorCode::kInvalidGraph,
                  "attribute 'bits' is 3; it must be 2, 4 or 8");
  NodeTest first("GatherBlockQuantized", 1, kMs);
  first.Attr("quantize_axis", int64_t{0})
      .Input(Raw(DataType::kUint8, {7, 24}, PackRows(c.codes, 48, 4)))
      .Input<int64_t>({1}, {0})
      .Input<float>({1, 48}, std::vector<float>(48, 1.0f));
  ExpectNodeError(first, ErrorCode::kInvalidArgument, "quantize_axis must be the last axis (1)");
  Case outside = c;
  outside.gather_axis = 2;
  ExpectNodeError(outside.Node(), ErrorCode::kInvalidArgument,
                  "attribute 'gather_axis' is 2; input 'data' has rank 2");
  NodeTest float8("GatherBlockQuantized", 1, kMs);
  float8.Input(Raw(DataType::kFloat8E4M3FN, {2, 16}, std::vector<uint8_t>(32, 0x38)))
      .Input<int64_t>({1}, {0})
      .Input<float>({2, 1}, {1.0f, 1.0f});
  ExpectNodeError(float8, ErrorCode::kNotImplemented, "input 'data' is float8e4m3fn");
  NodeTest int4_bits("GatherBlockQuantized", 1, kMs);
  int4_bits.Attr("bits", int64_t{8})
      .Input(Raw(DataType::kInt4, {2, 16}, std::vector<uint8_t>(16, 0)))
      .Input<int64_t>({1}, {0})
      .Input<float>({2, 1}, {1.0f, 1.0f});
  ExpectNodeError(int4_bits, ErrorCode::kInvalidArgument,
                  "attribute 'bits' is 8; int4 data holds 4 bits a value");
  NodeTest bad_indices("GatherBlockQuantized", 1, kMs);
  bad_indices.Input(Raw(DataType::kUint8, {7, 24}, PackRows(c.codes, 48, 4)))
      .Input<float>({1}, {0.0f})
      .Input<float>({7, 3}, c.scales)
      .Attr("block_size", int64_t{16});
  ExpectNodeError(bad_indices, ErrorCode::kInvalidArgument,
                  "input 'indices' is float; it must be int32 or int64");
}

}  // namespace
}  // namespace kiln::testing
