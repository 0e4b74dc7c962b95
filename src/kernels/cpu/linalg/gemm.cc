// Gemm for float and double, blocked for the caches. C is cut into tiles that the pool hands out;
// for each depth block a tile packs its rows of op(A) into strips of kMr rows and its columns of
// op(B) into strips of kNr columns, and a register-blocked micro-kernel multiplies one A strip by
// one B strip into a kMr×kNr block of accumulators. The micro-kernel is plain C++ whose inner loop
// runs over kNr contiguous columns, which the compiler turns into SSE2 vectors; kNr is two vectors
// wide, so a wider target only needs a wider kNr. Products with at most kThin rows or columns
// (matrix-vector shapes) skip the packing and stream the large operand once. Nothing is allocated
// per product: the packing panels are a bounded per-thread workspace made on a thread's first
// product, and the thin forms read transposed operands in place.
#include "kernels/cpu/linalg/gemm.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>

#include <omp.h>  // oneDNN's OpenMP runtime takes its thread count from the calling thread
#include <oneapi/dnnl/dnnl.h>

#include "core/error.h"
#include "core/thread_cache.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_simd.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

// The register tile: kMr·kNr accumulators plus one strip row of B and one broadcast value of A
// fill the 16 SSE registers.
template <typename T>
struct RegisterTile;
template <>
struct RegisterTile<float> {
  static constexpr size_t kMr = 6;
  static constexpr size_t kNr = 8;
};
template <>
struct RegisterTile<double> {
  static constexpr size_t kMr = 6;
  static constexpr size_t kNr = 4;
};

// Cache blocks: a kc×kNr strip of B stays in L1 while the kMc×kc block of A streams from L2.
constexpr size_t kDepthBlock = 256;  // kc
constexpr size_t kRowBlock = 96;     // mc, a multiple of kMr
constexpr size_t kColBlock = 1024;   // nc, a multiple of kNr

// Multiply-adds below which a product runs on the calling thread alone.
constexpr double kMinParallelWork = 65536;

constexpr size_t CeilDiv(size_t a, size_t b) {
  return (a + b - 1) / b;
}
constexpr size_t RoundUp(size_t a, size_t b) {
  return CeilDiv(a, b) * b;
}

template <typename T>
struct GemmArgs {
  bool trans_a;
  bool trans_b;
  size_t m;
  size_t n;
  size_t k;
  T alpha;
  const T* a;
  size_t lda;
  const T* b;
  size_t ldb;
  T beta;
  T* c;
  size_t ldc;
};

// Packs rows [i0, i0+mc) × depth [p0, p0+kc) of op(A) as strips of kMr rows: strip s holds, for
// each p, the kMr values op(A)(i0 + s·kMr + r, p0 + p); rows past mc are zero.
template <typename T>
void PackA(const GemmArgs<T>& g, size_t i0, size_t mc, size_t p0, size_t kc, T* out) {
  constexpr size_t kMr = RegisterTile<T>::kMr;
  for (size_t s = 0; s < mc; s += kMr) {
    const size_t rows = std::min(kMr, mc - s);
    if (g.trans_a) {
      for (size_t p = 0; p < kc; ++p) {
        const T* src = g.a + (p0 + p) * g.lda + i0 + s;
        for (size_t r = 0; r < rows; ++r) out[p * kMr + r] = src[r];
        for (size_t r = rows; r < kMr; ++r) out[p * kMr + r] = T(0);
      }
    } else {
      for (size_t r = 0; r < rows; ++r) {
        const T* src = g.a + (i0 + s + r) * g.lda + p0;
        for (size_t p = 0; p < kc; ++p) out[p * kMr + r] = src[p];
      }
      for (size_t r = rows; r < kMr; ++r) {
        for (size_t p = 0; p < kc; ++p) out[p * kMr + r] = T(0);
      }
    }
    out += kc * kMr;
  }
}

