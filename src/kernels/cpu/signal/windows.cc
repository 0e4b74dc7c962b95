// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix (opset 17+), computed in double
// and written as `output_datatype` (default float; any numeric type, converted as Cast does).
// A window of `size` (int32/int64 scalar input) uses N = size when `periodic` (default 1), else
// size - 1, and n in [0, size):
//   Hann:     0.5 - 0.5 cos(2 pi n / N)
//   Hamming:  25/46 - 21/46 cos(2 pi n / N)
//   Blackman: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz):
// [dft_length / 2 + 1, num_mel_bins] triangular filters between num_mel_bins + 2 points evenly
// spaced on the mel scale (mel = 2595 log10(1 + hz / 700)), each point mapped to the spectrogram
// bin floor((dft_length + 1) * hz / sample_rate), as the ONNX reference does (the step is the mel
// range over num_mel_bins + 2, the reference's choice).
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/signal/signal_kernels.h"

namespace kiln::cpu {
namespace {

using quant::StoreElement;

enum class WindowKind { kHann, kHamming, kBlackman };

DataType ReadOutputType(const KernelInfo& info) {
  const int64_t v = info.GetInt("output_datatype", 1);
  if (v <= 0 || v > kMaxDataType || !quant::IsCodecType(static_cast<DataType>(v))) {
    info.Fail(ErrorCode::kInvalidArgument, "attribute 'output_datatype' is " + std::to_string(v) +
                                               ", not a numeric element type");
  }
  return static_cast<DataType>(v);
}

int64_t ScalarIntInput(const KernelInfo& info, const Tensor& t, const char* name) {
  if ((t.type() != DataType::kInt32 && t.type() != DataType::kInt64) || t.element_count() != 1 ||
      t.shape().rank() > 1) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString() +
                                               "; expected an int32 or int64 scalar");
  }
  return IntAt(t, 0);
}

double ScalarFloatInput(const KernelInfo& info, const Tensor& t, const char* name) {
  if (!quant::IsCodecType(t.type()) || t.element_count() != 1 || t.shape().rank() > 1) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString() +
                                               "; expected a scalar");
  }
  return quant::LoadElement(t.type(), t.data(), 0);
}

class Window final : public Kernel {
 public:
  Window(const KernelInfo& info, WindowKind kind)
      : kind_(kind), type_(ReadOutputType(info)), periodic_(info.GetInt("periodic", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const int64_t size = ScalarIntInput(info, ctx.Input(0), "size");
    if (size < 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'size' is " + std::to_string(size) + "; it must be >= 0");
    }
    const std::array<int64_t, 1> dims{size};
    Tensor& y = BitsPerElement(type_) < 8 ? ctx.Output(0, type_, dims)
                                          : ctx.OutputForOverwrite(0, type_, dims);
    const double n_total = static_cast<double>(periodic_ ? size : size - 1);
    for (int64_t n = 0; n < size; ++n) {
      const double a = 2.0 * std::numbers::pi * static_cast<double>(n) / n_total;
      double v = 0;
      switch (kind_) {
        case WindowKind::kHann:
          v = 0.5 - 0.5 * std::cos(a);
          break;
        case WindowKind::kHamming:
          v = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(a);
          break;
        case WindowKind::kBlackman:
          v = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a);
          break;
      }
      StoreElement(type_, y.data(), static_cast<size_t>(n), v, true);
    }
  }

 private:
  WindowKind kind_;
  DataType type_;
  bool periodic_;
};

class MelWeightMatrix final : public Kernel {
 public:
  explicit MelWeightMatrix(const KernelInfo& info) : type_(ReadOutputType(info)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const int64_t mel_bins = ScalarIntInput(info, ctx.Input(0), "num_mel_bins");
    const int64_t dft_length = ScalarIntInput(info, ctx.Input(1), "dft_length");
    const int64_t rate = ScalarIntInput(info, ctx.Input(2), "sample_rate");
    const double lower = ScalarFloatInput(info, ctx.Input(3), "lower_edge_hertz");
    const double upper = ScalarFloatInput(info, ctx.Input(4), "upper_edge_hertz");
    if (mel_bins < 1 || dft_length < 1 || rate < 1) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'num_mel_bins' (" + std::to_string(mel_bins) +
                                                 "), 'dft_length' (" + std::to_string(dft_length) +
                                                 ") and 'sample_rate' (" + std::to_string(rate) +
                                                 ") must be positive");
    }
    if (!(lower >= 0) || !(upper > lower)) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'lower_edge_hertz' (" + std::to_string(lower) +
                                                 ") and 'upper_edge_hertz' (" +
                                                 std::to_string(upper) +
                                                 ") must satisfy 0 <= lower < upper");
    }
    if (mel_bins > (int64_t{1} << 24)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'num_mel_bins' is " + std::to_string(mel_bins) + "; too large");
    }
    const int64_t spectrum = dft_length / 2 + 1;
    const std::array<int64_t, 2> dims{spectrum, mel_bins};
    Tensor& y = ctx.Output(0, type_, dims);  // zero outside the triangles
    // The reference computes the mel edges in float32 (its inputs' type), the rest in double.
    const auto low_mel =
        static_cast<double>(2595.0f * std::log10(1.0f + static_cast<float>(lower) / 700.0f));
    const auto high_mel =
        static_cast<double>(2595.0f * std::log10(1.0f + static_cast<float>(upper) / 700.0f));
    const double step = (high_mel - low_mel) / static_cast<double>(mel_bins + 2);
    const auto points = static_cast<size_t>(mel_bins + 2);
    int64_t* bin = ctx.Scratch<int64_t>(points);
    for (size_t i = 0; i < points; ++i) {
      const double mel = static_cast<double>(i) * step + low_mel;
      const double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
      bin[i] = static_cast<int64_t>(
          std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate)));
      if (bin[i] < 0 || bin[i] >= spectrum) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'upper_edge_hertz' (" + std::to_string(upper) +
                      ") maps past the last spectrogram bin for 'sample_rate' " +
                      std::to_string(rate) + " and 'dft_length' " + std::to_string(dft_length));
      }
    }
    auto set = [&](int64_t row, int64_t col, double v) {
      StoreElement(type_, y.data(), static_cast<size_t>(row * mel_bins + col), v, true);
    };
    for (int64_t m = 0; m < mel_bins; ++m) {
      const auto i = static_cast<size_t>(m);
      const int64_t left = bin[i], center = bin[i + 1], right = bin[i + 2];
      if (center == left) {
        set(center, m, 1.0);
      } else {
        for (int64_t j = left; j <= center; ++j) {
          set(j, m, static_cast<double>(j - left) / static_cast<double>(center - left));
        }
      }
      for (int64_t j = center; j < right; ++j) {
        set(j, m, static_cast<double>(right - j) / static_cast<double>(right - center));
      }
    }
  }

 private:
  DataType type_;
};

}  // namespace

std::unique_ptr<Kernel> MakeHannWindow(const KernelInfo& info) {
  return std::make_unique<Window>(info, WindowKind::kHann);
}
std::unique_ptr<Kernel> MakeHammingWindow(const KernelInfo& info) {
  return std::make_unique<Window>(info, WindowKind::kHamming);
}
std::unique_ptr<Kernel> MakeBlackmanWindow(const KernelInfo& info) {
  return std::make_unique<Window>(info, WindowKind::kBlackman);
}
std::unique_ptr<Kernel> MakeMelWeightMatrix(const KernelInfo& info) {
  return Make<MelWeightMatrix>(info);
}

}  // namespace kiln::cpu
