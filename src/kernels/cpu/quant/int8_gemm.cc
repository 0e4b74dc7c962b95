// Int8Gemm: packing B, preparing A's rows, the kernel choice, the zero-point terms and the split
// over threads (see int8_gemm.h). The VNNI and AVX2 kernels are int8_kernel_vnni.cc and
// int8_kernel_avx2.cc; here is the generic one.
#include "kernels/cpu/quant/int8_gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.h"
#include "kernels/cpu/common.h"
#include "kernels/cpu/quant/int8_kernel.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr size_t kGroupBytes = kInt8Panel * 4;  // one group of four depths of a panel

// The generic kernel over the same layout: C(r, col) = Σ_g Σ_t A(r, 4g + t) · P(g, col, t), one
// row at a time with its 32 sums in an array, for the compiler to vectorize along the columns.
KILN_VECTOR_CLONES void PanelGeneric(size_t m, size_t groups, const uint8_t* a, size_t lda,
                                     const int8_t* panel, const int32_t* init, int32_t* c,
                                     size_t ldc, size_t cols) {
  for (size_t r = 0; r < m; ++r) {
    uint32_t acc[kInt8Panel] = {};  // wrapping as the vector kernels' sums do
    if (init != nullptr) {
      for (size_t col = 0; col < kInt8Panel; ++col) acc[col] = static_cast<uint32_t>(init[col]);
    }
    const uint8_t* ar = a + r * lda;
    for (size_t g = 0; g < groups; ++g) {
      const int8_t* pg = panel + g * kGroupBytes;
      const int32_t a0 = ar[4 * g], a1 = ar[4 * g + 1], a2 = ar[4 * g + 2], a3 = ar[4 * g + 3];
      for (size_t col = 0; col < kInt8Panel; ++col) {
        const int8_t* p = pg + 4 * col;
        acc[col] += static_cast<uint32_t>(a0 * p[0] + a1 * p[1] + a2 * p[2] + a3 * p[3]);
      }
    }
    std::memcpy(c + r * ldc, acc, cols * sizeof(int32_t));
  }
}

// A's row as unsigned bytes (flip 0x80: an int8 row's values + 128), returning their sum.
KILN_VECTOR_CLONES int32_t PrepareRow(const uint8_t* src, size_t k, uint8_t flip, uint8_t* dst) {
  int32_t sum = 0;
  for (size_t p = 0; p < k; ++p) {
    const auto v = static_cast<uint8_t>(src[p] ^ flip);
    dst[p] = v;
    sum += v;
  }
  return sum;
}

// c[j] -= β[j]·row_sum + α·col_term[j] for j < n (col_term = ΣBs - k·β), in uint32 so that it
// wraps as the int32 sums do.
KILN_VECTOR_CLONES void ApplyZeroPoints(int32_t* c, size_t n, const uint32_t* beta,
                                        const uint32_t* col_term, uint32_t row_sum,
                                        uint32_t alpha) {
  for (size_t j = 0; j < n; ++j) {
    c[j] =
        static_cast<int32_t>(static_cast<uint32_t>(c[j]) - beta[j] * row_sum - alpha * col_term[j]);
  }
}

// A thread's buffer of `bytes` (0: A's rows, 1: the zero points' terms, 2: a block of sums), kept
// for its later products (ThreadWorkspace).
uint8_t* ThreadBuffer(size_t which, size_t bytes) {
  static constexpr Workspace kOf[] = {Workspace::kInt8Rows, Workspace::kInt8Terms,
                                      Workspace::kInt8Block};
  return static_cast<uint8_t*>(ThreadWorkspace(kOf[which], bytes));
}

bool Supported(Int8Kernel kernel) {
  switch (kernel) {
    case Int8Kernel::kVnni:
#if defined(__x86_64__)
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
#else
      return false;
#endif
    case Int8Kernel::kAvx2:
#if defined(__x86_64__)
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case Int8Kernel::kGeneric:
      return true;
  }
  return false;
}

std::atomic<Int8Kernel>& Chosen() {
  static std::atomic<Int8Kernel> chosen{Supported(Int8Kernel::kVnni)   ? Int8Kernel::kVnni
                                        : Supported(Int8Kernel::kAvx2) ? Int8Kernel::kAvx2
                                                                       : Int8Kernel::kGeneric};
  return chosen;
}

