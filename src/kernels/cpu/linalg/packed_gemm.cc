// PackedGemm: packing, the choice of micro-kernel, depth blocking and the split over threads.
// The micro-kernels are in packed_kernel.h; here is the portable one.
#include "kernels/cpu/linalg/packed_gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "core/error.h"
#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/packed_kernel.h"

namespace kiln::cpu {
namespace {

static_assert(kPackedPanel == packed::kPanel, "one panel width");

// Depth per block. Each tile streams its slice of the panel from L2 whatever the depth (with its
// tile of A, a slice as small as 256 × 32 already fills L1), so deeper blocks cost nothing there
// and save the passes that add each block's sums into C. Measured against cold weights (GFLOP/s,
// blocks of 256 → 1024): 128×768·768×3072 108 → 111, 128×768·768×768 111 → 113, GPT's head
// 64×512·512×50257 105 → 110, a 3×3 convolution's 3136×576·576×64 105 → 114.
constexpr size_t kDepthBlock = 1024;
// Rows per tile when a product is shared out (a multiple of 12 and of 6), and panels per tile.
constexpr size_t kTileRows = 96;
constexpr size_t kTilePanels = 4;
// Multiply-adds below which a product runs on the calling thread alone.
constexpr double kMinParallelWork = 65536;

constexpr size_t CeilDiv(size_t a, size_t b) {
  return (a + b - 1) / b;
}

// The epilogue on the value v of C(i, j) (see GemmEpilogue).
inline float EpilogueOf(const packed::TileEpilogue& ep, float v, size_t i, size_t j) {
  if (ep.bias != nullptr) v += ep.bias[j];
  if (ep.z != nullptr) v += ep.z[i * ep.ldz + j];
  // std::max(v, lo) is v < lo ? lo : v, x86's max(lo, v): a NaN v stays.
  if (ep.clamp) v = std::min(std::max(v, ep.lo), ep.hi);
  return v;
}

// The portable micro-kernel: tiles of up to kPortableRows rows by 32 sums, plain loops for the
// compiler to vectorize as the baseline target allows.
constexpr size_t kPortableRows = 4;
void PanelPortable(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
                   size_t ldc, size_t cols, bool accumulate, ptrdiff_t /*next*/,
                   const packed::TileEpilogue* ep) {
  constexpr size_t kW = packed::kPanel;
  for (size_t t = 0; t < packed::TileCount(m, kPortableRows); ++t) {
    const size_t i = packed::TileStart(m, kPortableRows, t);
    const size_t rows = packed::TileRows(m, kPortableRows, t);
    const float* at = a + i * lda;
    // Runs of packed::kSumDepth steps summed apart and added to C, as the vector kernels do.
    for (size_t p0 = 0; p0 < kc; p0 += packed::kSumDepth) {
      const size_t p1 = std::min(kc, p0 + packed::kSumDepth);
      float acc[kPortableRows][kW] = {};
      for (size_t p = p0; p < p1; ++p) {
        const float* brow = b + p * kW;
        for (size_t r = 0; r < rows; ++r) {
          const float av = at[r * lda + p];
          for (size_t j = 0; j < kW; ++j) acc[r][j] += av * brow[j];
        }
      }
      const bool add = accumulate || p0 > 0;
      const bool last = ep != nullptr && p1 == kc;
      for (size_t r = 0; r < rows; ++r) {
        float* row = c + (i + r) * ldc;
        for (size_t j = 0; j < cols; ++j) {
          float v = add ? row[j] + acc[r][j] : acc[r][j];
          if (last) v = EpilogueOf(*ep, v, i + r, j);
          row[j] = v;
        }
      }
    }
  }
}

// The most rows of A packed at a time (256 KB at full depth, in L2); a product's rows are cut into
// equal blocks, so 197 rows are one block, not 192 and a slow 5.
constexpr size_t kRowBlock = 256;
// The most floats of C that a product against several depth blocks keeps per column chunk
// (128 KB). Measured against 12 cold weights (GFLOP/s, unchunked → chunked; sgemm ≈ 111):
// 197×768·768×2304 103 → 109, 128×768·768×3072 99 → 107, GPT's head 64×512·512×50257 92 → 103.
constexpr size_t kChunkCFloats = 32768;

struct Kernel {
  packed::PanelFn fn;
  size_t rows;  // the most rows per tile
};

bool Supported(PackedKernel kernel) {
#if defined(__x86_64__)
  switch (kernel) {
    case PackedKernel::kAvx512:
      return __builtin_cpu_supports("avx512f");
    case PackedKernel::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case PackedKernel::kPortable:
      return true;
  }
  return false;
#else
  return kernel == PackedKernel::kPortable;
#endif
}

PackedKernel Widest() {
  if (Supported(PackedKernel::kAvx512)) return PackedKernel::kAvx512;
  if (Supported(PackedKernel::kAvx2)) return PackedKernel::kAvx2;
  return PackedKernel::kPortable;
}

std::atomic<PackedKernel>& Chosen() {
  static std::atomic<PackedKernel> chosen{Widest()};
  return chosen;
}

Kernel KernelFor(PackedKernel kernel) {
  switch (kernel) {
#if defined(__x86_64__)
    case PackedKernel::kAvx512:
      return {packed::PanelAvx512, packed::kAvx512Rows};
    case PackedKernel::kAvx2:
      return {packed::PanelAvx2, packed::kAvx2Rows};
#endif
    default:
      return {PanelPortable, kPortableRows};
  }
}

}  // namespace

void PackedMatrix::Free::operator()(float* p) const noexcept {
  std::free(p);
}

PackedMatrix PackedMatrix::Allocate(size_t k, size_t n) {
  PackedMatrix out;
  out.k_ = k;
  out.n_ = n;
  const size_t floats = out.panels() * k * kPackedPanel;
  if (floats == 0) return out;
  constexpr size_t kAlign = 64;
  const size_t bytes = CeilDiv(floats * sizeof(float), kAlign) * kAlign;
  out.data_.reset(static_cast<float*>(std::aligned_alloc(kAlign, bytes)));
  if (out.data_ == nullptr) {
    throw Error(ErrorCode::kOutOfMemory, "out of memory packing a " + std::to_string(k) + "×" +
                                             std::to_string(n) + " weight matrix");
  }
  std::memset(out.data_.get(), 0, bytes);
  out.base_ = out.data_.get();
  return out;
}

PackedMatrix PackedMatrix::View(const float* panels, size_t k, size_t n) {
  constexpr uintptr_t kAlign = 64;
  if (k > 0 && n > 0 && reinterpret_cast<uintptr_t>(panels) % kAlign != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "a view of packed panels needs a 64-byte aligned address");
  }
  PackedMatrix out;
  out.k_ = k;
  out.n_ = n;
  if (k > 0 && n > 0) out.base_ = panels;
  return out;
}

