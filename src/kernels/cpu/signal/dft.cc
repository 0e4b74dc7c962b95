// DFT (opsets 17, 20) and STFT (17+) over float, double and float16 signals (computed in double).
// A signal is [batch, ..., 1] (real) or [batch, ..., 2] (complex, real then imaginary).
// DFT transforms along `axis` (DFT-17: attribute, default 1; DFT-20: optional scalar input 2,
// default -2; never the last dimension), with the optional scalar input dft_length (default the
// axis' length; the signal is cut or zero-padded to it). Forward: `onesided` keeps the first
// dft_length / 2 + 1 frequencies. `inverse` divides by dft_length; inverse with `onesided` is the
// inverse real transform: the input holds the first frequencies of a Hermitian spectrum of
// dft_length (default 2 * (n - 1)) points, and the output is real ([..., 1]).
// STFT: frames of frame_length (input 3, else the window's length) every frame_step samples of a
// [batch, length, 1 or 2] signal, each multiplied by the window (input 2, default all ones) and
// transformed: [batch, frames, bins, 2] with bins = frame_length / 2 + 1 when `onesided`
// (default; real signals only), frames = (length - frame_length) / frame_step + 1.
// The transform is a direct O(n^2) sum with an exact twiddle table.
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/signal/signal_kernels.h"
#include "kernels/cpu/small_vector.h"

namespace kiln::cpu {
namespace {

using quant::LoadElement;
using quant::StoreElement;

bool IsSignalType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBfloat16;
}

void RequireSignalType(const KernelInfo& info, const Tensor& t, const char* name) {
  if (!IsSignalType(t.type())) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has element type " +
                                               DataTypeName(t.type()) +
                                               "; expected float, double, float16 or bfloat16");
  }
}

// A scalar integer input (int32 or int64, one element).
int64_t ScalarInt(const KernelInfo& info, const Tensor& t, const char* name) {
  if ((t.type() != DataType::kInt32 && t.type() != DataType::kInt64) || t.element_count() != 1 ||
      t.shape().rank() > 1) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString() +
                                               "; expected an int32 or int64 scalar");
  }
  return IntAt(t, 0);
}

// cos and sin of 2*pi*j/n for j in [0, n): index (k * j) % n of a transform of length n.
void Twiddles(size_t n, double* c, double* s) {
  for (size_t j = 0; j < n; ++j) {
    const double a = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    c[j] = std::cos(a);
    s[j] = std::sin(a);
  }
}

// out[k] = sum_j in[j] * exp(sign * 2*pi*i*j*k/n) for k < out_count; `in` holds n complex values
// (re, im pairs).
void Transform(const double* in, size_t n, size_t out_count, bool inverse, const double* c,
               const double* s, double* out) {
  const double sign = inverse ? 1.0 : -1.0;
  for (size_t k = 0; k < out_count; ++k) {
    double re = 0, im = 0;
    size_t idx = 0;
    for (size_t j = 0; j < n; ++j) {
      const double xr = in[2 * j], xi = in[2 * j + 1];
      re += xr * c[idx] - sign * xi * s[idx];
      im += sign * xr * s[idx] + xi * c[idx];
      idx += k;
      if (idx >= n) idx %= n;
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
}

class Dft final : public Kernel {
 public:
  explicit Dft(const KernelInfo& info)
      : axis_(info.opset() < 20 ? info.GetInt("axis", 1) : -2),
        inverse_(info.GetInt("inverse", 0) != 0),
        onesided_(info.GetInt("onesided", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireSignalType(info, x, "input");
    const auto& xd = x.shape().dims();
    const size_t rank = xd.size();
    if (rank < 2 || (xd.back() != 1 && xd.back() != 2)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + x.shape().ToString() +
                    "; expected rank 2 or more with a last dimension of 1 (real) or 2 (complex)");
    }
    int64_t axis = axis_;
    if (info.opset() >= 20 && ctx.OptionalInput(2) != nullptr) {
      axis = ScalarInt(info, *ctx.OptionalInput(2), "axis");
    }
    const size_t ax = NormalizeAxis(info, axis, rank);
    if (ax == rank - 1) {
      info.Fail(ErrorCode::kInvalidArgument, "axis " + std::to_string(axis) +
                                                 " is the last dimension of input 'input' " +
                                                 x.shape().ToString() + ", which holds the parts");
    }
    const auto n_in = static_cast<size_t>(xd[ax]);
    const bool irfft = inverse_ && onesided_;
    int64_t length = irfft ? 2 * (xd[ax] - 1) : xd[ax];
    if (ctx.OptionalInput(1) != nullptr) {
      length = ScalarInt(info, *ctx.OptionalInput(1), "dft_length");
    }
    if (length < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'dft_length' is " + std::to_string(length) + "; it must be positive");
    }
    const auto n = static_cast<size_t>(length);
    const size_t out_len = irfft ? n : (onesided_ ? n / 2 + 1 : n);
    SmallVector<int64_t> out_dims(xd);
    out_dims[ax] = static_cast<int64_t>(out_len);
    out_dims.back() = irfft ? 1 : 2;
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), out_dims.span());
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < ax; ++d) outer *= static_cast<size_t>(xd[d]);
    for (size_t d = ax + 1; d + 1 < rank; ++d) inner *= static_cast<size_t>(xd[d]);
    const auto parts = static_cast<size_t>(xd.back());
    double* c = ctx.Scratch<double>(n);
    double* s = ctx.Scratch<double>(n);
    double* in = ctx.Scratch<double>(2 * n);
    double* out = ctx.Scratch<double>(2 * n);
    Twiddles(n, c, s);
    const double scale = inverse_ ? 1.0 / static_cast<double>(n) : 1.0;
    const size_t out_parts = irfft ? 1 : 2;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < inner; ++i) {
        auto at = [&](size_t j) { return ((o * n_in + j) * inner + i) * parts; };
        for (size_t j = 0; j < n; ++j) {
          double re = 0, im = 0;
          if (irfft) {
            // The missing upper frequencies are the conjugates of the lower ones.
            const bool mirror = j >= n_in;
            const size_t src = mirror ? n - j : j;
            if (src < n_in) {
              re = LoadElement(x.type(), x.data(), at(src));
              im = parts == 2 ? LoadElement(x.type(), x.data(), at(src) + 1) : 0.0;
              if (mirror) im = -im;
            }
          } else if (j < n_in) {
            re = LoadElement(x.type(), x.data(), at(j));
            im = parts == 2 ? LoadElement(x.type(), x.data(), at(j) + 1) : 0.0;
          }
          in[2 * j] = re;
          in[2 * j + 1] = im;
        }
        Transform(in, n, out_len, inverse_, c, s, out);
        for (size_t k = 0; k < out_len; ++k) {
          const size_t dst = ((o * out_len + k) * inner + i) * out_parts;
          StoreElement(y.type(), y.data(), dst, out[2 * k] * scale, true);
          if (!irfft) StoreElement(y.type(), y.data(), dst + 1, out[2 * k + 1] * scale, true);
        }
      }
    }
  }

 private:
  int64_t axis_;
  bool inverse_;
  bool onesided_;
};