int8::PanelFn PanelFor(Int8Kernel kernel) {
#if defined(__x86_64__)
  if (kernel == Int8Kernel::kVnni) return int8::PanelVnni;
  if (kernel == Int8Kernel::kAvx2) return int8::PanelAvx2;
#endif
  return PanelGeneric;
}

template <typename T>
T* AllocateZeroed(size_t count) {
  constexpr size_t kAlign = 64;
  const size_t bytes = std::max<size_t>(kAlign, (count * sizeof(T) + kAlign - 1) / kAlign * kAlign);
  void* p = std::aligned_alloc(kAlign, bytes);
  if (p == nullptr) throw Error(ErrorCode::kOutOfMemory, "out of memory packing an int8 matrix");
  std::memset(p, 0, bytes);
  return static_cast<T*>(p);
}

// Rows of A prepared at a time, per thread: their bytes (≤ 96 × a deep row) stay in L1/L2 over
// every panel of B.
constexpr size_t kRowBlock = 96;
// Multiply-adds below which a product runs on the calling thread alone.
constexpr size_t kMinParallelWork = size_t{1} << 18;

}  // namespace

void Int8PackedB::Free::operator()(void* p) const noexcept {
  std::free(p);
}

Int8PackedB Int8PackedB::Pack(const void* b, bool b_signed, size_t ldb, size_t k, size_t n,
                              bool transposed) {
  auto* panels = AllocateZeroed<int8_t>(PanelBytes(k, n));
  std::unique_ptr<int8_t[], Free> own_panels(panels);
  auto* sums = AllocateZeroed<int32_t>(n);
  std::unique_ptr<int32_t[], Free> own_sums(sums);
  Int8PackedB out = PackInto(panels, sums, b, b_signed, ldb, k, n, transposed);
  out.own_panels_ = std::move(own_panels);
  out.own_sums_ = std::move(own_sums);
  return out;
}

Int8PackedB Int8PackedB::PackInto(int8_t* panels, int32_t* sums, const void* b, bool b_signed,
                                  size_t ldb, size_t k, size_t n, bool transposed) {
  Int8PackedB out;
  out.k_ = k;
  out.n_ = n;
  out.b_signed_ = b_signed;
  out.panels_ = panels;
  out.sums_ = sums;
  const size_t groups = out.groups();
  std::memset(panels, 0, PanelBytes(k, n));
  std::fill(sums, sums + n, 0);
  const auto* src = static_cast<const uint8_t*>(b);
  for (size_t p = 0; p < k; ++p) {
    for (size_t j = 0; j < n; ++j) {
      // A uint8 value v as the signed byte v - 128 (its top bit flipped); an int8 as it is.
      const uint8_t raw = transposed ? src[j * ldb + p] : src[p * ldb + j];
      const auto v = static_cast<int8_t>(b_signed ? raw : raw ^ 0x80u);
      int8_t* panel = panels + (j / kInt8Panel) * groups * kGroupBytes;
      panel[(p / 4) * kGroupBytes + (j % kInt8Panel) * 4 + p % 4] = v;
      sums[j] += v;
    }
  }
  return out;
}