// Packs depth [p0, p0+kc) × columns [j0, j0+nc) of op(B) as strips of kNr columns: strip s holds,
// for each p, the kNr values op(B)(p0 + p, j0 + s·kNr + j); columns past nc are zero.
template <typename T>
void PackB(const GemmArgs<T>& g, size_t p0, size_t kc, size_t j0, size_t nc, T* out) {
  constexpr size_t kNr = RegisterTile<T>::kNr;
  for (size_t s = 0; s < nc; s += kNr) {
    const size_t cols = std::min(kNr, nc - s);
    if (g.trans_b) {
      for (size_t j = 0; j < cols; ++j) {
        const T* src = g.b + (j0 + s + j) * g.ldb + p0;
        for (size_t p = 0; p < kc; ++p) out[p * kNr + j] = src[p];
      }
      for (size_t j = cols; j < kNr; ++j) {
        for (size_t p = 0; p < kc; ++p) out[p * kNr + j] = T(0);
      }
    } else if (cols == kNr) {
      for (size_t p = 0; p < kc; ++p) {
        const T* src = g.b + (p0 + p) * g.ldb + j0 + s;
        for (size_t j = 0; j < kNr; ++j) out[p * kNr + j] = src[j];
      }
    } else {
      for (size_t p = 0; p < kc; ++p) {
        const T* src = g.b + (p0 + p) * g.ldb + j0 + s;
        for (size_t j = 0; j < cols; ++j) out[p * kNr + j] = src[j];
        for (size_t j = cols; j < kNr; ++j) out[p * kNr + j] = T(0);
      }
    }
    out += kc * kNr;
  }
}

// acc[r·kNr + j] = Σ_p a[p·kMr + r] · b[p·kNr + j] for the first kRows rows of a packed A strip.
// The accumulators are a local array indexed only by constants once the row loop is unrolled, so
// they live in registers.
template <typename T, size_t kRows>
void MicroKernel(size_t kc, const T* a, const T* b, T* acc) {
  constexpr size_t kMr = RegisterTile<T>::kMr;
  constexpr size_t kNr = RegisterTile<T>::kNr;
  T sum[kRows * kNr] = {};
  for (size_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      const T ar = a[r];
      T* row = sum + r * kNr;
      for (size_t j = 0; j < kNr; ++j) row[j] += ar * b[j];
    }
  }
  std::copy(sum, sum + kRows * kNr, acc);
}

// Runs the micro-kernel for `rows` (1..kMr) rows, so a short last strip does no wasted work.
template <typename T>
void RunMicroKernel(size_t rows, size_t kc, const T* a, const T* b, T* acc) {
  static_assert(RegisterTile<T>::kMr == 6, "one case per row count");
  switch (rows) {
    case 1:
      return MicroKernel<T, 1>(kc, a, b, acc);
    case 2:
      return MicroKernel<T, 2>(kc, a, b, acc);
    case 3:
      return MicroKernel<T, 3>(kc, a, b, acc);
    case 4:
      return MicroKernel<T, 4>(kc, a, b, acc);
    case 5:
      return MicroKernel<T, 5>(kc, a, b, acc);
    default:
      return MicroKernel<T, 6>(kc, a, b, acc);
  }
}

// C block (rows × cols, row stride ldc) = alpha · acc + scale · C; C is not read when
// `read_c` is false.
template <typename T>
void StoreBlock(const T* acc, size_t rows, size_t cols, T alpha, T scale, bool read_c, T* c,
                size_t ldc) {
  constexpr size_t kNr = RegisterTile<T>::kNr;
  for (size_t r = 0; r < rows; ++r, acc += kNr, c += ldc) {
    if (!read_c) {
      for (size_t j = 0; j < cols; ++j) c[j] = alpha * acc[j];
    } else if (scale == T(1)) {
      for (size_t j = 0; j < cols; ++j) c[j] += alpha * acc[j];
    } else {
      for (size_t j = 0; j < cols; ++j) c[j] = alpha * acc[j] + scale * c[j];
    }
  }
}

// Computes the tile rows [i0, i0+mc) × columns [j0, j0+nc) of C; pa and pb hold the packed blocks
// (mc rounded up to kMr by kDepthBlock, and kDepthBlock by nc rounded up to kNr).
template <typename T>
void ComputeTile(const GemmArgs<T>& g, size_t i0, size_t mc, size_t j0, size_t nc, T* pa, T* pb) {
  constexpr size_t kMr = RegisterTile<T>::kMr;
  constexpr size_t kNr = RegisterTile<T>::kNr;
  for (size_t p0 = 0; p0 < g.k; p0 += kDepthBlock) {
    const size_t kc = std::min(kDepthBlock, g.k - p0);
    PackA(g, i0, mc, p0, kc, pa);
    PackB(g, p0, kc, j0, nc, pb);
    const bool first = p0 == 0;
    const T scale = first ? g.beta : T(1);
    const bool read_c = !first || g.beta != T(0);
    for (size_t jr = 0; jr < nc; jr += kNr) {
      const size_t cols = std::min(kNr, nc - jr);
      const T* b_strip = pb + jr * kc;
      for (size_t ir = 0; ir < mc; ir += kMr) {
        const size_t rows = std::min(kMr, mc - ir);
        T acc[kMr * kNr];
        RunMicroKernel(rows, kc, pa + ir * kc, b_strip, acc);
        StoreBlock(acc, rows, cols, g.alpha, scale, read_c, g.c + (i0 + ir) * g.ldc + j0 + jr,
                   g.ldc);
      }
    }
  }
}

