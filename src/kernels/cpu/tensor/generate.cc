// Ops that make tensors from attributes or from a shape:
//   Constant 1–23 (`value` of any type; 12+: value_float(s), value_int(s), value_string(s);
//     sparse_value is not implemented)
//   ConstantOfShape 9–23 (value of any type but the sub-byte ones; default float 0)
//   Range 11–23 (float, double, int16, int32, int64; Float16 and BFloat16, stepped in float)
//   EyeLike 9–23 (numeric types and bool, `dtype` picks the output type)
//   OneHot 9–23 (numeric indices and depth, values of any type but the sub-byte ones; indices
//     outside [-depth, depth) give an all-off row, as the spec says)
#include <cmath>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

template <typename T>
std::shared_ptr<Tensor> VectorTensor(const std::vector<T>& values, bool scalar) {
  std::shared_ptr<Tensor> t = Tensor::Allocate(
      DataTypeOf<T>(), scalar ? Shape() : Shape({static_cast<int64_t>(values.size())}),
      CpuAllocator());
  std::copy(values.begin(), values.end(), static_cast<T*>(t->data()));
  return t;
}

class Constant final : public Kernel {
 public:
  explicit Constant(const KernelInfo& info) {
    const bool v11 = info.opset() >= 11;
    const bool v12 = info.opset() >= 12;
    int given = 0;
    for (const char* name : {"value", "sparse_value", "value_float", "value_floats", "value_int",
                             "value_ints", "value_string", "value_strings"}) {
      if (info.HasAttribute(name)) ++given;
    }
    if (given != 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "needs exactly one value attribute (value, sparse_value, value_float(s), "
                "value_int(s), value_string(s)), not " +
                    std::to_string(given));
    }
    if (info.HasAttribute("value")) {
      value_ = info.GetTensor("value");
    } else if (v11 && info.HasAttribute("sparse_value")) {
      info.Fail(ErrorCode::kNotImplemented, "attribute 'sparse_value' is not supported");
    } else if (v12 && info.HasAttribute("value_float")) {
      value_ = VectorTensor<float>({info.GetFloat("value_float", 0)}, true);
    } else if (v12 && info.HasAttribute("value_floats")) {
      value_ = VectorTensor<float>(info.GetFloats("value_floats"), false);
    } else if (v12 && info.HasAttribute("value_int")) {
      value_ = VectorTensor<int64_t>({info.GetInt("value_int", 0)}, true);
    } else if (v12 && info.HasAttribute("value_ints")) {
      value_ = VectorTensor<int64_t>(info.GetInts("value_ints"), false);
    } else if (v12 && info.HasAttribute("value_string")) {
      value_ = VectorTensor<std::string>({info.GetString("value_string", "")}, true);
    } else if (v12 && info.HasAttribute("value_strings")) {
      value_ = VectorTensor<std::string>(info.GetStrings("value_strings"), false);
    } else {
      info.Fail(ErrorCode::kInvalidGraph,
                "its value attribute is not allowed at opset " + std::to_string(info.opset()));
    }
  }

  void Compute(KernelContext& ctx) const override {
    Tensor& y = ctx.Output(0, value_->type(), value_->shape());
    CopyTensor(*value_, y);
  }

 private:
  std::shared_ptr<const Tensor> value_;
};

class ConstantOfShape final : public Kernel {
 public:
  explicit ConstantOfShape(const KernelInfo& info) : value_(info.GetTensor("value")) {
    if (value_ == nullptr) {
      value_ = VectorTensor<float>({0.0f}, false);
    } else if (value_->element_count() != 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'value' must hold one element, not " + value_->shape().ToString());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& s = ctx.Input(0);
    if (s.shape().rank() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' must be 1-D, not shape " + s.shape().ToString());
    }
    const SmallVector<int64_t> dims = ReadSmallInts(info, s, "input");
    Tensor& y = ctx.Output(0, value_->type(),
                           CheckedDims(info, value_->type(), dims.span(), "requested shape"));
    DispatchStorage(value_->type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      std::fill_n(DataAs<E>(y), y.element_count(), *DataAs<E>(*value_));
    });
  }

