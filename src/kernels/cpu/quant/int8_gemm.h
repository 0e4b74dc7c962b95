// Integer matrix products for the quantized operators: C (int32) = (A - za) · (B - zb) over 8-bit
// operands (int8 or uint8 each), B packed once (a weight) or per run, on AVX-512 VNNI where the
// machine has it (vpdpbusd: four u8 × s8 products added into each int32 lane per instruction),
// else AVX2's vpmaddwd on 16-bit pairs, else a vectorized C++ loop.
//
//   Int8PackedB w = Int8PackedB::Pack(b, /*b_signed=*/true, n, k, n);  // once: B is k × n
//   Int8Gemm(m, a, /*a_signed=*/false, k, w, {&za, 1}, {&zb, 1}, c, n, &pool);
//
// Both operands are brought to one form, A as unsigned and B as signed bytes (a signed A and an
// unsigned B flipped by 128), and the zero points and those shifts folded into terms per row of A
// and per column of B: Σ (Au - α)(Bs - β) = Σ Au·Bs - β·ΣAu - α·ΣBs + k·α·β, with B's column sums
// made when it is packed. The result is exact (int32 arithmetic, wrapping as the products'
// two's-complement sums do).
#ifndef KILN_KERNELS_CPU_QUANT_INT8_GEMM_H_
#define KILN_KERNELS_CPU_QUANT_INT8_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/thread_pool.h"

namespace kiln::cpu {

// Columns per packed panel of B.
inline constexpr size_t kInt8Panel = 32;

// B (k × n, int8 or uint8) as signed bytes (a uint8 B shifted by -128) in panels of 32 columns:
// panel j holds, for each group of four depths g, the 32 columns' four bytes B(4g..4g+3, col)
// one column after another (128 bytes a group), zero past k and past n. Also each column's sum
// of its signed values. Movable, not copyable.
class Int8PackedB {
 public:
  // b is row-major with row stride ldb (bytes), or stored n × k (each column of B a row, ldb
  // apart) when `transposed`: a convolution's weights [M, C·kH·kW]. Throws Error(kOutOfMemory).
  static Int8PackedB Pack(const void* b, bool b_signed, size_t ldb, size_t k, size_t n,
                          bool transposed = false);
  // The same into storage the caller owns (a B that changes per run, packed into a kernel's
  // scratch: nothing allocated): `panels` of PanelBytes(k, n) bytes, 64-byte aligned, and `sums`
  // of n values; the result views them.
  static size_t PanelBytes(size_t k, size_t n) {
    return (n + kInt8Panel - 1) / kInt8Panel * ((k + 3) / 4) * kInt8Panel * 4;
  }
  static Int8PackedB PackInto(int8_t* panels, int32_t* sums, const void* b, bool b_signed,
                              size_t ldb, size_t k, size_t n, bool transposed = false);

  size_t k() const { return k_; }
  size_t n() const { return n_; }
  bool b_signed() const { return b_signed_; }
  size_t groups() const { return (k_ + 3) / 4; }
  size_t panels() const { return (n_ + kInt8Panel - 1) / kInt8Panel; }
  const int8_t* panel(size_t j) const { return panels_ + j * groups() * kInt8Panel * 4; }
  // Σ_k Bs(k, j), Bs the signed form.
  const int32_t* column_sums() const { return sums_; }

 private:
  struct Free {
    void operator()(void* p) const noexcept;
  };
  size_t k_ = 0;
  size_t n_ = 0;
  bool b_signed_ = true;
  std::unique_ptr<int8_t[], Free> own_panels_;  // null for a view
  std::unique_ptr<int32_t[], Free> own_sums_;
  int8_t* panels_ = nullptr;
  int32_t* sums_ = nullptr;
};

// A requantization of C into bytes: y[i·ldy + j] = saturate(round_half_even((C(i, j) + bias[j])
// · mult[j]) + zp) (int8 when y_signed, else uint8; bias may be null) — RequantizeRowsAvx512's
// values.
struct Int8Requant {
  const int32_t* bias = nullptr;
  const float* mult = nullptr;
  int32_t zp = 0;
  bool y_signed = false;
  uint8_t* y = nullptr;
  size_t ldy = 0;
};

// A conversion of C to float: y[i·ldy + j] = float(C(i, j)) · mult[j] (+ bias[j]; bias may be
// null), the product and the sum each rounded (no fused multiply-add).
struct Int8ToFloat {
  const float* mult = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  size_t ldy = 0;
};

// What to do with each block of finished rows of C, in the thread that made it while they are
// still in its cache (requantize them, say): fn(state, first, count, c, ldc) for rows [first,
// first + count), row first + i at c + i · ldc. Of(f) wraps a callable that outlives the product.
// With `requant` or `to_float` too (fn must do the same), the VNNI kernel requantizes or converts
// its tiles of sums in registers into their outputs instead, where it can (one zero point for A,
// no row sums: symmetric weights; AVX-512 on): no int32 block is stored and fn is not called.
struct Int8Epilogue {
  void (*fn)(const void* state, size_t first, size_t count, const int32_t* c, size_t ldc) = nullptr;
  const void* state = nullptr;
  const Int8Requant* requant = nullptr;
  const Int8ToFloat* to_float = nullptr;

  template <typename F>
  static Int8Epilogue Of(const F& f) {
    return {[](const void* s, size_t first, size_t count, const int32_t* c, size_t ldc) {
              (*static_cast<const F*>(s))(first, count, c, ldc);
            },
            &f, nullptr, nullptr};
  }
};

// C[m × n] (row stride ldc) = (A - za) · (B - zb): A is m × k bytes (int8 when a_signed, else
// uint8) with row stride lda (rows at least k rounded up to four bytes apart may be read that far,
// the bytes past k whatever they hold: they meet B's zero padding; so m · lda bytes must be
// readable); za has one value or one per row of A (m), zb one or one per column
// of B (n); each holds the zero point's integer value. Rows are shared out over `pool` (null:
// this thread). With an epilogue, each block of rows is handed to it once finished; c may then be
// null, the blocks made in a per-thread buffer (the whole C never written). Throws
// Error(kOutOfMemory) for its scratch.
void Int8Gemm(size_t m, const void* a, bool a_signed, size_t lda, const Int8PackedB& b,
              std::span<const int32_t> za, std::span<const int32_t> zb, int32_t* c, size_t ldc,
              ThreadPool* pool, Int8Epilogue epilogue = {});

// The kernels, fastest first (AVX2: vpmaddwd on 16-bit pairs, for machines without VNNI). Tests
// run each one the machine supports.
enum class Int8Kernel { kVnni, kAvx2, kGeneric };
bool Int8KernelSupported(Int8Kernel kernel);
// Makes later products use `kernel` (it must be supported), for tests; returns the previous one.
Int8Kernel SetInt8KernelForTesting(Int8Kernel kernel);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_INT8_GEMM_H_