// C = beta · C, for k = 0 or alpha = 0 (A and B are not read).
template <typename T>
void ScaleC(size_t m, size_t n, T beta, T* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else {
      for (size_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
}

// *c = alpha · sum + beta · *c, not reading *c when beta is 0.
template <typename T>
void Put(T alpha, T sum, T beta, T* c) {
  *c = beta == T(0) ? alpha * sum : alpha * sum + beta * *c;
}

// Σ_p x[p·x_step] · y[p·y_step] with kLanes independent partial sums, so the compiler can
// vectorise the contiguous case without reassociating. Strided operands are summed in the same
// order, so the result does not depend on the layout.
template <typename T>
T Dot(const T* x, size_t x_step, const T* y, size_t y_step, size_t k) {
  constexpr size_t kLanes = 2 * RegisterTile<T>::kNr;
  T part[kLanes] = {};
  size_t p = 0;
  if (x_step == 1 && y_step == 1) {
    for (; p + kLanes <= k; p += kLanes) {
      for (size_t u = 0; u < kLanes; ++u) part[u] += x[p + u] * y[p + u];
    }
  } else {
    for (; p + kLanes <= k; p += kLanes) {
      for (size_t u = 0; u < kLanes; ++u) part[u] += x[(p + u) * x_step] * y[(p + u) * y_step];
    }
  }
  T sum = 0;
  for (; p < k; ++p) sum += x[p * x_step] * y[p * y_step];
  for (size_t u = 0; u < kLanes; ++u) sum += part[u];
  return sum;
}

// Products with at most kThin rows or columns read the large operand once, straight from memory:
// packing it would copy it once more than the arithmetic reads it.
constexpr size_t kThin = 4;
// Columns one strip of the axpy form accumulates, a whole number of vectors.
template <typename T>
constexpr size_t kStripWidth = 64 * RegisterTile<T>::kNr;

// Calls store(acc) with acc[r][j] = Σ_p x[r·x_row + p·x_depth] · y[p·ldy + j] for
// r < rows ≤ kThin and j < width ≤ kStripWidth: the rows of y stream through once while the
// accumulators stay in L1. The accumulators are local so the compiler knows they do not alias y.
template <typename T, typename Store>
void AxpyStrip(size_t rows, size_t k, const T* x, size_t x_row, size_t x_depth, const T* y,
               size_t ldy, size_t width, Store&& store) {
  constexpr size_t kNr = RegisterTile<T>::kNr;
  constexpr size_t kW = kStripWidth<T>;
  T acc[kThin][kW] = {};
  for (size_t p = 0; p < k; ++p) {
    const T* yrow = y + p * ldy;
    for (size_t r = 0; r < rows; ++r) {
      const T xv = x[r * x_row + p * x_depth];
      T* row = acc[r];
      size_t j = 0;
      for (; j + kNr <= width; j += kNr) {
        for (size_t u = 0; u < kNr; ++u) row[j + u] += xv * yrow[j + u];
      }
      for (; j < width; ++j) row[j] += xv * yrow[j];
    }
  }
  store(acc);
}

// C for m ≤ kThin: the rows of op(A) (read down A's columns when A is transposed) against B's
// rows (axpy form) or B's columns stored as rows (dot form), parallel over strips of columns.
template <typename T>
void ThinRows(const GemmArgs<T>& g, ThreadPool* pool) {
  constexpr size_t kW = kStripWidth<T>;
  // op(A)(i, p) = g.a[i·a_row + p·a_depth].
  const size_t a_row = g.trans_a ? 1 : g.lda;
  const size_t a_depth = g.trans_a ? g.lda : 1;
  auto strips = [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      const size_t j0 = s * kW;
      const size_t width = std::min(kW, g.n - j0);
      if (g.trans_b) {
        for (size_t i = 0; i < g.m; ++i) {
          T* crow = g.c + i * g.ldc + j0;
          for (size_t j = 0; j < width; ++j) {
            const T sum = Dot(g.a + i * a_row, a_depth, g.b + (j0 + j) * g.ldb, 1, g.k);
            Put(g.alpha, sum, g.beta, crow + j);
          }
        }
      } else {
        AxpyStrip(g.m, g.k, g.a, a_row, a_depth, g.b + j0, g.ldb, width,
                  [&](const T(&acc)[kThin][kW]) {
                    for (size_t i = 0; i < g.m; ++i) {
                      T* crow = g.c + i * g.ldc + j0;
                      for (size_t j = 0; j < width; ++j) Put(g.alpha, acc[i][j], g.beta, crow + j);
                    }
                  });
      }
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(CeilDiv(g.n, kW), 1, strips);
  } else {
    strips(0, CeilDiv(g.n, kW));
  }
}

// C for n ≤ kThin: the columns of op(B) (read down B's columns when B is not transposed) against
// A's rows (dot form) or A's columns stored as rows (axpy form), parallel over strips of rows.
template <typename T>
void ThinCols(const GemmArgs<T>& g, ThreadPool* pool) {
  constexpr size_t kW = kStripWidth<T>;
  // op(B)(p, j) = g.b[j·b_col + p·b_depth].
  const size_t b_col = g.trans_b ? g.ldb : 1;
  const size_t b_depth = g.trans_b ? 1 : g.ldb;
  auto strips = [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      const size_t i0 = s * kW;
      const size_t height = std::min(kW, g.m - i0);
      if (!g.trans_a) {
        for (size_t i = i0; i < i0 + height; ++i) {
          T* crow = g.c + i * g.ldc;
          for (size_t j = 0; j < g.n; ++j) {
            const T sum = Dot(g.a + i * g.lda, 1, g.b + j * b_col, b_depth, g.k);
            Put(g.alpha, sum, g.beta, crow + j);
          }
        }
      } else {
        AxpyStrip(g.n, g.k, g.b, b_col, b_depth, g.a + i0, g.lda, height,
                  [&](const T(&acc)[kThin][kW]) {
                    for (size_t i = 0; i < height; ++i) {
                      T* crow = g.c + (i0 + i) * g.ldc;
                      for (size_t j = 0; j < g.n; ++j) Put(g.alpha, acc[j][i], g.beta, crow + j);
                    }
                  });
      }
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(CeilDiv(g.m, kW), 1, strips);
  } else {
    strips(0, CeilDiv(g.m, kW));
  }
}

// The packing panels of the calling thread, sized once for the largest blocks (a bounded
// workspace: kRowBlock × kDepthBlock and kDepthBlock × kColBlock), so that products after a
// thread's first one allocate nothing.
template <typename T>
struct PackingPanels {
  static constexpr size_t kASize = kRowBlock * kDepthBlock;
  static constexpr size_t kBSize = kDepthBlock * kColBlock;
  std::unique_ptr<T[]> a = std::make_unique_for_overwrite<T[]>(kASize);
  std::unique_ptr<T[]> b = std::make_unique_for_overwrite<T[]>(kBSize);
};

template <typename T>
PackingPanels<T>& ThreadPanels() {
  return ThreadCacheOf<PackingPanels<T>>();
}

// One oneDNN sgemm call on rows [i0, i0+rows) and columns [j0, j0+cols) of C, with one library
// thread: the calling thread.
void LibraryBlock(const GemmArgs<float>& g, size_t i0, size_t rows, size_t j0, size_t cols) {
  const float* a = g.trans_a ? g.a + i0 : g.a + i0 * g.lda;
  const float* b = g.trans_b ? g.b + j0 * g.ldb : g.b + j0;
  omp_set_num_threads(1);
  const dnnl_status_t status =
      dnnl_sgemm(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', static_cast<dnnl_dim_t>(rows),
                 static_cast<dnnl_dim_t>(cols), static_cast<dnnl_dim_t>(g.k), g.alpha, a,
                 static_cast<dnnl_dim_t>(g.lda), b, static_cast<dnnl_dim_t>(g.ldb), g.beta,
                 g.c + i0 * g.ldc + j0, static_cast<dnnl_dim_t>(g.ldc));
  if (status == dnnl_out_of_memory) throw Error(ErrorCode::kOutOfMemory, "sgemm: out of memory");
  if (status != dnnl_success) {
    throw Error(ErrorCode::kRuntimeException,
                "sgemm failed (oneDNN status " + std::to_string(static_cast<int>(status)) + ")");
  }
}

// float matrix-vector products other than Gemv's run on oneDNN's sgemm (JIT kernels for the
// machine's widest vectors, chosen at run time; for these it takes no workspace). The library is
// held to one thread per call; Kiln's pool cuts C into one block of rows or columns per thread, so
// the library never starts threads that compete with the pool.
void LibraryGemm(const GemmArgs<float>& g, ThreadPool* pool) {
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->size()) : 1;
  if (threads == 1) return LibraryBlock(g, 0, g.m, 0, g.n);
  constexpr size_t kAlign = 16;  // block edges on whole vectors of C
  const bool by_cols = g.n >= g.m;
  const size_t extent = by_cols ? g.n : g.m;
  const size_t block = RoundUp(CeilDiv(extent, threads), kAlign);
  pool->ParallelFor(CeilDiv(extent, block), 1, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      const size_t start = t * block;
      const size_t size = std::min(block, extent - start);
      if (by_cols) {
        LibraryBlock(g, 0, g.m, start, size);
      } else {
        LibraryBlock(g, start, size, 0, g.n);
      }
    }
  });
}

