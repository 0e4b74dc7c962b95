// Float products in bf16 with float accumulation, for sessions that ask for them (session config
// kiln.compute.bf16): B (a constant weight) rounded to bf16 once and packed in pairs of depths,
// A's rows rounded to bf16 as they are used, and AVX-512 BF16's vdpbf16ps adding two products
// into each float lane per instruction (twice fp32's multiply-adds a vector). Machines without
// AVX-512 BF16 keep the float products (Bf16GemmSupported() says which).
//
//   Bf16PackedB w = Bf16PackedB::Pack(k, n, [&](size_t p, size_t j) { return b[p * n + j]; });
//   Bf16Gemm(m, a, k, w, 0, n, c, n);   // C[:, 0:n] = bf16(A) · bf16(B), float sums
#ifndef KILN_KERNELS_CPU_LINALG_BF16_GEMM_H_
#define KILN_KERNELS_CPU_LINALG_BF16_GEMM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace kiln::cpu {

// Columns per packed panel.
inline constexpr size_t kBf16Panel = 32;

// B (k × n) rounded to bf16 (to nearest, ties to even) in panels of 32 columns: panel j holds,
// for each pair of depths g, the 32 columns' two values B(2g, col), B(2g + 1, col) one column
// after another (128 bytes a pair), zero past k and past n. Movable, not copyable.
class Bf16PackedB {
 public:
  template <typename Value>
  static Bf16PackedB Pack(size_t k, size_t n, Value&& value) {
    Bf16PackedB out = Allocate(k, n);
    for (size_t p = 0; p < k; ++p) {
      for (size_t j = 0; j < n; ++j) out.Set(p, j, value(p, j));
    }
    return out;
  }

  // The same into storage the caller owns (a B that changes per run, packed into a kernel's
  // scratch: nothing allocated), PanelElements(k, n) values; the result views it.
  static size_t PanelElements(size_t k, size_t n) {
    return std::max<size_t>((n + kBf16Panel - 1) / kBf16Panel * ((k + 1) / 2) * kBf16Panel * 2, 32);
  }
  template <typename Value>
  static Bf16PackedB PackInto(uint16_t* storage, size_t k, size_t n, Value&& value) {
    Bf16PackedB out;
    out.k_ = k;
    out.n_ = n;
    out.base_ = storage;
    std::fill(storage, storage + PanelElements(k, n), uint16_t{0});
    for (size_t p = 0; p < k; ++p) {
      for (size_t j = 0; j < n; ++j) out.Set(p, j, value(p, j));
    }
    return out;
  }

  // B (k × n floats, row-major, rows ldb apart; or, `transposed`, column j at b + j·ldb) packed
  // into storage as PackInto does, with the vector conversions (round to nearest even; where
  // Bf16GemmSupported() only). `column`: (k + 1) / 2 words of scratch for the transposed form.
  static Bf16PackedB PackFloatsInto(uint16_t* storage, const float* b, size_t ldb, size_t k,
                                    size_t n, bool transposed, uint32_t* column);

  size_t k() const { return k_; }
  size_t n() const { return n_; }
  size_t pairs() const { return (k_ + 1) / 2; }
  const uint16_t* panel(size_t j) const { return base_ + j * pairs() * kBf16Panel * 2; }

 private:
  struct Free {
    void operator()(uint16_t* p) const noexcept;
  };
  static Bf16PackedB Allocate(size_t k, size_t n);  // zero-filled; throws kOutOfMemory
  void Set(size_t p, size_t j, float v);

  size_t k_ = 0;
  size_t n_ = 0;
  std::unique_ptr<uint16_t[], Free> data_;  // null for a view
  uint16_t* base_ = nullptr;                // data_'s, or the caller's storage
};

// Whether this machine runs the bf16 products (AVX-512 BF16).
bool Bf16GemmSupported();

// C[0:m, col_begin:col_end] = bf16(A) · B[:, col_begin:col_end] on the calling thread, with float
// sums; A is m × B.k() floats with row stride lda; col_begin a multiple of kBf16Panel. Only where
// Bf16GemmSupported().
void Bf16Gemm(size_t m, const float* a, size_t lda, const Bf16PackedB& b, size_t col_begin,
              size_t col_end, float* c, size_t ldc);

namespace bf16 {
// Internal to bf16_gemm.cc and its kernel file (compiled with -mavx512bf16): C[0:m, 0:cols] for
// one panel from A's rows already as bf16 pairs (row stride lda 32-bit pairs, pairs pairs each).
void PanelAvx512Bf16(size_t m, size_t pairs, const uint32_t* a, size_t lda, const uint16_t* panel,
                     float* c, size_t ldc, size_t cols);
// dst[g] = the pair (bf16(src[2g]), bf16(src[2g + 1])) for g < (k + 1) / 2, zero past k.
void RowToPairsAvx512Bf16(const float* src, size_t k, uint32_t* dst);
// Bf16PackedB's panels of B (k × n, row-major, rows ldb apart) into dst (PanelElements(k, n)).
void PackRowsAvx512Bf16(const float* b, size_t ldb, size_t k, size_t n, uint16_t* dst);
// The same of B given transposed (column j of B at bt + j·ldbt); `column` holds (k + 1) / 2 words.
void PackColumnsAvx512Bf16(const float* bt, size_t ldbt, size_t k, size_t n, uint32_t* column,
                           uint16_t* dst);
}  // namespace bf16

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_BF16_GEMM_H_
