// Window attributes and output-size resolution shared by Conv, ConvTranspose and pooling.
#include "kernels/cpu/nn/window.h"

#include <string>
#include <vector>

namespace kiln::cpu::nn {
namespace {

std::string Join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

void CheckAll(const KernelInfo& info, const char* name, const std::vector<int64_t>& v,
              int64_t minimum) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < minimum) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' is " + Join(v) +
                                                 ": value " + std::to_string(v[i]) + " at index " +
                                                 std::to_string(i) + " must be " +
                                                 (minimum > 0 ? "positive" : "non-negative"));
    }
  }
}

void CheckLength(const KernelInfo& info, const char* name, const std::vector<int64_t>& v,
                 size_t want, const char* reason) {
  if (!v.empty() && v.size() != want) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                  " values but " + std::to_string(want) + " are needed (" + reason + ")");
  }
}

AutoPad ParseAutoPad(const KernelInfo& info) {
  const std::string s = info.GetString("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  info.Fail(ErrorCode::kInvalidArgument, "attribute 'auto_pad' is '" + s +
                                             "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

}  // namespace

int64_t CheckedAdd(const KernelInfo& info, int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " overflows int64");
  }
  return r;
}

int64_t CheckedMul(const KernelInfo& info, int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " overflows int64");
  }
  return r;
}

WindowAttrs ReadWindowAttrs(const KernelInfo& info, const WindowOptions& options) {
  WindowAttrs a;
  if (options.kernel_required && !info.HasAttribute("kernel_shape")) {
    info.Fail(ErrorCode::kInvalidGraph, "attribute 'kernel_shape' is required");
  }
  a.kernel_shape = info.GetInts("kernel_shape");
  a.strides = info.GetInts("strides");
  if (options.dilations) a.dilations = info.GetInts("dilations");
  a.pads = info.GetInts("pads");
  a.auto_pad = ParseAutoPad(info);
  if (options.ceil_mode) a.ceil_mode = info.GetInt("ceil_mode", 0) != 0;

  if (options.kernel_required && a.kernel_shape.empty()) {
    info.Fail(ErrorCode::kInvalidArgument, "attribute 'kernel_shape' is empty");
  }
  CheckAll(info, "kernel_shape", a.kernel_shape, 1);
  CheckAll(info, "strides", a.strides, 1);
  CheckAll(info, "dilations", a.dilations, 1);
  CheckAll(info, "pads", a.pads, 0);
  if (a.pads.size() % 2 != 0) {
    info.Fail(ErrorCode::kInvalidArgument, "attribute 'pads' has " + std::to_string(a.pads.size()) +
                                               " values; it needs a begin and an end per axis");
  }
  // The spatial rank as far as the attributes tell it.
  size_t rank = a.kernel_shape.size();
  const char* source = "one per kernel_shape axis";
  if (rank == 0 && !a.strides.empty()) {
    rank = a.strides.size();
    source = "one per strides axis";
  } else if (rank == 0 && !a.dilations.empty()) {
    rank = a.dilations.size();
    source = "one per dilations axis";
  }
  if (rank != 0) {
    CheckLength(info, "strides", a.strides, rank, source);
    CheckLength(info, "dilations", a.dilations, rank, source);
    CheckLength(info, "pads", a.pads, 2 * rank, source);
  }
  if (a.auto_pad != AutoPad::kNotSet) {
    for (int64_t p : a.pads) {
      if (p != 0) {
        info.Fail(ErrorCode::kInvalidArgument, "attribute 'pads' " + Join(a.pads) +
                                                   " cannot be combined with auto_pad '" +
                                                   info.GetString("auto_pad", "") + "'");
      }
    }
  }
  return a;
}

void WindowGeometry::Finish() {
  in_size = 1;
  out_size = 1;
  kernel_size = 1;
  for (int64_t d : in) in_size *= static_cast<size_t>(d);
  for (int64_t d : out) out_size *= static_cast<size_t>(d);
  for (int64_t d : kernel) kernel_size *= static_cast<size_t>(d);
  in_strides.assign(in.size(), 1);
  for (size_t d = in.size(); d-- > 1;)
    in_strides[d - 1] = in_strides[d] * static_cast<size_t>(in[d]);
}

