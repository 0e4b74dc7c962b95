#include "kernels/cpu/tensor/tensor_util.h"

#include <cstring>
#include <limits>

#include "kernels/cpu/common.h"

namespace kiln::cpu {

Shape CheckedShape(const KernelInfo& info, DataType type, std::vector<int64_t> dims,
                   const char* what) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " " + DimsText(dims) +
                                                 " has a negative dimension at index " +
                                                 std::to_string(i));
    }
  }
  Shape shape(std::move(dims));
  const std::optional<size_t> count = shape.ElementCount();
  if (!count || !StorageBytes(type, *count)) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string(what) + " " + shape.ToString() + " has too many elements");
  }
  return shape;
}

int64_t CheckedMul(const KernelInfo& info, int64_t a, int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + ": " + std::to_string(a) + " * " +
                                               std::to_string(b) + " overflows int64");
  }
  return a * b;
}

size_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  size_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= static_cast<size_t>(dims[i]);
  return n;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

void CopyTensor(const Tensor& src, Tensor& dst) {
  if (src.type() == DataType::kString) {
    std::copy_n(src.strings(), src.element_count(), dst.strings());
  } else if (src.byte_size() != 0) {
    std::memcpy(dst.data(), src.data(), src.byte_size());
  }
}

void StridedCopyTensor(const KernelInfo& info, ThreadPool& threads, const Tensor& src, Tensor& dst,
                       const std::vector<int64_t>& out_dims,
                       const std::vector<int64_t>& src_strides, int64_t offset) {
  if (dst.element_count() == 0) return;
  DispatchStorage(src.type(), info, [&](auto tag) {
    using E = typename decltype(tag)::type;
    StridedCopy(threads, DataAs<E>(src), DataAs<E>(dst), out_dims, src_strides, offset);
  });
}

std::vector<int64_t> SignedStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

int64_t ReadScalarInt(const KernelInfo& info, const Tensor& t, const char* what) {
  if (t.element_count() != 1) {
    info.Fail(
        ErrorCode::kInvalidArgument,
        std::string("input '") + what + "' must hold one value, not shape " + t.shape().ToString());
  }
  return ReadInts(info, t, what)[0];
}

}  // namespace kiln::cpu