 private:
  std::shared_ptr<const Tensor> value_;
};

template <typename T>
void RangeOf(KernelContext& ctx, const Tensor& start, const Tensor& limit, const Tensor& delta) {
  const KernelInfo& info = ctx.info();
  const T s = *DataAs<T>(start);
  const T d = *DataAs<T>(delta);
  if (d == T(0)) info.Fail(ErrorCode::kInvalidArgument, "input 'delta' is 0");
  const int64_t n = RangeCount<T>(s, *DataAs<T>(limit), d);
  if (n < 0) info.Fail(ErrorCode::kInvalidArgument, "the range has too many elements");
  const int64_t dims[] = {n};
  Tensor& y = ctx.Output(0, start.type(), CheckedDims(info, start.type(), dims, "output shape"));
  T* out = DataAs<T>(y);
  if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<T>(static_cast<uint64_t>(s) +
                              static_cast<uint64_t>(i) * static_cast<uint64_t>(d));
    }
  } else {
    T value = s;
    for (int64_t i = 0; i < n; ++i, value += d) out[i] = value;
  }
}

class Range final : public Kernel {
 public:
  explicit Range(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& start = ctx.Input(0);
    const Tensor& limit = ctx.Input(1);
    const Tensor& delta = ctx.Input(2);
    const char* names[] = {"start", "limit", "delta"};
    const Tensor* inputs[] = {&start, &limit, &delta};
    for (size_t i = 0; i < 3; ++i) {
      if (inputs[i]->element_count() != 1 || inputs[i]->type() != start.type()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + names[i] + "' must be one " +
                      DataTypeName(start.type()) + " value, not " +
                      DataTypeName(inputs[i]->type()) + " " + inputs[i]->shape().ToString());
      }
    }
    Dispatch<float, double, int16_t, int32_t, int64_t, Float16, BFloat16>(
        start.type(), info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
            // Counted and stepped in float, each value rounded once to T.
            const float s = DataAs<T>(start)->ToFloat();
            const float d = DataAs<T>(delta)->ToFloat();
            if (d == 0.0f) info.Fail(ErrorCode::kInvalidArgument, "input 'delta' is 0");
            const int64_t n = RangeCount<float>(s, DataAs<T>(limit)->ToFloat(), d);
            if (n < 0) info.Fail(ErrorCode::kInvalidArgument, "the range has too many elements");
            const int64_t dims[] = {n};
            Tensor& y =
                ctx.Output(0, start.type(), CheckedDims(info, start.type(), dims, "output shape"));
            T* out = DataAs<T>(y);
            for (int64_t i = 0; i < n; ++i) {
              out[i] = T::FromFloat(s + static_cast<float>(i) * d);
            }
          } else {
            RangeOf<T>(ctx, start, limit, delta);
          }
        });
  }
};

template <typename T>
T One() {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T::FromFloat(1.0f);
  } else {
    return T(1);
  }
}

class EyeLike final : public Kernel {
 public:
  explicit EyeLike(const KernelInfo& info)
      : dtype_(info.GetInt("dtype", 0)), k_(info.GetInt("k", 0)) {
    if (info.HasAttribute("dtype") && !IsKnownDataType(static_cast<int32_t>(dtype_))) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'dtype' " + std::to_string(dtype_) + " is not a data type");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (x.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input must be 2-D, not shape " + x.shape().ToString());
    }
    const DataType type = dtype_ != 0 ? static_cast<DataType>(dtype_) : x.type();
    const int64_t rows = x.shape().dims()[0];
    const int64_t cols = x.shape().dims()[1];
    Dispatch<KILN_NUMERIC_TYPES, bool>(type, info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.Output(0, type, x.shape());
      T* out = DataAs<T>(y);
      for (int64_t i = 0; i < rows; ++i) {
        if (k_ >= cols - i || k_ < -i) continue;  // column i + k_ outside [0, cols)
        out[i * cols + i + k_] = One<T>();
      }
    });
  }

 private:
  int64_t dtype_;
  int64_t k_;
};