bool WindowGeometry::IsPointwise() const noexcept {
  for (size_t d = 0; d < rank(); ++d) {
    if (kernel[d] != 1 || stride[d] != 1 || pad_begin[d] != 0 || out[d] != in[d]) return false;
  }
  return true;
}

namespace {

// "[1,3,224,224]" for messages (only built on the error path).
std::string DimsText(std::span<const int64_t> dims) {
  return Shape(std::vector<int64_t>(dims.begin(), dims.end())).ToString();
}

}  // namespace

WindowGeometry ResolveWindow(const KernelInfo& info, const WindowAttrs& attrs,
                             std::span<const int64_t> x_dims, std::span<const int64_t> kernel,
                             bool honour_ceil_mode) {
  if (x_dims.size() < 3) {
    info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + DimsText(x_dims) +
                                               "; it needs rank 3 or more (N, C, spatial...)");
  }
  const size_t rank = x_dims.size() - 2;
  const auto check_rank = [&](const char* name, size_t size, size_t per_axis) {
    if (size != 0 && size != per_axis * rank) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' has " +
                                                 std::to_string(size) + " values but input 'X' " +
                                                 DimsText(x_dims) + " has " + std::to_string(rank) +
                                                 " spatial axes");
    }
  };
  check_rank("kernel_shape", kernel.size(), 1);
  check_rank("strides", attrs.strides.size(), 1);
  check_rank("dilations", attrs.dilations.size(), 1);
  check_rank("pads", attrs.pads.size(), 2);

  WindowGeometry g;
  g.in.assign(x_dims.begin() + 2, x_dims.end());
  g.kernel.assign(kernel.begin(), kernel.end());
  if (attrs.strides.empty()) {
    g.stride.assign(rank, 1);
  } else {
    g.stride.assign(attrs.strides.begin(), attrs.strides.end());
  }
  if (attrs.dilations.empty()) {
    g.dilation.assign(rank, 1);
  } else {
    g.dilation.assign(attrs.dilations.begin(), attrs.dilations.end());
  }
  g.pad_begin.assign(rank, 0);
  g.pad_end.assign(rank, 0);
  g.out.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = g.in[d];
    const int64_t s = g.stride[d];
    const int64_t extent =
        CheckedMul(info, g.kernel[d] - 1, g.dilation[d], "the dilated kernel extent") + 1;
    switch (attrs.auto_pad) {
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        g.out[d] = CeilDiv(in, s);
        const int64_t total = std::max<int64_t>(
            0, CheckedAdd(info, (g.out[d] - 1) * s, extent, "the SAME padding") - in);
        const int64_t small = total / 2;
        g.pad_begin[d] = attrs.auto_pad == AutoPad::kSameUpper ? small : total - small;
        g.pad_end[d] = total - g.pad_begin[d];
        break;
      }
      case AutoPad::kValid:  // no padding
      case AutoPad::kNotSet: {
        if (attrs.auto_pad == AutoPad::kNotSet && !attrs.pads.empty()) {
          g.pad_begin[d] = attrs.pads[d];
          g.pad_end[d] = attrs.pads[d + rank];
        }
        const int64_t padded =
            CheckedAdd(info, CheckedAdd(info, in, g.pad_begin[d], "the padded input size"),
                       g.pad_end[d], "the padded input size");
        if (padded < extent) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "the kernel extent " + std::to_string(extent) + " along spatial axis " +
                        std::to_string(d) + " is larger than the padded input (" +
                        std::to_string(padded) + ": input 'X' " + DimsText(x_dims) + ", pads " +
                        Join(attrs.pads) + ", auto_pad " + info.GetString("auto_pad", "NOTSET") +
                        ")");
        }
        const bool ceil = honour_ceil_mode && attrs.ceil_mode;
        g.out[d] = CheckedAdd(info, padded - extent, ceil ? s - 1 : 0, "the output size") / s + 1;
        // A window that would start in the end padding is dropped.
        if (ceil && (g.out[d] - 1) * s >= in + g.pad_begin[d]) --g.out[d];
        break;
      }
    }
  }
  g.Finish();
  return g;
}

WindowGeometry ResolveWindow(const KernelInfo& info, const WindowAttrs& attrs, const Shape& x,
                             std::span<const int64_t> kernel, bool honour_ceil_mode) {
  return ResolveWindow(info, attrs, std::span<const int64_t>(x.dims()), kernel, honour_ceil_mode);
}

}  // namespace kiln::cpu::nn
