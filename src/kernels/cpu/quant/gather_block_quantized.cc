// com.microsoft GatherBlockQuantized (opset 1 of the domain): Gather of a table quantized
// block-wise, dequantized as it is read. What ONNX Runtime's LLM tooling writes for a quantized
// embedding table (often the one the output projection shares):
//   output = Gather(dequantized data, indices, axis = gather_axis), where data element d's value
//   is (q(d) - zero_point(b)) · scale(b), b its block: its index along quantize_axis divided by
//   block_size, the other indices as they are.
// Inputs: data uint8 (with attribute bits 8, 4 or 2: 1, 2 or 4 values per byte from its low bits
// up, along the last axis, which must then be quantize_axis), int4 or uint4 (bits 4); indices
// int32 or int64 (negative ones count from the end); scales float, float16 or bfloat16, data's
// shape with quantize_axis ceil(length / block_size); zero_points optional: for uint8 data uint8,
// packed along the last axis as data is, absent 2^(bits - 1); for int4/uint4 data's type, scales'
// shape, absent 0. Output: scales' type, data's (unpacked) shape with gather_axis replaced by
// indices' shape. Attributes gather_axis (0), quantize_axis (1), block_size (128; a power of two,
// 16 or more), bits (4). Unlike ONNX Runtime, which writes zeros for an index outside the table,
// such an index is refused, naming it, before anything is written.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/quant/quant_kernels.h"

