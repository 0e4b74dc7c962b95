// Small pieces the elementwise kernels share: type lists for dispatch, how bool elements are read,
// and input type checks.
//
//   kiln::cpu::DispatchList(kiln::cpu::FloatTypes{}, x.type(), info, [&](auto tag) {
//     using T = typename decltype(tag)::type;
//   });
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_KERNEL_UTIL_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/cpu/types.h"

namespace kiln::cpu {

template <typename... Ts>
struct TypeList {};

using FloatTypes = TypeList<float, double, Float16, BFloat16>;
using SignedTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;
using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                              uint8_t, uint16_t, uint32_t, uint64_t>;

// Dispatch over the types of a TypeList.
template <typename... Ts, typename F>
void DispatchList(TypeList<Ts...>, DataType type, const KernelInfo& info, F&& fn) {
  Dispatch<Ts...>(type, info, std::forward<F>(fn));
}

// How elements of type T are read and written: bool tensors as bytes (any nonzero byte is true),
// so a caller's buffer holding 2 is not undefined behaviour.
template <typename T>
using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// Throws kInvalidArgument unless inputs `a_name` and `b_name` have the same element type.
inline void RequireSameType(const KernelInfo& info, const Tensor& a, const char* a_name,
                            const Tensor& b, const char* b_name) {
  if (a.type() != b.type()) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + b_name + "' is " +
                                               DataTypeName(b.type()) + " but '" + a_name +
                                               "' is " + DataTypeName(a.type()) +
                                               "; they must have the same element type");
  }
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_KERNEL_UTIL_H_