namespace {

// Writes B (k × n, row stride ldb; stored n × k when `transposed`) times `scale` as panels at
// `dst` (PanelFloats(k, n) floats), zero past column n.
void WritePanels(float* dst, const float* b, size_t ldb, size_t k, size_t n, bool transposed,
                 float scale) {
  for (size_t j0 = 0; j0 < n; j0 += kPackedPanel) {
    float* panel = dst + j0 * k;
    const size_t cols = std::min(kPackedPanel, n - j0);
    if (transposed) {
      // B is stored n×k: each of the panel's columns is a row, written column by column.
      for (size_t c = 0; c < cols; ++c) {
        const float* src = b + (j0 + c) * ldb;
        for (size_t p = 0; p < k; ++p) panel[p * kPackedPanel + c] = src[p] * scale;
      }
    } else if (scale == 1.0f) {
      for (size_t p = 0; p < k; ++p) {
        std::memcpy(panel + p * kPackedPanel, b + p * ldb + j0, cols * sizeof(float));
      }
    } else {
      for (size_t p = 0; p < k; ++p) {
        for (size_t c = 0; c < cols; ++c) panel[p * kPackedPanel + c] = b[p * ldb + j0 + c] * scale;
      }
    }
    if (cols < kPackedPanel) {
      for (size_t p = 0; p < k; ++p) {
        std::fill(panel + p * kPackedPanel + cols, panel + (p + 1) * kPackedPanel, 0.0f);
      }
    }
  }
}

}  // namespace

PackedMatrix PackedMatrix::Pack(const float* b, size_t ldb, size_t k, size_t n, bool transposed) {
  PackedMatrix out = Allocate(k, n);
  if (!out.empty()) WritePanels(out.data_.get(), b, ldb, k, n, transposed, 1.0f);
  return out;
}

