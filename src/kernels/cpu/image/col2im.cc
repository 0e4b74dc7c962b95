// Col2Im (version 18): the inverse of im2col. input [N, C * prod(block_shape), L] holds, for
// each of the L sliding blocks, the block's C * prod(block_shape) values; they are summed into
// an image [N, C, image_shape...] at their places (strides, pads (begin..., end...),
// dilations). L must equal the number of block positions the padded image has.
// Types: float, double, float16 and bfloat16 (summed in the type's arithmetic type).
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

std::string List(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i > 0 ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

class Col2Im final : public Kernel {
 public:
  explicit Col2Im(const KernelInfo& info)
      : dilations_(info.GetInts("dilations")),
        pads_(info.GetInts("pads")),
        strides_(info.GetInts("strides")) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& input = ctx.Input(0);
    const Tensor& image_t = ctx.Input(1);
    const Tensor& block_t = ctx.Input(2);
    const SmallVector<int64_t> image = ReadSmallInts(info, image_t, "image_shape");
    const SmallVector<int64_t> block = ReadSmallInts(info, block_t, "block_shape");
    const size_t r = image.size();
    if (image_t.shape().rank() != 1 || r == 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'image_shape' has shape " +
                                                 image_t.shape().ToString() +
                                                 "; it must be a 1-D list of spatial dimensions");
    }
    if (block_t.shape().rank() != 1 || block.size() != r) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'block_shape' has shape " +
                                                 block_t.shape().ToString() + "; expected [" +
                                                 std::to_string(r) + "] like 'image_shape'");
    }
    SmallVector<int64_t> dil(r, 1);
    SmallVector<int64_t> pads(2 * r, 0);
    SmallVector<int64_t> strides(r, 1);
    Attribute(info, "dilations", dilations_, r, dil);
    Attribute(info, "pads", pads_, 2 * r, pads);
    Attribute(info, "strides", strides_, r, strides);
    int64_t block_size = 1;
    int64_t positions = 1;
    SmallVector<int64_t> counts(r, 0);  // block positions per axis
    for (size_t a = 0; a < r; ++a) {
      if (image[a] < 0 || block[a] < 1 || dil[a] < 1 || strides[a] < 1 || pads[a] < 0 ||
          pads[a + r] < 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "axis " + std::to_string(a) + ": image_shape " + List(image) + ", block_shape " +
                      List(block) + ", dilations " + List(dil) + ", strides " + List(strides) +
                      ", pads " + List(pads) +
                      ": sizes must be >= 0, blocks, dilations and strides >= 1, pads >= 0");
      }
      int64_t extent = 0;
      int64_t padded = 0;
      if (__builtin_mul_overflow(dil[a], block[a] - 1, &extent) ||
          __builtin_add_overflow(image[a], pads[a], &padded) ||
          __builtin_add_overflow(padded, pads[a + r], &padded) ||
          __builtin_mul_overflow(block_size, block[a], &block_size)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "axis " + std::to_string(a) + ": the sizes overflow (image_shape " + List(image) +
                      ", block_shape " + List(block) + ")");
      }
      counts[a] = padded > extent ? (padded - extent - 1) / strides[a] + 1 : 0;
      if (__builtin_mul_overflow(positions, counts[a], &positions)) {
        info.Fail(ErrorCode::kInvalidArgument, "the number of block positions overflows");
      }
    }
    const auto& id = input.shape().dims();
    if (id.size() != 3 || id[1] % block_size != 0 || id[2] != positions) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + input.shape().ToString() + "; expected [N, C * " +
                    std::to_string(block_size) + ", " + std::to_string(positions) +
                    "] for image_shape " + List(image) + " and block_shape " + List(block));
    }
    const int64_t channels = id[1] / block_size;
    SmallVector<int64_t> od;
    od.push_back(id[0]);
    od.push_back(channels);
    for (int64_t v : image) od.push_back(v);
    Tensor& y = ctx.Output(0, input.type(), std::span<const int64_t>(od.data(), od.size()));
    if (y.element_count() == 0 || input.element_count() == 0) return;
    const auto planes = static_cast<size_t>(id[0] * channels);
    const size_t plane = y.element_count() / planes;
    const auto bsize = static_cast<size_t>(block_size);
    const auto npos = static_cast<size_t>(positions);
    Dispatch<float, double, Float16, BFloat16>(input.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(input.data());
      T* dst = static_cast<T*>(y.data());
      ctx.threads().ParallelFor(planes, 1, [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) {
          T* out = dst + p * plane;
          for (size_t k = 0; k < bsize; ++k) {
            const T* in = src + (p * bsize + k) * npos;
            for (size_t l = 0; l < npos; ++l) {
              // Image position of block element k in block l, axis by axis (innermost last).
              size_t krest = k;
              size_t lrest = l;
              size_t offset = 0;
              size_t stride = 1;
              bool inside = true;
              for (size_t a = r; a-- > 0;) {
                const auto bk = static_cast<int64_t>(krest % static_cast<size_t>(block[a]));
                const auto bl = static_cast<int64_t>(lrest % static_cast<size_t>(counts[a]));
                krest /= static_cast<size_t>(block[a]);
                lrest /= static_cast<size_t>(counts[a]);
                const int64_t pos = bl * strides[a] - pads[a] + bk * dil[a];
                if (pos < 0 || pos >= image[a]) {
                  inside = false;
                  break;
                }
                offset += static_cast<size_t>(pos) * stride;
                stride *= static_cast<size_t>(image[a]);
              }
              if (inside) {
                out[offset] = nn::Store<T>(nn::Load(out[offset]) + nn::Load(in[l]));
              }
            }
          }
        }
      });
    });
  }

 private:
  // An attribute of `n` values into `out`, or its default when absent.
  static void Attribute(const KernelInfo& info, const char* name, const std::vector<int64_t>& v,
                        size_t n, SmallVector<int64_t>& out) {
    if (v.empty()) return;
    if (v.size() != n) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                    " values; expected " + std::to_string(n) + " for " +
                    std::to_string(n / (name[0] == 'p' ? 2 : 1)) + " spatial axes");
    }
    for (size_t i = 0; i < n; ++i) out[i] = v[i];
  }

  std::vector<int64_t> dilations_;
  std::vector<int64_t> pads_;
  std::vector<int64_t> strides_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCol2Im(const KernelInfo& info) {
  return std::make_unique<Col2Im>(info);
}

}  // namespace kiln::cpu