// Writes t's numeric values as int64 to out (t.element_count() of them; floats truncated); values
// that are not finite or do not fit become `invalid`.
void ReadAsInt64Into(const KernelInfo& info, const Tensor& t, int64_t invalid, int64_t* out) {
  const size_t n = t.element_count();
  Dispatch<KILN_NUMERIC_TYPES>(t.type(), info, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = DataAs<T>(t);
    for (size_t i = 0; i < n; ++i) {
      if constexpr (std::is_unsigned_v<T>) {
        out[i] = p[i] > static_cast<uint64_t>(INT64_MAX) ? invalid : static_cast<int64_t>(p[i]);
      } else if constexpr (std::is_integral_v<T>) {
        out[i] = p[i];  // NOLINT(bugprone-signed-char-misuse): int8 is numeric, sign-extend
      } else {
        double v;
        if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
          v = p[i].ToFloat();
        } else {
          v = static_cast<double>(p[i]);
        }
        out[i] = std::isfinite(v) && std::fabs(v) < 9.2e18 ? static_cast<int64_t>(v) : invalid;
      }
    }
  });
}

class OneHot final : public Kernel {
 public:
  explicit OneHot(const KernelInfo& info) : axis_(info.GetInt("axis", -1)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& ind = ctx.Input(0);
    const Tensor& depth_t = ctx.Input(1);
    const Tensor& values = ctx.Input(2);
    if (depth_t.element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'depth' must hold one value, not shape " + depth_t.shape().ToString());
    }
    int64_t depth = 0;
    ReadAsInt64Into(info, depth_t, 0, &depth);
    if (depth < 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'depth' must be positive");
    }
    if (values.element_count() != 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'values' must hold [off, on], not shape " + values.shape().ToString());
    }
    const std::vector<int64_t>& id = ind.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, id.size() + 1);
    SmallVector<int64_t> out(id.size() + 1);
    for (size_t d = 0, i = 0; d < out.size(); ++d) out[d] = d == axis ? depth : id[i++];
    const size_t count = ind.element_count();
    int64_t* indices = ctx.Scratch<int64_t>(count);
    ReadAsInt64Into(info, ind, INT64_MIN, indices);
    Tensor& y =
        ctx.Output(0, values.type(), CheckedDims(info, values.type(), out.span(), "output shape"));
    const size_t inner = Product(id, axis, id.size());
    const auto udepth = static_cast<size_t>(depth);
    DispatchStorage(values.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* v = DataAs<E>(values);
      E* dst = DataAs<E>(y);
      std::fill_n(dst, y.element_count(), v[0]);
      for (size_t p = 0; p < count; ++p) {
        int64_t c = indices[p];
        if (c < -depth || c >= depth) continue;
        if (c < 0) c += depth;
        const size_t o = p / inner;
        dst[(o * udepth + static_cast<size_t>(c)) * inner + p % inner] = v[1];
      }
    });
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConstant(const KernelInfo& info) {
  return Make<Constant>(info);
}
std::unique_ptr<Kernel> MakeConstantOfShape(const KernelInfo& info) {
  return Make<ConstantOfShape>(info);
}
std::unique_ptr<Kernel> MakeRange(const KernelInfo& info) {
  return Make<Range>(info);
}
std::unique_ptr<Kernel> MakeEyeLike(const KernelInfo& info) {
  return Make<EyeLike>(info);
}
std::unique_ptr<Kernel> MakeOneHot(const KernelInfo& info) {
  return Make<OneHot>(info);
}

}  // namespace kiln::cpu