class Stft final : public Kernel {
 public:
  explicit Stft(const KernelInfo& info) : onesided_(info.GetInt("onesided", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireSignalType(info, x, "signal");
    const auto& xd = x.shape().dims();
    if (xd.size() != 3 || (xd[2] != 1 && xd[2] != 2)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'signal' has shape " + x.shape().ToString() +
                                                 "; expected [batch, length, 1 or 2]");
    }
    if (onesided_ && xd[2] == 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'onesided' is 1 but input 'signal' is complex " + x.shape().ToString());
    }
    const int64_t step = ScalarInt(info, ctx.Input(1), "frame_step");
    if (step < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'frame_step' is " + std::to_string(step) + "; it must be positive");
    }
    const Tensor* window = ctx.OptionalInput(2);
    const Tensor* frame_length = ctx.OptionalInput(3);
    if (window != nullptr) {
      if (window->type() != x.type() || window->shape().rank() != 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input 'window' is ") + DataTypeName(window->type()) + " " +
                      window->shape().ToString() + "; expected a 1-D tensor of the signal's type");
      }
    }
    int64_t length = window != nullptr ? window->shape().dims()[0] : 0;
    if (frame_length != nullptr) {
      const int64_t fl = ScalarInt(info, *frame_length, "frame_length");
      if (window != nullptr && fl != length) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'frame_length' is " + std::to_string(fl) +
                                                   " but input 'window' has " +
                                                   std::to_string(length) + " elements");
      }
      length = fl;
    } else if (window == nullptr) {
      info.Fail(ErrorCode::kInvalidArgument,
                "neither input 'window' nor input 'frame_length' gives the frame length");
    }
    if (length < 1 || length > xd[1]) {
      info.Fail(ErrorCode::kInvalidArgument, "the frame length is " + std::to_string(length) +
                                                 "; it must be in [1, " + std::to_string(xd[1]) +
                                                 "] (the length of input 'signal')");
    }
    const int64_t frames = (xd[1] - length) / step + 1;
    const auto n = static_cast<size_t>(length);
    const size_t bins = onesided_ ? n / 2 + 1 : n;
    const std::array<int64_t, 4> out_dims{xd[0], frames, static_cast<int64_t>(bins), 2};
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), out_dims);
    const auto parts = static_cast<size_t>(xd[2]);
    double* c = ctx.Scratch<double>(n);
    double* s = ctx.Scratch<double>(n);
    double* in = ctx.Scratch<double>(2 * n);
    double* out = ctx.Scratch<double>(2 * n);
    Twiddles(n, c, s);
    for (int64_t b = 0; b < xd[0]; ++b) {
      for (int64_t f = 0; f < frames; ++f) {
        for (size_t j = 0; j < n; ++j) {
          const size_t src = (static_cast<size_t>(b * xd[1] + f * step) + j) * parts;
          const double w = window != nullptr ? LoadElement(window->type(), window->data(), j) : 1;
          in[2 * j] = LoadElement(x.type(), x.data(), src) * w;
          in[2 * j + 1] = parts == 2 ? LoadElement(x.type(), x.data(), src + 1) * w : 0.0;
        }
        Transform(in, n, bins, false, c, s, out);
        const size_t dst = static_cast<size_t>(b * frames + f) * bins * 2;
        for (size_t k = 0; k < 2 * bins; ++k)
          StoreElement(y.type(), y.data(), dst + k, out[k], true);
      }
    }
  }

 private:
  bool onesided_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDft(const KernelInfo& info) {
  return Make<Dft>(info);
}
std::unique_ptr<Kernel> MakeStft(const KernelInfo& info) {
  return Make<Stft>(info);
}

}  // namespace kiln::cpu