// One row times a transposed B (a torch Linear layer at batch 1: Gemm with transB): c[j] = alpha ·
// a · B(j, ·) + beta · c[j] for j in [j0, j1), c[j] not read when beta is 0. kGemvRows rows of B
// at a time, each summed in 16 lanes and the lanes added in a fixed order, the next rows (where B
// has them) prefetched: B is read once, in order, which is all the product is bound by (a
// 1000 × 1280 classifier reads 5 MB for 2.6 MFLOP).
using nhwc::LoadVec;
using V16 = nhwc::Vec<16>;
constexpr size_t kGemvRows = 8;

[[gnu::always_inline]] inline float AddLanes(V16 v) {
  float s = 0.0f;
  for (int l = 0; l < 16; ++l) s += v[l];
  return s;
}

KILN_VECTOR_CLONES KILN_CONTRACT void GemvTransposedB(const GemmArgs<float>& g, size_t j0,
                                                      size_t j1) {
  const size_t k = g.k;
  const size_t k16 = k / 16 * 16;
  const float* a = g.a;
  for (size_t j = j0; j < j1; j += kGemvRows) {
    const size_t rows = std::min(kGemvRows, j1 - j);
    const float* b[kGemvRows];
    for (size_t r = 0; r < kGemvRows; ++r) b[r] = g.b + (j + std::min(r, rows - 1)) * g.ldb;
    const size_t ahead = j + 2 * kGemvRows <= g.n ? kGemvRows * g.ldb : 0;
    V16 s[kGemvRows] = {};
    for (size_t p = 0; p < k16; p += 16) {
      const V16 x = LoadVec<16>(a + p);
      for (size_t r = 0; r < kGemvRows; ++r) {
        __builtin_prefetch(b[r] + ahead + p, 0, 0);
        s[r] += x * LoadVec<16>(b[r] + p);
      }
    }
    for (size_t r = 0; r < rows; ++r) {
      float sum = AddLanes(s[r]);
      for (size_t p = k16; p < k; ++p) sum += a[p] * b[r][p];
      float* c = g.c + j + r;
      *c = g.beta == 0.0f ? g.alpha * sum : g.alpha * sum + g.beta * *c;
    }
  }
}

