#include "kernels/cpu/tensor/tensor_util.h"

#include <cstring>
#include <limits>

#include "kernels/cpu/common.h"

namespace kiln::cpu {

std::span<const int64_t> CheckedDims(const KernelInfo& info, DataType type,
                                     std::span<const int64_t> dims, const char* what) {
  bool empty = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " " + DimsText(dims) +
                                                 " has a negative dimension at index " +
                                                 std::to_string(i));
    }
    empty = empty || dims[i] == 0;
  }
  // The element count as Shape::ElementCount gives it: 0 when a dimension is, none on overflow.
  bool fits = true;
  size_t count = empty ? 0 : 1;
  for (size_t i = 0; !empty && fits && i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(dims[i]);
    fits = count <= std::numeric_limits<size_t>::max() / d;
    count *= d;
  }
  if (!fits || !StorageBytes(type, count)) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string(what) + " " + DimsText(dims) + " has too many elements");
  }
  return dims;
}

Shape CheckedShape(const KernelInfo& info, DataType type, std::vector<int64_t> dims,
                   const char* what) {
  CheckedDims(info, type, dims, what);
  return Shape(std::move(dims));
}

int64_t CheckedMul(const KernelInfo& info, int64_t a, int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + ": " + std::to_string(a) + " * " +
                                               std::to_string(b) + " overflows int64");
  }
  return a * b;
}

size_t Product(std::span<const int64_t> dims, size_t begin, size_t end) {
  size_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= static_cast<size_t>(dims[i]);
  return n;
}

std::string DimsText(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

void CopyTensor(const Tensor& src, Tensor& dst) {
  if (src.data() == dst.data()) return;  // one buffer (a view the planner made)
  if (src.type() == DataType::kString) {
    std::copy_n(src.strings(), src.element_count(), dst.strings());
  } else if (src.byte_size() != 0) {
    std::memcpy(dst.data(), src.data(), src.byte_size());
  }
}

void StridedCopyTensor(const KernelInfo& info, ThreadPool& threads, const Tensor& src, Tensor& dst,
                       std::span<const int64_t> out_dims, std::span<const int64_t> src_strides,
                       int64_t offset) {
  if (dst.element_count() == 0) return;
  DispatchStorage(src.type(), info, [&](auto tag) {
    using E = typename decltype(tag)::type;
    StridedCopy(threads, DataAs<E>(src), DataAs<E>(dst), out_dims, src_strides, offset);
  });
}

SmallVector<int64_t> SignedStrides(std::span<const int64_t> dims) {
  SmallVector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::span<int64_t> ReadIndices(KernelContext& ctx, const Tensor& ind) {
  RequireIntType(ctx.info(), ind, "indices");
  const size_t n = ind.element_count();
  int64_t* out = ctx.Scratch<int64_t>(n);
  for (size_t i = 0; i < n; ++i) out[i] = IntAt(ind, i);
  return {out, n};
}

int64_t ReadScalarInt(const KernelInfo& info, const Tensor& t, const char* what) {
  if (t.element_count() != 1) {
    info.Fail(
        ErrorCode::kInvalidArgument,
        std::string("input '") + what + "' must hold one value, not shape " + t.shape().ToString());
  }
  RequireIntType(info, t, what);
  return IntAt(t, 0);
}

}  // namespace kiln::cpu