void Int8Gemm(size_t m, const void* a, bool a_signed, size_t lda, const Int8PackedB& b,
              std::span<const int32_t> za, std::span<const int32_t> zb, int32_t* c, size_t ldc,
              ThreadPool* pool, Int8Epilogue epilogue) {
  const size_t n = b.n();
  const size_t k = b.k();
  if (m == 0 || n == 0) return;
  const size_t groups = b.groups();
  const size_t row_bytes = groups * 4;  // A's prepared row: k bytes, zero to the group's end
  const int8::PanelFn fn = PanelFor(Chosen().load(std::memory_order_relaxed));
  // Σ (Au - α)(Bs - β) = Σ Au·Bs - β·ΣAu - α·(ΣBs - k·β): α per row and β per column are the
  // zero points with the shifts to Au and Bs folded in; β and ΣBs - k·β made once per call.
  const auto a_shift = static_cast<uint32_t>(a_signed ? 128 : 0);
  const auto b_shift = static_cast<uint32_t>(b.b_signed() ? 0 : 128);
  // With one zero point for A, its term -α·col_term is the same in every row: the kernels start
  // each column's sums from it (`start`, padded to whole panels), and no pass over C subtracts it.
  const size_t panels = b.panels();
  const bool one_alpha = za.size() == 1;
  auto* beta = reinterpret_cast<uint32_t*>(
      ThreadBuffer(1, (2 * n + (one_alpha ? panels * kInt8Panel : 0)) * sizeof(uint32_t)));
  uint32_t* col_term = beta + n;
  for (size_t j = 0; j < n; ++j) {
    beta[j] = static_cast<uint32_t>(zb.size() == 1 ? zb[0] : zb[j]) - b_shift;
    col_term[j] = static_cast<uint32_t>(b.column_sums()[j]) - static_cast<uint32_t>(k) * beta[j];
  }
  int32_t* start = nullptr;
  if (one_alpha) {
    start = reinterpret_cast<int32_t*>(col_term + n);
    const uint32_t alpha = static_cast<uint32_t>(za[0]) + a_shift;
    for (size_t j = 0; j < n; ++j) start[j] = static_cast<int32_t>(0u - alpha * col_term[j]);
    std::fill(start + n, start + panels * kInt8Panel, 0);
  }
  const auto* a_bytes = static_cast<const uint8_t*>(a);
  const auto flip = static_cast<uint8_t>(a_signed ? 0x80 : 0);
  // With B's zero points at its signed form's 0 (β = 0: int8 weights quantized symmetrically,
  // the common case) A's row sums are not needed; an unsigned A whose depth fills whole groups
  // of four, or whose rows are at least that far apart, is then read where it is, not copied
  // (the bytes past k meet B's zero padding).
  bool row_sums_needed = false;
  for (size_t j = 0; j < n && !row_sums_needed; ++j) row_sums_needed = beta[j] != 0;
  const bool in_place = !a_signed && !row_sums_needed && (k % 4 == 0 || lda >= row_bytes);
  // The VNNI kernel requantizing its own tiles (see Int8Epilogue): with the zero points all in
  // the sums' start, and the AVX-512 loops allowed (tests turn them off).
#if defined(__x86_64__)
  const bool vnni_tiles = c == nullptr && start != nullptr && !row_sums_needed &&
                          fn == int8::PanelVnni && UseVectorMathAvx512();
  const bool fused = vnni_tiles && epilogue.requant != nullptr;
  const bool fused_float = vnni_tiles && !fused && epilogue.to_float != nullptr;
#else
  constexpr bool fused = false;
  constexpr bool fused_float = false;
#endif
  // Requantizing tiles start from the bias too (the same wrapping int32 sums: one addition less
  // per value in the tile's requantization).
  if (fused && epilogue.requant->bias != nullptr) {
    for (size_t j = 0; j < n; ++j) {
      start[j] = static_cast<int32_t>(static_cast<uint32_t>(start[j]) +
                                      static_cast<uint32_t>(epilogue.requant->bias[j]));
    }
  }
  // Rows [begin, end) over the panels [p0, p1) of B (the epilogue only with all of them).
  const auto run = [&](size_t begin, size_t end, size_t p0, size_t p1) {
    const size_t j_begin = p0 * kInt8Panel;
    const size_t j_end = std::min(n, p1 * kInt8Panel);
    uint8_t* rows = ThreadBuffer(0, kRowBlock * (row_bytes + sizeof(int32_t)));
    auto* row_sums = reinterpret_cast<int32_t*>(rows + kRowBlock * row_bytes);
    // Without C, each block of rows is made in this thread's buffer for the epilogue (requantized
    // tiles need only a tile's worth, for the ones redone).
    const size_t ld = c != nullptr ? ldc : n;
    auto* block =
        c != nullptr
            ? nullptr
            : reinterpret_cast<int32_t*>(ThreadBuffer(
                  2, (fused || fused_float ? int8::kVnniRows * kInt8Panel : kRowBlock * n) *
                         sizeof(int32_t)));
    for (size_t i0 = begin; i0 < end; i0 += kRowBlock) {
      const size_t mb = std::min(kRowBlock, end - i0);
      // A's rows as unsigned bytes, zero past k (so the last group's extra depths add 0), and
      // each row's sum; or A itself.
      const uint8_t* ar = a_bytes + i0 * lda;
      size_t ar_stride = lda;
      if (!in_place) {
        for (size_t r = 0; r < mb; ++r) {
          uint8_t* dst = rows + r * row_bytes;
          row_sums[r] = PrepareRow(a_bytes + (i0 + r) * lda, k, flip, dst);
          std::memset(dst + k, 0, row_bytes - k);
        }
        ar = rows;
        ar_stride = row_bytes;
      }
#if defined(__x86_64__)
      if (fused) {
        const Int8Requant& rq = *epilogue.requant;
        for (size_t j0 = j_begin; j0 < j_end; j0 += kInt8Panel) {
          const int8::Requant at{nullptr,  // in the start
                                 rq.mult + j0, rq.zp, rq.y_signed, rq.y + i0 * rq.ldy + j0, rq.ldy};
          int8::PanelVnniRequant(mb, groups, ar, ar_stride, b.panel(j0 / kInt8Panel), start + j0,
                                 at, std::min(kInt8Panel, n - j0), block);
        }
        continue;
      }
      if (fused_float) {
        const Int8ToFloat& tf = *epilogue.to_float;
        for (size_t j0 = j_begin; j0 < j_end; j0 += kInt8Panel) {
          const int8::ToFloat at{tf.mult + j0, tf.bias != nullptr ? tf.bias + j0 : nullptr,
                                 tf.y + i0 * tf.ldy + j0, tf.ldy};
          int8::PanelVnniToFloat(mb, groups, ar, ar_stride, b.panel(j0 / kInt8Panel), start + j0,
                                 at, std::min(kInt8Panel, n - j0));
        }
        continue;
      }
#endif
      int32_t* cr = c != nullptr ? c + i0 * ldc : block;
      for (size_t j0 = j_begin; j0 < j_end; j0 += kInt8Panel) {
        const size_t cols = std::min(kInt8Panel, n - j0);
        fn(mb, groups, ar, ar_stride, b.panel(j0 / kInt8Panel),
           start != nullptr ? start + j0 : nullptr, cr + j0, ld, cols);
      }
      for (size_t r = 0; r < mb; ++r) {
        // α's term is in the sums already when the kernels started from it.
        const uint32_t alpha = one_alpha ? 0u : static_cast<uint32_t>(za[i0 + r]) + a_shift;
        if (!row_sums_needed && alpha == 0) continue;  // nothing to subtract
        ApplyZeroPoints(cr + r * ld + j_begin, j_end - j_begin, beta + j_begin, col_term + j_begin,
                        row_sums_needed ? static_cast<uint32_t>(row_sums[r]) : 0u, alpha);
      }
      if (epilogue.fn != nullptr) epilogue.fn(epilogue.state, i0, mb, cr, ld);
    }
  };
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->size()) : 1;
  if (threads == 1 || m * n * k < kMinParallelWork) {
    run(0, m, 0, panels);
  } else if ((epilogue.fn == nullptr || fused || fused_float) && m < threads * kRowBlock &&
             panels >= 4 * threads) {
    // Few rows and a wide B (a classifier, a language model's head): the threads share B's
    // panels, so that each reads its part of B once rather than all of it (with an epilogue
    // only where the tiles finish their own outputs).
    pool->ParallelForShares(panels, [&](size_t p0, size_t p1) { run(0, m, p0, p1); });
  } else {
    pool->ParallelForShares(m, [&](size_t r0, size_t r1) { run(r0, r1, 0, panels); });
  }
}

bool Int8KernelSupported(Int8Kernel kernel) {
  return Supported(kernel);
}

Int8Kernel SetInt8KernelForTesting(Int8Kernel kernel) {
  if (!Supported(kernel)) {
    throw Error(ErrorCode::kInvalidArgument, "this machine does not run that int8 kernel");
  }
  return Chosen().exchange(kernel);
}

}  // namespace kiln::cpu