PackedMatrix PackedMatrix::PackInto(float* storage, const float* b, size_t ldb, size_t k, size_t n,
                                    bool transposed, float scale) {
  if (k > 0 && n > 0) WritePanels(storage, b, ldb, k, n, transposed, scale);
  return View(storage, k, n);
}

void PackedGemm(size_t m, const float* a, size_t lda, const PackedMatrix& b, size_t col_begin,
                size_t col_end, float* c, size_t ldc, bool accumulate, const GemmEpilogue* ep) {
  if (m == 0 || col_begin >= col_end) return;
  const size_t k = b.k();
  // The kernels' form of ep, at C's row 0, column 0.
  packed::TileEpilogue tile_ep{};
  if (ep != nullptr) tile_ep = {ep->bias, ep->z, ep->ldz, ep->clamp, ep->lo, ep->hi};
  if (k == 0) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = col_begin; j < col_end; ++j) {
        const float v = accumulate ? c[i * ldc + j] : 0.0f;
        c[i * ldc + j] = ep != nullptr ? EpilogueOf(tile_ep, v, i, j) : v;
      }
    }
    return;
  }
  // Equal depth blocks of at most kDepthBlock, equal row blocks of at most kRowBlock.
  const size_t blocks = CeilDiv(k, kDepthBlock);
  const size_t depth = CeilDiv(k, blocks);
  const size_t row_block = CeilDiv(m, CeilDiv(m, kRowBlock));
  // The kernels read A in place, row by row, except when its row stride is a multiple of 4 KB:
  // then a tile's rows all fall in one set of the L1 cache, and each block of rows is first
  // copied whole, its rows one cache line further apart (for two panels or fewer the copy would
  // cost more than the misses). Measured on ViT's 197×3072·3072×768 against 12 cold weights:
  // 104 GFLOP/s with each depth block packed by tiles, 110 so (sgemm 112).
  constexpr size_t kCacheWay = 4096 / sizeof(float);
  if (lda % kCacheWay == 0 && col_end - col_begin > 2 * kPackedPanel) {
    constexpr size_t kLine = 64 / sizeof(float);
    const size_t stride = k + kLine;
    float* copy = ThreadBufferOf(ThreadBuffer::kRowsOfA, row_block * stride);
    for (size_t i0 = 0; i0 < m; i0 += row_block) {
      const size_t mb = std::min(row_block, m - i0);
      for (size_t i = 0; i < mb; ++i) {
        std::memcpy(copy + i * stride, a + (i0 + i) * lda, k * sizeof(float));
      }
      GemmEpilogue rows_ep;
      if (ep != nullptr) {
        rows_ep = *ep;
        if (rows_ep.z != nullptr) rows_ep.z += i0 * rows_ep.ldz;
      }
      PackedGemm(mb, copy, stride, b, col_begin, col_end, c + i0 * ldc, ldc, accumulate,
                 ep != nullptr ? &rows_ep : nullptr);
    }
    return;
  }
  // Several depth blocks add into C once each: when a row block's C is larger than
  // kChunkCFloats, the columns go in chunks whose C stays in L2 over all the depth blocks.
  const size_t chunk = std::max<size_t>(4, kChunkCFloats / row_block / kPackedPanel) * kPackedPanel;
  if (blocks > 1 && col_end - col_begin > chunk + chunk / 2) {
    const size_t chunks = CeilDiv(col_end - col_begin, chunk);
    const size_t panels = CeilDiv(col_end - col_begin, kPackedPanel);
    for (size_t t = 0; t < chunks; ++t) {
      const size_t c0 = col_begin + PartStart(panels, chunks, t) * kPackedPanel;
      const size_t c1 =
          std::min(col_end, col_begin + PartStart(panels, chunks, t + 1) * kPackedPanel);
      PackedGemm(m, a, lda, b, c0, c1, c, ldc, accumulate, ep);
    }
    return;
  }
  const Kernel kernel = KernelFor(Chosen().load(std::memory_order_relaxed));
  for (size_t i0 = 0; i0 < m; i0 += row_block) {
    const size_t mb = std::min(row_block, m - i0);
    for (size_t p0 = 0; p0 < k; p0 += depth) {
      const size_t kc = std::min(depth, k - p0);
      const float* ab = a + i0 * lda + p0;
      const bool add = accumulate || p0 > 0;
      for (size_t j0 = col_begin; j0 < col_end; j0 += kPackedPanel) {
        const size_t cols = std::min(kPackedPanel, col_end - j0);
        // Where the next panel's slice is, from this one: the following panel at this depth (a
        // panel stride on), else the first panel at the next depth; 0 at the end of the product.
        ptrdiff_t next = 0;
        if (j0 + kPackedPanel < col_end) {
          next = static_cast<ptrdiff_t>(b.panel_stride());
        } else if (p0 + kc < k) {
          next = b.panel(col_begin / kPackedPanel) - b.panel(j0 / kPackedPanel) +
                 static_cast<ptrdiff_t>(kc * kPackedPanel);
        }
        // The epilogue with the last depth block, at this panel's row i0, column j0.
        packed::TileEpilogue panel_ep = tile_ep;
        if (panel_ep.bias != nullptr) panel_ep.bias += j0;
        if (panel_ep.z != nullptr) panel_ep.z += i0 * panel_ep.ldz + j0;
        kernel.fn(mb, kc, ab, lda, b.panel(j0 / kPackedPanel) + p0 * kPackedPanel,
                  c + i0 * ldc + j0, ldc, cols, add, next,
                  ep != nullptr && p0 + kc == k ? &panel_ep : nullptr);
      }
    }
  }
}

