// Internal to int8_gemm.cc and its kernel files: the panel function each kernel provides.
#ifndef KILN_KERNELS_CPU_QUANT_INT8_KERNEL_H_
#define KILN_KERNELS_CPU_QUANT_INT8_KERNEL_H_

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {
// quant_avx512.h's, declared here: the kernel files include nothing that brings the standard
// library's inline functions (see packed_kernel.h).
void RedoUnsureRowsAvx512(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                          const float* mult, int32_t zp, bool y_signed, uint8_t* y, size_t ldy);
}  // namespace kiln::cpu

namespace kiln::cpu::int8 {

// C[0:m, 0:cols] = init[col] + Σ_g A(r, 4g..4g+3) · panel(g, col, 0..3) over `groups` groups of
// four depths: A unsigned bytes, row stride lda (a multiple of 4, zero past the depth), the panel
// signed bytes as Int8PackedB lays them out; cols ≤ 32; init 32 values (null: 0), added in
// wrapping int32 arithmetic. C's rows are ldc apart; only the first cols columns are written.
using PanelFn = void (*)(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
                         const int32_t* init, int32_t* c, size_t ldc, size_t cols);

// Rows per tile of the VNNI kernel (2 × 12 of the 32 vector registers hold the sums).
inline constexpr size_t kVnniRows = 12;

// Int8Requant's fields (int8_gemm.h), for the kernel files.
struct Requant {
  const int32_t* bias;
  const float* mult;
  int32_t zp;
  bool y_signed;
  uint8_t* y;
  size_t ldy;
};

// PanelVnni with each tile's sums requantized in registers as `rq` says (rq.y, rq.bias and rq.mult
// at the panel's first row and column) and stored as bytes; a tile with a value float cannot
// round surely is stored to `spill` (kVnniRows × 32 int32) and its unsure rows redone in double
// by RedoUnsureRowsAvx512, so the bytes are RequantizeRowsAvx512's.
void PanelVnniRequant(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
                      const int32_t* init, const Requant& rq, size_t cols, int32_t* spill);

// Int8ToFloat's fields (int8_gemm.h), for the kernel files.
struct ToFloat {
  const float* mult;
  const float* bias;
  float* y;
  size_t ldy;
};

// PanelVnni with each tile's sums converted to float in registers as `tf` says (its pointers at
// the panel's first row and column) and stored.
void PanelVnniToFloat(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
                      const int32_t* init, const ToFloat& tf, size_t cols);

void PanelVnni(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
               const int32_t* init, int32_t* c, size_t ldc, size_t cols);
void PanelAvx2(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
               const int32_t* init, int32_t* c, size_t ldc, size_t cols);

}  // namespace kiln::cpu::int8

// For the kernel files (which define KILN_INT8_KERNEL_BODY first): a loop fully unrolled, so that
// a tile's sums stay in registers. Each file #undefs it at its end.
#if defined(KILN_INT8_KERNEL_BODY)
#if defined(__clang__)
#define KILN_UNROLL _Pragma("unroll")
#else
#define KILN_UNROLL _Pragma("GCC unroll 16")
#endif
#endif

#endif  // KILN_KERNELS_CPU_QUANT_INT8_KERNEL_H_