void Gemv(const GemmArgs<float>& g, ThreadPool* pool) {
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->size()) : 1;
  if (threads == 1) return GemvTransposedB(g, 0, g.n);
  // One contiguous share of rows of B per thread, in whole groups.
  pool->ParallelForShares(CeilDiv(g.n, kGemvRows), [&](size_t begin, size_t end) {
    GemvTransposedB(g, begin * kGemvRows, std::min(g.n, end * kGemvRows));
  });
}

// float products other than matrix-vector ones: B (times alpha) packed into the calling thread's
// buffer as PackedGemm's panels, A transposed into another when trans_a, then PackedGemm over the
// pool. oneDNN's sgemm, which ran them before, allocates a workspace on every call and copies
// strips of B into it; this allocates only when a thread meets a larger product than before.
void PackedFloatGemm(const GemmArgs<float>& g, ThreadPool* pool) {
  float* storage = ThreadBufferOf(ThreadBuffer::kPackedB, PackedMatrix::PanelFloats(g.k, g.n));
  const PackedMatrix b = PackedMatrix::PackInto(storage, g.b, g.ldb, g.k, g.n, g.trans_b, g.alpha);
  const float* a = g.a;
  size_t lda = g.lda;
  if (g.trans_a) {
    float* at = ThreadBufferOf(ThreadBuffer::kTransposedA, g.m * g.k);
    for (size_t p = 0; p < g.k; ++p) {
      for (size_t i = 0; i < g.m; ++i) at[i * g.k + p] = g.a[p * g.lda + i];
    }
    a = at;
    lda = g.k;
  }
  const bool accumulate = g.beta != 0.0f;
  if (accumulate && g.beta != 1.0f) ScaleC(g.m, g.n, g.beta, g.c, g.ldc);
  PackedGemm(g.m, a, lda, b, g.c, g.ldc, pool, accumulate);
}

}  // namespace