void PackedGemm(size_t m, const float* a, size_t lda, const PackedMatrix& b, float* c, size_t ldc,
                ThreadPool* pool, bool accumulate, const GemmEpilogue* ep) {
  const size_t n = b.n();
  if (m == 0 || n == 0) return;
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(b.k());
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->size()) : 1;
  if (threads == 1 || work < kMinParallelWork) {
    return PackedGemm(m, a, lda, b, 0, n, c, ldc, accumulate, ep);
  }
  // Tiles of rows × panels, more of them until each thread has a few; rows and panels are
  // shared out evenly, so no tile is a sliver.
  size_t row_parts = CeilDiv(m, kTileRows);
  size_t col_parts = CeilDiv(b.panels(), kTilePanels);
  while (row_parts * col_parts < 4 * threads) {
    if (col_parts < b.panels()) {
      col_parts = std::min(b.panels(), 2 * col_parts);
    } else if (m / (2 * row_parts) >= 12) {
      row_parts *= 2;
    } else {
      break;
    }
  }
  pool->ParallelFor(row_parts * col_parts, 1, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      const size_t rt = t / col_parts;
      const size_t ct = t % col_parts;
      const size_t i0 = PartStart(m, row_parts, rt);
      const size_t rows = PartStart(m, row_parts, rt + 1) - i0;
      const size_t p0 = PartStart(b.panels(), col_parts, ct);
      const size_t panels = PartStart(b.panels(), col_parts, ct + 1) - p0;
      GemmEpilogue rows_ep;
      if (ep != nullptr) {
        rows_ep = *ep;
        if (rows_ep.z != nullptr) rows_ep.z += i0 * rows_ep.ldz;
      }
      PackedGemm(rows, a + i0 * lda, lda, b, p0 * kPackedPanel,
                 std::min(n, (p0 + panels) * kPackedPanel), c + i0 * ldc, ldc, accumulate,
                 ep != nullptr ? &rows_ep : nullptr);
    }
  });
}

float* ThreadBufferOf(ThreadBuffer which, size_t floats) {
  static constexpr Workspace kOf[] = {Workspace::kPackedRowsOfA, Workspace::kPackedB,
                                      Workspace::kPackedTransposedA};
  return static_cast<float*>(
      ThreadWorkspace(kOf[static_cast<size_t>(which)], floats * sizeof(float)));
}

void PreparePackedGemmWorkspace() noexcept {
  try {
    // The copy for 256 rows of A up to 240 deep (the row stride is the depth plus a line); a
    // larger product grows it.
    ThreadBufferOf(ThreadBuffer::kRowsOfA, kRowBlock * 256);
  } catch (const std::exception&) {
    // Made on first use instead, which reports the failure (an Error, or std::bad_alloc when
    // even its message cannot be allocated).
  }
}

bool PackedKernelSupported(PackedKernel kernel) {
  return Supported(kernel);
}

PackedKernel SetPackedKernelForTesting(PackedKernel kernel) {
  if (!Supported(kernel)) {
    throw Error(ErrorCode::kInvalidArgument, "this machine does not run that packed kernel");
  }
  return Chosen().exchange(kernel);
}

}  // namespace kiln::cpu