namespace kiln::cpu {
namespace {

class GatherBlockQuantized final : public Kernel {
 public:
  explicit GatherBlockQuantized(const KernelInfo& info)
      : gather_axis_(info.GetInt("gather_axis", 0)),
        quantize_axis_(info.GetInt("quantize_axis", 1)),
        block_size_(info.GetInt("block_size", 128)),
        bits_(info.GetInt("bits", 4)) {
    if (block_size_ < 16 || (block_size_ & (block_size_ - 1)) != 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'block_size' is " +
                                              std::to_string(block_size_) +
                                              "; it must be a power of 2, 16 or more");
    }
    if (bits_ != 2 && bits_ != 4 && bits_ != 8) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'bits' is " + std::to_string(bits_) + "; it must be 2, 4 or 8");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& data = ctx.Input(0);
    const Tensor& indices = ctx.Input(1);
    const Tensor& scales = ctx.Input(2);
    const Tensor* zeros = ctx.OptionalInput(3);
    const DataType type = data.type();
    const bool bytes = type == DataType::kUint8;
    if (!bytes && type != DataType::kInt4 && type != DataType::kUint4) {
      info.Fail(IsFloat8Or4(type) ? ErrorCode::kNotImplemented : ErrorCode::kInvalidArgument,
                std::string("input 'data' is ") + DataTypeName(type) +
                    "; it must be uint8, int4 or uint4 (float8 and float4 tables are not "
                    "supported)");
    }
    if (!bytes && bits_ != 4) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'bits' is " + std::to_string(bits_) + "; " +
                                                 DataTypeName(type) + " data holds 4 bits a value");
    }
    const std::vector<int64_t>& stored = data.shape().dims();
    const auto rank = static_cast<int64_t>(stored.size());
    if (rank == 0) info.Fail(ErrorCode::kInvalidArgument, "input 'data' is a scalar");
    const int64_t g = Axis(info, gather_axis_, rank, "gather_axis");
    const int64_t q = Axis(info, quantize_axis_, rank, "quantize_axis");
    const int64_t components = bytes ? 8 / bits_ : 1;
    if (bytes && components > 1 && (q != rank - 1 || g == q)) {
      info.Fail(ErrorCode::kInvalidArgument, "with uint8 data of " + std::to_string(bits_) +
                                                 " bits, quantize_axis must be the last axis (" +
                                                 std::to_string(rank - 1) +
                                                 ") and gather_axis another; they are " +
                                                 std::to_string(q) + " and " + std::to_string(g));
    }
    // The logical dimensions (the last unpacked).
    std::vector<int64_t> dims = stored;
    dims.back() *= components;
    const int64_t blocks = (dims[static_cast<size_t>(q)] + block_size_ - 1) / block_size_;
    std::vector<int64_t> scale_dims = dims;
    scale_dims[static_cast<size_t>(q)] = blocks;
    const DataType out_type = scales.type();
    if (out_type != DataType::kFloat && out_type != DataType::kFloat16 &&
        out_type != DataType::kBfloat16) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'scales' is ") +
                                                 DataTypeName(out_type) +
                                                 "; it must be float, float16 or bfloat16");
    }
    if (scales.shape().dims() != scale_dims) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'scales' has shape " + scales.shape().ToString() + "; it must be " +
                    Shape(scale_dims).ToString() + ", data's with " +
                    std::to_string(dims[static_cast<size_t>(q)]) + " values along quantize_axis " +
                    std::to_string(q) + " in blocks of " + std::to_string(block_size_));
    }
    const int64_t zero_row = (blocks + components - 1) / components;  // packed zero points
    if (zeros != nullptr) {
      std::vector<int64_t> zero_dims = scale_dims;
      if (components > 1) zero_dims.back() = zero_row;  // along the last axis, quantize_axis
      if (zeros->type() != type || zeros->shape().dims() != zero_dims) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input 'zero_points' is ") + DataTypeName(zeros->type()) + " " +
                      zeros->shape().ToString() + "; it must be " + DataTypeName(type) + " " +
                      Shape(zero_dims).ToString() +
                      (bytes && components > 1 ? ", packed as data is" : ", scales' shape"));
      }
    }
    if (indices.type() != DataType::kInt32 && indices.type() != DataType::kInt64) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'indices' is ") +
                                                 DataTypeName(indices.type()) +
                                                 "; it must be int32 or int64");
    }
    const int64_t length = dims[static_cast<size_t>(g)];
    const auto count = static_cast<size_t>(indices.element_count());
    int64_t* rows = ctx.Scratch<int64_t>(std::max<size_t>(count, 1));
    for (size_t i = 0; i < count; ++i) {
      const int64_t v = indices.type() == DataType::kInt32
                            ? static_cast<const int32_t*>(indices.data())[i]
                            : static_cast<const int64_t*>(indices.data())[i];
      if (v < -length || v >= length) {
        info.Fail(ErrorCode::kInvalidArgument, "indices element " + std::to_string(i) + " is " +
                                                   std::to_string(v) + "; gather_axis " +
                                                   std::to_string(g) + " of 'data' has " +
                                                   std::to_string(length) + " entries");
      }
      rows[i] = v < 0 ? v + length : v;
    }

    std::vector<int64_t> out_dims(dims.begin(), dims.begin() + g);
    for (int64_t d : indices.shape().dims()) out_dims.push_back(d);
    out_dims.insert(out_dims.end(), dims.begin() + g + 1, dims.end());
    Tensor& y = ctx.OutputForOverwrite(0, out_type, out_dims);
    if (y.element_count() == 0) return;

    int64_t outer = 1;  // the axes before gather_axis
    for (int64_t a = 0; a < g; ++a) outer *= dims[static_cast<size_t>(a)];
    int64_t inner = 1;  // the axes after it
    for (int64_t a = g + 1; a < rank; ++a) inner *= dims[static_cast<size_t>(a)];
    int64_t after_q = 1;  // the axes after quantize_axis
    for (int64_t a = q + 1; a < rank; ++a) after_q *= dims[static_cast<size_t>(a)];
    const int64_t along_q = dims[static_cast<size_t>(q)];
    const auto block = static_cast<size_t>(inner);
    const int32_t default_zero = bytes ? int32_t{1} << (bits_ - 1) : 0;
    const auto mask = static_cast<uint32_t>((1 << bits_) - 1);
    const auto* packed = static_cast<const uint8_t*>(data.data());
    ctx.threads().ParallelFor(
        static_cast<size_t>(outer) * count, std::max<size_t>(1, 4096 / block),
        [&](size_t begin, size_t end) {
          for (size_t r = begin; r < end; ++r) {
            const size_t m = r / count;
            const auto base = static_cast<int64_t>(m) * length * inner + rows[r % count] * inner;
            for (size_t e = 0; e < block; ++e) {
              const int64_t f = base + static_cast<int64_t>(e);  // logical flat index in data
              const int64_t x = f / (along_q * after_q);
              const int64_t yq = f % (along_q * after_q) / after_q;
              const int64_t z = f % after_q;
              const int64_t s = (x * blocks + yq / block_size_) * after_q + z;
              int32_t value = 0;
              int32_t zero = default_zero;
              if (bytes) {
                const auto shift = static_cast<uint32_t>((f % components) * bits_);
                value = static_cast<int32_t>(
                    (packed[static_cast<size_t>(f / components)] >> shift) & mask);
                if (zeros != nullptr) {
                  // Along the last axis, the scale's row and block: s = row · blocks + block.
                  const int64_t zi = s / blocks * zero_row + s % blocks / components;
                  const auto zshift = static_cast<uint32_t>((s % blocks % components) * bits_);
                  zero = static_cast<int32_t>(
                      (static_cast<const uint8_t*>(zeros->data())[zi] >> zshift) & mask);
                }
              } else {
                value = static_cast<int32_t>(
                    quant::LoadElement(type, data.data(), static_cast<size_t>(f)));
                if (zeros != nullptr) {
                  zero = static_cast<int32_t>(
                      quant::LoadElement(type, zeros->data(), static_cast<size_t>(s)));
                }
              }
              const float scale = static_cast<float>(
                  quant::LoadElement(out_type, scales.data(), static_cast<size_t>(s)));
              const float v = static_cast<float>(value - zero) * scale;
              const size_t o = r * block + e;
              if (out_type == DataType::kFloat) {
                static_cast<float*>(y.data())[o] = v;
              } else if (out_type == DataType::kFloat16) {
                static_cast<Float16*>(y.data())[o] = Float16::FromFloat(v);
              } else {
                static_cast<BFloat16*>(y.data())[o] = BFloat16::FromFloat(v);
              }
            }
          }
        });
  }

 private:
  static bool IsFloat8Or4(DataType t) {
    return t == DataType::kFloat8E4M3FN || t == DataType::kFloat8E4M3FNUZ ||
           t == DataType::kFloat8E5M2 || t == DataType::kFloat8E5M2FNUZ ||
           t == DataType::kFloat8E8M0 || t == DataType::kFloat4E2M1;
  }

  static int64_t Axis(const KernelInfo& info, int64_t axis, int64_t rank, const char* name) {
    if (axis < -rank || axis >= rank) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' is " +
                                                 std::to_string(axis) + "; input 'data' has rank " +
                                                 std::to_string(rank));
    }
    return axis < 0 ? axis + rank : axis;
  }

  int64_t gather_axis_;
  int64_t quantize_axis_;
  int64_t block_size_;
  int64_t bits_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGatherBlockQuantized(const KernelInfo& info) {
  return Make<GatherBlockQuantized>(info);
}

}  // namespace kiln::cpu
