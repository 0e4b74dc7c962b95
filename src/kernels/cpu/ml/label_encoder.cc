// LabelEncoder (ai.onnx.ml 2–5): maps each element of X through keys → values, giving the
// default where a key is missing. Keys come from keys_strings, keys_int64s, keys_floats or (opset
// 4) keys_tensor; values from values_strings, values_int64s, values_floats or values_tensor; the
// default from default_tensor or default_string/default_int64/default_float ("_Unused", -1,
// -0.0 when absent). Integer keys and inputs compare as int64, floating ones as double (a NaN key
// matches NaN); the output takes the values' type. The maps are built once at creation. Opset 1
// (classes_strings) is not implemented.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/ml/ml_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

enum class KeyKind { kString, kInt, kReal };

KeyKind KindOf(DataType t) {
  if (t == DataType::kString) return KeyKind::kString;
  if (t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
      t == DataType::kBfloat16) {
    return KeyKind::kReal;
  }
  return KeyKind::kInt;
}

// The attribute lists as a tensor: the one of kinds *_strings, *_int64s, *_floats, *_tensor that
// is present (exactly one must be).
std::shared_ptr<const Tensor> ListAttribute(const KernelInfo& info, const std::string& prefix) {
  std::shared_ptr<const Tensor> found;
  int present = 0;
  auto make = [](DataType type, size_t n) {
    return std::shared_ptr<Tensor>(
        Tensor::Allocate(type, Shape({static_cast<int64_t>(n)}), CpuAllocator()));
  };
  if (info.HasAttribute((prefix + "_strings").c_str())) {
    const std::vector<std::string> v = info.GetStrings((prefix + "_strings").c_str());
    auto t = make(DataType::kString, v.size());
    std::copy(v.begin(), v.end(), DataAs<std::string>(*t));
    found = t;
    ++present;
  }
  if (info.HasAttribute((prefix + "_int64s").c_str())) {
    const std::vector<int64_t> v = info.GetInts((prefix + "_int64s").c_str());
    auto t = make(DataType::kInt64, v.size());
    std::copy(v.begin(), v.end(), DataAs<int64_t>(*t));
    found = t;
    ++present;
  }
  if (info.HasAttribute((prefix + "_floats").c_str())) {
    const std::vector<float> v = info.GetFloats((prefix + "_floats").c_str());
    auto t = make(DataType::kFloat, v.size());
    std::copy(v.begin(), v.end(), DataAs<float>(*t));
    found = t;
    ++present;
  }
  if (info.opset() >= 4 && info.HasAttribute((prefix + "_tensor").c_str())) {
    found = info.GetTensor((prefix + "_tensor").c_str());
    ++present;
  }
  if (present != 1) {
    info.Fail(ErrorCode::kInvalidGraph,
              "exactly one of the attributes '" + prefix + "_strings', '" + prefix + "_int64s', '" +
                  prefix + "_floats'" + (info.opset() >= 4 ? ", '" + prefix + "_tensor'" : "") +
                  " must be given, not " + std::to_string(present));
  }
  return found;
}

// Element i of a numeric tensor as int64 or double.
template <typename R>
R NumberAt(const KernelInfo& info, const Tensor& t, size_t i) {
  R r{};
  Dispatch<KILN_NUMERIC_TYPES, bool>(t.type(), info, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T& v = DataAs<T>(t)[i];
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      r = static_cast<R>(v.ToFloat());
    } else {
      r = static_cast<R>(v);  // NOLINT(bugprone-signed-char-misuse): int8 keys are numbers
    }
  });
  return r;
}