void PrepareGemmWorkspaces() noexcept {
  try {
    ThreadPanels<double>();
    ThreadBufferOf(ThreadBuffer::kPackedB, size_t{64} * 1024);
  } catch (const std::exception&) {
    // Made on the first product instead, which reports the failure.
  }
}

template <typename T>
void Gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, T alpha, const T* a, size_t lda,
          const T* b, size_t ldb, T beta, T* c, size_t ldc, ThreadPool* pool) {
  constexpr size_t kMr = RegisterTile<T>::kMr;
  constexpr size_t kNr = RegisterTile<T>::kNr;
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) {
    ScaleC(m, n, beta, c, ldc);
    return;
  }
  const GemmArgs<T> g{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (work < kMinParallelWork) pool = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    // A row times a transposed B on Gemv; oneDNN's matrix-vector kernels (no workspace) for the
    // other matrix-vector products; the rest go to PackedGemm.
    if (m == 1 && !trans_a && trans_b) return Gemv(g, pool);
    if (m == 1 || n == 1) return LibraryGemm(g, pool);
    return PackedFloatGemm(g, pool);
  }
  if (m <= kThin) return ThinRows(g, pool);
  if (n <= kThin) return ThinCols(g, pool);

  // Tile sizes: whole cache blocks, shrunk until there are a few tiles per thread.
  size_t mc = std::min(kRowBlock, m);
  size_t nc = std::min(kColBlock, RoundUp(n, kNr));
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->size()) : 1;
  while (threads > 1 && CeilDiv(m, mc) * CeilDiv(n, nc) < 4 * threads) {
    if (nc > 4 * kNr) {
      nc = RoundUp(nc / 2, kNr);
    } else if (mc > 2 * kMr) {
      mc = RoundUp(mc / 2, kMr);
    } else {
      break;
    }
  }
  const size_t row_tiles = CeilDiv(m, mc);
  const size_t col_tiles = CeilDiv(n, nc);

  static_assert(kRowBlock % kMr == 0 && kColBlock % kNr == 0, "whole strips per block");
  // mc ≤ kRowBlock and nc ≤ kColBlock, both whole strips once rounded up: the panels fit.
  auto tiles = [&](size_t begin, size_t end) {
    PackingPanels<T>& panels = ThreadPanels<T>();
    for (size_t t = begin; t < end; ++t) {
      const size_t i0 = (t / col_tiles) * mc;
      const size_t j0 = (t % col_tiles) * nc;
      ComputeTile(g, i0, std::min(mc, m - i0), j0, std::min(nc, n - j0), panels.a.get(),
                  panels.b.get());
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(row_tiles * col_tiles, 1, tiles);
  } else {
    tiles(0, row_tiles * col_tiles);
  }
}

template void Gemm<float>(bool, bool, size_t, size_t, size_t, float, const float*, size_t,
                          const float*, size_t, float, float*, size_t, ThreadPool*);
template void Gemm<double>(bool, bool, size_t, size_t, size_t, double, const double*, size_t,
                           const double*, size_t, double, double*, size_t, ThreadPool*);

}  // namespace kiln::cpu
