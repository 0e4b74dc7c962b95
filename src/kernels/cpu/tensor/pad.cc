// Pad 1–23: modes constant, reflect, edge (19+: wrap), negative pads crop first. 1: `paddings`
// attribute, 2–10: `pads` attribute, both with a float `value` (float types); 11+: pads and
// constant_value inputs (every element type but the sub-byte ones, strings copied as
// std::string); 18+: axes input. Reflect and wrap repeat as numpy.pad does when the pad is wider
// than the axis.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

class Pad final : public Kernel {
 public:
  explicit Pad(const KernelInfo& info) : opset_(info.opset()) {
    const std::string mode = info.GetString("mode", "constant");
    if (mode == "constant") {
      mode_ = PadMode::kConstant;
    } else if (mode == "reflect") {
      mode_ = PadMode::kReflect;
    } else if (mode == "edge") {
      mode_ = PadMode::kEdge;
    } else if (mode == "wrap" && opset_ >= 19) {
      mode_ = PadMode::kWrap;
    } else {
      info.Fail(ErrorCode::kInvalidArgument,
                "mode '" + mode + "' is not supported at opset " + std::to_string(opset_));
    }
    if (opset_ < 11) {
      const char* name = opset_ < 2 ? "paddings" : "pads";
      if (!info.HasAttribute(name)) {
        info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is required");
      }
      pads_ = info.GetInts(name);
      value_ = info.GetFloat("value", 0.0f);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    SmallVector<int64_t, 16> pads(pads_);
    SmallVector<size_t> axes(rank);
    for (size_t i = 0; i < rank; ++i) axes[i] = i;
    if (opset_ >= 11) {
      const Tensor& pads_input = ctx.Input(1);
      RequireIntType(info, pads_input, "pads");
      pads.resize(pads_input.element_count());
      for (size_t i = 0; i < pads.size(); ++i) pads[i] = IntAt(pads_input, i);
      const Tensor* axes_input = opset_ >= 18 ? ctx.OptionalInput(3) : nullptr;
      if (axes_input != nullptr) {
        axes.clear();
        SmallVector<bool> seen(rank, false);
        for (int64_t a : ReadSmallInts(info, *axes_input, "axes")) {
          const size_t axis = NormalizeAxis(info, a, rank, "axes entry");
          if (seen[axis]) info.Fail(ErrorCode::kInvalidArgument, "axes repeat an axis");
          seen[axis] = true;
          axes.push_back(axis);
        }
      }
    }
    if (pads.size() != 2 * axes.size()) {
      info.Fail(ErrorCode::kInvalidArgument, "pads " + DimsText(pads.span()) + " must have " +
                                                 std::to_string(2 * axes.size()) +
                                                 " entries for input " + x.shape().ToString());
    }
    SmallVector<int64_t> begin(rank, 0);
    SmallVector<int64_t> end(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      begin[axes[i]] = pads[i];
      end[axes[i]] = pads[i + axes.size()];
    }
    // Per axis: the kept input range [lo, lo + kept) after cropping, and the output size.
    SmallVector<int64_t> lo(rank);
    SmallVector<int64_t> kept(rank);
    SmallVector<int64_t> out(rank);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t limit = INT64_MAX / 4;
      if (begin[k] > limit || begin[k] < -limit || end[k] > limit || end[k] < -limit) {
        info.Fail(ErrorCode::kInvalidArgument, "pads " + DimsText(pads.span()) + " are too large");
      }
      lo[k] = std::max<int64_t>(0, -begin[k]);
      kept[k] = in[k] - lo[k] - std::max<int64_t>(0, -end[k]);
      if (kept[k] < 0) {
        info.Fail(ErrorCode::kInvalidArgument, "pads " + DimsText(pads.span()) +
                                                   " crop more than axis " + std::to_string(k) +
                                                   " of input " + x.shape().ToString() + " holds");
      }
      out[k] = kept[k] + std::max<int64_t>(0, begin[k]) + std::max<int64_t>(0, end[k]);
      if (mode_ != PadMode::kConstant && kept[k] == 0 && out[k] > 0) {
        info.Fail(ErrorCode::kInvalidArgument, "cannot pad empty axis " + std::to_string(k) +
                                                   " of input " + x.shape().ToString() +
                                                   " in a mode other than constant");
      }
    }
    Tensor& y = ctx.Output(0, x.type(), CheckedDims(info, x.type(), out.span(), "output shape"));
    if (y.element_count() == 0) return;
    if (rank == 0) {
      CopyTensor(x, y);
      return;
    }
    // Source index along each axis for each output index, -1 for the constant: source[k] starts
    // at entry first[k] of one scratch array.
    SmallVector<size_t> first(rank);
    size_t total = 0;
    for (size_t k = 0; k < rank; ++k) {
      first[k] = total;
      total += static_cast<size_t>(out[k]);
    }
    int64_t* sources = ctx.Scratch<int64_t>(total);
    auto source = [&](size_t k) { return sources + first[k]; };
    for (size_t k = 0; k < rank; ++k) {
      const int64_t before = std::max<int64_t>(0, begin[k]);
      for (int64_t o = 0; o < out[k]; ++o)
        source(k)[static_cast<size_t>(o)] = Map(o - before, kept[k], lo[k]);
    }
    const SmallVector<int64_t> strides = SignedStrides(in);
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E pad_value = PadValue<E>(ctx, x);
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      const auto inner = static_cast<size_t>(out[rank - 1]);
      const size_t rows = y.element_count() / inner;
      const int64_t* last = source(rank - 1);
      ctx.threads().ParallelFor(rows, std::max<size_t>(1, 16384 / inner), [&](size_t b, size_t e) {
        for (size_t row = b; row < e; ++row) {
          E* o = dst + row * inner;
          int64_t base = 0;
          bool constant_row = false;
          size_t rest = row;
          for (size_t k = rank - 1; k-- > 0;) {
            const int64_t s = source(k)[rest % static_cast<size_t>(out[k])];
            rest /= static_cast<size_t>(out[k]);
            if (s < 0) constant_row = true;
            base += s * strides[k];
          }
          for (size_t j = 0; j < inner; ++j) {
            o[j] = constant_row || last[j] < 0 ? pad_value : src[base + last[j]];
          }
        }
      });
    });
  }

 private:
  // The input index for position p relative to the kept range [lo, lo + kept), or -1.
  int64_t Map(int64_t p, int64_t kept, int64_t lo) const {
    if (p >= 0 && p < kept) return lo + p;
    switch (mode_) {
      case PadMode::kConstant:
        return -1;
      case PadMode::kEdge:
        return lo + std::clamp<int64_t>(p, 0, kept - 1);
      case PadMode::kReflect: {
        if (kept == 1) return lo;
        const int64_t period = 2 * (kept - 1);
        int64_t m = p % period;
        if (m < 0) m += period;
        return lo + (m >= kept ? period - m : m);
      }
      case PadMode::kWrap: {
        int64_t m = p % kept;
        if (m < 0) m += kept;
        return lo + m;
      }
    }
    return -1;
  }

  template <typename E>
  E PadValue(KernelContext& ctx, const Tensor& x) const {
    const KernelInfo& info = ctx.info();
    if (opset_ < 11) {
      E value{};
      Dispatch<KILN_FLOAT_TYPES>(x.type(), info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_trivially_copyable_v<E> && sizeof(T) == sizeof(E)) {
          T v;
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
            v = T::FromFloat(value_);
          } else {
            v = static_cast<T>(value_);
          }
          std::memcpy(&value, &v, sizeof v);
        }
      });
      return value;
    }
    const Tensor* c = ctx.OptionalInput(2);
    if (c == nullptr || c->element_count() == 0) return E{};
    if (c->type() != x.type() || c->element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'constant_value' must be one ") + DataTypeName(x.type()) +
                    ", not " + DataTypeName(c->type()) + " " + c->shape().ToString());
    }
    return *DataAs<E>(*c);
  }

  int64_t opset_;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_;
  float value_ = 0.0f;
};

}  // namespace

std::unique_ptr<Kernel> MakePad(const KernelInfo& info) {
  return Make<Pad>(info);
}

}  // namespace kiln::cpu