class LabelEncoder final : public Kernel {
 public:
  explicit LabelEncoder(const KernelInfo& info) {
    keys_ = ListAttribute(info, "keys");
    values_ = ListAttribute(info, "values");
    if (keys_->element_count() != values_->element_count()) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'keys_*' and 'values_*' have " +
                                              std::to_string(keys_->element_count()) + " and " +
                                              std::to_string(values_->element_count()) +
                                              " entries");
    }
    kind_ = KindOf(keys_->type());
    for (size_t i = 0, n = keys_->element_count(); i < n; ++i) {
      switch (kind_) {
        case KeyKind::kString:
          strings_.emplace(DataAs<std::string>(*keys_)[i], i);
          break;
        case KeyKind::kInt:
          ints_.emplace(NumberAt<int64_t>(info, *keys_, i), i);
          break;
        case KeyKind::kReal: {
          const auto k = NumberAt<double>(info, *keys_, i);
          if (std::isnan(k)) {
            nan_ = i;
          } else {
            reals_.emplace(k, i);
          }
          break;
        }
      }
    }
    default_ = MakeDefault(info);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (KindOf(x.type()) != kind_) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'X' is ") + DataTypeName(x.type()) +
                                                 " but the keys are " +
                                                 DataTypeName(keys_->type()));
    }
    const DataType out_type = values_->type();
    Tensor& y = out_type == DataType::kString ? ctx.Output(0, out_type, x.shape())
                                              : ctx.OutputForOverwrite(0, out_type, x.shape());
    DispatchStorage(out_type, info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* values = DataAs<E>(*values_);
      const E& fallback = DataAs<E>(*default_)[0];
      E* out = DataAs<E>(y);
      for (size_t i = 0, n = x.element_count(); i < n; ++i) {
        const size_t at = Lookup(info, x, i);
        out[i] = at == kMissing ? fallback : values[at];
      }
    });
  }

 private:
  static constexpr size_t kMissing = SIZE_MAX;

  size_t Lookup(const KernelInfo& info, const Tensor& x, size_t i) const {
    switch (kind_) {
      case KeyKind::kString: {
        auto it = strings_.find(DataAs<std::string>(x)[i]);
        return it == strings_.end() ? kMissing : it->second;
      }
      case KeyKind::kInt: {
        auto it = ints_.find(NumberAt<int64_t>(info, x, i));
        return it == ints_.end() ? kMissing : it->second;
      }
      case KeyKind::kReal: {
        const auto v = NumberAt<double>(info, x, i);
        if (std::isnan(v)) return nan_;
        auto it = reals_.find(v);
        return it == reals_.end() ? kMissing : it->second;
      }
    }
    return kMissing;
  }

  // One element of the values' type: default_tensor, else the default_* attribute of that kind.
  std::shared_ptr<const Tensor> MakeDefault(const KernelInfo& info) const {
    const DataType type = values_->type();
    if (info.opset() >= 4 && info.HasAttribute("default_tensor")) {
      std::shared_ptr<const Tensor> d = info.GetTensor("default_tensor");
      if (d->type() != type || d->element_count() != 1) {
        info.Fail(ErrorCode::kInvalidGraph,
                  std::string("attribute 'default_tensor' must hold one ") + DataTypeName(type) +
                      ", not " + std::to_string(d->element_count()) + " " +
                      DataTypeName(d->type()));
      }
      return d;
    }
    std::shared_ptr<Tensor> d(Tensor::Allocate(type, Shape({1}), CpuAllocator()));
    const KeyKind kind = KindOf(type);
    if (kind == KeyKind::kString) {
      DataAs<std::string>(*d)[0] = info.GetString("default_string", "_Unused");
      return d;
    }
    const double v = kind == KeyKind::kInt
                         ? static_cast<double>(info.GetInt("default_int64", -1))
                         : static_cast<double>(info.GetFloat("default_float", -0.0f));
    Dispatch<KILN_NUMERIC_TYPES, bool>(type, info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        DataAs<T>(*d)[0] = T::FromFloat(static_cast<float>(v));
      } else {
        DataAs<T>(*d)[0] = static_cast<T>(v);
      }
    });
    return d;
  }

  std::shared_ptr<const Tensor> keys_;
  std::shared_ptr<const Tensor> values_;
  std::shared_ptr<const Tensor> default_;
  KeyKind kind_ = KeyKind::kString;
  std::unordered_map<std::string, size_t> strings_;
  std::unordered_map<int64_t, size_t> ints_;
  std::unordered_map<double, size_t> reals_;
  size_t nan_ = kMissing;
};

}  // namespace

std::unique_ptr<Kernel> MakeLabelEncoder(const KernelInfo& info) {
  return Make<LabelEncoder>(info);
}

}  // namespace kiln::cpu
