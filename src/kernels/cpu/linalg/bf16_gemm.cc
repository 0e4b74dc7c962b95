// The bf16 products' packing and driver (bf16_gemm.h); the kernel is bf16_kernel_avx512.cc.
#include "kernels/cpu/linalg/bf16_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/float16.h"
#include "kernels/cpu/common.h"

namespace kiln::cpu {
namespace {

// Rows of A made bf16 pairs at a time (in the calling thread's buffer).
constexpr size_t kRowBlock = 96;

// The calling thread's buffer of `count` pairs (ThreadWorkspace).
uint32_t* RowsBuffer(size_t count) {
  return static_cast<uint32_t*>(ThreadWorkspace(Workspace::kBf16Rows, count * sizeof(uint32_t)));
}

}  // namespace

void Bf16PackedB::Free::operator()(uint16_t* p) const noexcept {
  std::free(p);
}

Bf16PackedB Bf16PackedB::Allocate(size_t k, size_t n) {
  Bf16PackedB out;
  out.k_ = k;
  out.n_ = n;
  const size_t count = PanelElements(k, n);
  auto* p = static_cast<uint16_t*>(std::aligned_alloc(64, (count * 2 + 63) / 64 * 64));
  if (p == nullptr) throw Error(ErrorCode::kOutOfMemory, "out of memory packing a bf16 weight");
  std::memset(p, 0, count * 2);
  out.data_.reset(p);
  out.base_ = p;
  return out;
}

void Bf16PackedB::Set(size_t p, size_t j, float v) {
  uint16_t* panel = base_ + (j / kBf16Panel) * pairs() * kBf16Panel * 2;
  panel[(p / 2) * kBf16Panel * 2 + (j % kBf16Panel) * 2 + p % 2] = BFloat16::FromFloat(v).bits;
}

Bf16PackedB Bf16PackedB::PackFloatsInto(uint16_t* storage, const float* b, size_t ldb, size_t k,
                                        size_t n, bool transposed, uint32_t* column) {
  Bf16PackedB out;
  out.k_ = k;
  out.n_ = n;
  out.base_ = storage;
#if defined(__x86_64__)
  if (transposed) {
    bf16::PackColumnsAvx512Bf16(b, ldb, k, n, column, storage);
  } else {
    bf16::PackRowsAvx512Bf16(b, ldb, k, n, storage);
  }
#else
  (void)b, (void)ldb, (void)transposed, (void)column;
  throw Error(ErrorCode::kFail, "bf16 products need AVX-512 BF16");
#endif
  return out;
}

bool Bf16GemmSupported() {
#if defined(__x86_64__)
  static const bool supported =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
  return supported;
#else
  return false;
#endif
}

void Bf16Gemm(size_t m, const float* a, size_t lda, const Bf16PackedB& b, size_t col_begin,
              size_t col_end, float* c, size_t ldc) {
#if defined(__x86_64__)
  const size_t k = b.k();
  const size_t pairs = b.pairs();
  if (m == 0 || col_end <= col_begin) return;
  uint32_t* rows = RowsBuffer(kRowBlock * std::max<size_t>(pairs, 1));
  for (size_t i0 = 0; i0 < m; i0 += kRowBlock) {
    const size_t mb = std::min(kRowBlock, m - i0);
    for (size_t r = 0; r < mb; ++r)
      bf16::RowToPairsAvx512Bf16(a + (i0 + r) * lda, k, rows + r * pairs);
    for (size_t j0 = col_begin; j0 < col_end; j0 += kBf16Panel) {
      const size_t cols = std::min(kBf16Panel, col_end - j0);
      bf16::PanelAvx512Bf16(mb, pairs, rows, pairs, b.panel(j0 / kBf16Panel), c + i0 * ldc + j0,
                            ldc, cols);
    }
  }
#else
  (void)m, (void)a, (void)lda, (void)b, (void)col_begin, (void)col_end, (void)c, (void)ldc;
  throw Error(ErrorCode::kFail, "bf16 products need AVX-512 BF16");
#endif
}

}  // namespace kiln::cpu
