// Matrix products against a right-hand side packed once: the weights of a convolution, a Gemm or
// a MatMul, packed at session creation so a run spends nothing on them but the arithmetic.
//
//   PackedMatrix w = PackedMatrix::Pack(b, n, k, n, false);   // once: B is k×n, row stride n
//   PackedGemm(m, a, k, w, 0, n, c, n, false);               // C = A·B on this thread
//   PackedGemm(m, a, k, w, c, n, &pool);                     // the same, split over the pool
//
// The panels are cut for the widest micro-kernel the machine runs (AVX-512: 12 rows × 32
// columns, AVX2+FMA: 6 × 16 twice, otherwise portable C++), chosen once when the library first
// uses them; every kernel reads the same packed layout.
#ifndef KILN_KERNELS_CPU_LINALG_PACKED_GEMM_H_
#define KILN_KERNELS_CPU_LINALG_PACKED_GEMM_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "core/thread_pool.h"

namespace kiln::cpu {

// Columns per packed panel; column ranges handed to PackedGemm start on a panel.
inline constexpr size_t kPackedPanel = 32;

// B (k × n) as ceil(n / 32) panels; panel j holds, for each depth p, the 32 values
// B(p, 32·j + c), zero past column n. 64-byte aligned. Movable, not copyable.
class PackedMatrix {
 public:
  PackedMatrix() = default;
  PackedMatrix(PackedMatrix&& other) noexcept
      : k_(other.k_),
        n_(other.n_),
        stride_(other.stride_),
        data_(std::move(other.data_)),
        base_(std::exchange(other.base_, nullptr)) {}
  PackedMatrix& operator=(PackedMatrix&& other) noexcept {
    k_ = other.k_;
    n_ = other.n_;
    stride_ = other.stride_;
    data_ = std::move(other.data_);
    base_ = std::exchange(other.base_, nullptr);
    return *this;
  }
  ~PackedMatrix() = default;
  // B is k×n with row stride ldb, or n×k (stored transposed) when `transposed`. Throws
  // Error(kOutOfMemory) when the panels cannot be allocated.
  static PackedMatrix Pack(const float* b, size_t ldb, size_t k, size_t n, bool transposed);

  // The same from an accessor: value(p, j) is B(p, j), for p < k and j < n, read panel by panel
  // (the 32 columns of a depth row one after another).
  template <typename Value>
  static PackedMatrix PackFrom(size_t k, size_t n, Value&& value) {
    PackedMatrix out = Allocate(k, n);
    for (size_t j = 0; j < out.panels(); ++j) {
      float* dst = out.data_.get() + j * k * kPackedPanel;
      const size_t j0 = j * kPackedPanel;
      const size_t cols = n - j0 < kPackedPanel ? n - j0 : kPackedPanel;
      for (size_t p = 0; p < k; ++p) {
        for (size_t c = 0; c < cols; ++c) dst[p * kPackedPanel + c] = value(p, j0 + c);
      }
    }
    return out;
  }

  // k × n panels, zero-filled (empty when k or n is 0), for a caller that writes B(p, j) itself
  // at MutablePanel(j / 32)[p·32 + j % 32]. Throws Error(kOutOfMemory).
  static PackedMatrix Allocate(size_t k, size_t n);
  float* MutablePanel(size_t j) { return data_.get() + j * k_ * kPackedPanel; }

  // Panels that someone else laid out and keeps alive (a weight the optimizer stored so):
  // ceil(n / 32) panels of k rows of 32 floats, one after another, from `panels`, which must be
  // 64-byte aligned (a last panel's columns past n are read but never reach C). Not owned, not
  // copied. Throws kInvalidArgument when misaligned.
  static PackedMatrix View(const float* panels, size_t k, size_t n);

  // Floats of the panels of a k × n matrix, and B (as for Pack) times `scale` packed into
  // `storage` (that many floats, 64-byte aligned), returned as a view of it.
  static size_t PanelFloats(size_t k, size_t n) {
    return (n + kPackedPanel - 1) / kPackedPanel * k * kPackedPanel;
  }
  static PackedMatrix PackInto(float* storage, const float* b, size_t ldb, size_t k, size_t n,
                               bool transposed, float scale);

  // Rows [k0, k0 + k) of this matrix's depth, all its columns: a view of its panels (nothing
  // copied, valid while this matrix is), so that A · B over a part of the depth (a convolution's
  // taps that reach the image, say) needs no second packing. k0 + k ≤ this->k().
  PackedMatrix DepthSlice(size_t k0, size_t k) const {
    PackedMatrix out;
    out.k_ = k;
    out.n_ = n_;
    out.stride_ = panel_stride();
    if (k > 0 && n_ > 0) out.base_ = base_ + k0 * kPackedPanel;
    return out;
  }
  size_t k() const { return k_; }
  size_t n() const { return n_; }
  size_t panels() const { return (n_ + kPackedPanel - 1) / kPackedPanel; }
  // Floats from one panel to the next: k·32, or the whole matrix's for a DepthSlice.
  size_t panel_stride() const { return stride_ != 0 ? stride_ : k_ * kPackedPanel; }
  const float* panel(size_t j) const { return base_ + j * panel_stride(); }
  bool empty() const { return base_ == nullptr; }

 private:
  struct Free {
    void operator()(float* p) const noexcept;
  };
  size_t k_ = 0;
  size_t n_ = 0;
  size_t stride_ = 0;                    // 0: k_·32 (not a DepthSlice)
  std::unique_ptr<float[], Free> data_;  // null for a view
  const float* base_ = nullptr;          // data_, or the viewed panels
};

// What a product does to each value of C as it stores it, while the sums are in registers (a
// convolution's bias, residual and ReLU or Clip, with no pass over C afterwards):
// C(i, j) = (C(i, j) + bias[j]) + z[i·ldz + j], each term only where its pointer is set, then
// min(hi, max(lo, ·)) when `clamp` — the order and the bits of nn::ApplyEpilogueRows with
// ReLU (lo 0, hi +∞) or Clip; a NaN stays NaN. bias and z are indexed as C is: by the columns
// of B (col_begin on), and z by the rows of this call's C.
struct GemmEpilogue {
  const float* bias = nullptr;
  const float* z = nullptr;
  size_t ldz = 0;
  bool clamp = false;
  float lo = 0.0f;
  float hi = 0.0f;
};

// C[0:m, col_begin:col_end] = A · B[:, col_begin:col_end] (+ that block of C when `accumulate`)
// on the calling thread, then `ep` when set. A is m×k (B's k) with row stride lda ≥ k; col_begin
// is a multiple of kPackedPanel and col_end ≤ B.n(). When `accumulate` is false C is not read.
void PackedGemm(size_t m, const float* a, size_t lda, const PackedMatrix& b, size_t col_begin,
                size_t col_end, float* c, size_t ldc, bool accumulate,
                const GemmEpilogue* ep = nullptr);

// C = A · B (m × B.n()) (+ C when `accumulate`; otherwise C is not read), then `ep` when set;
// lda ≥ k, cut into tiles of rows and panels that `pool` shares out (null: this thread).
void PackedGemm(size_t m, const float* a, size_t lda, const PackedMatrix& b, float* c, size_t ldc,
                ThreadPool* pool, bool accumulate = false, const GemmEpilogue* ep = nullptr);

// The calling thread's scratch buffers, 64-byte aligned, each grown to the largest size asked of
// it, so that a thread's later requests of that size allocate nothing: kRowsOfA is PackedGemm's
// own (rows of A copied a cache line apart); cpu::Gemm packs B and transposes A into the others.
// Valid until the same buffer is asked for again on this thread (common.h's ThreadWorkspace).
// Throws Error(kOutOfMemory).
enum class ThreadBuffer { kRowsOfA, kPackedB, kTransposedA };
float* ThreadBufferOf(ThreadBuffer which, size_t floats);

// Makes the calling thread's buffer for copying A now, so its first product allocates nothing;
// on failure it is made on first use instead (which reports it).
void PreparePackedGemmWorkspace() noexcept;

// The micro-kernels, widest first. Tests run each one the machine supports.
enum class PackedKernel { kAvx512, kAvx2, kPortable };
// Whether this machine runs `kernel`.
bool PackedKernelSupported(PackedKernel kernel);
// Makes later products use `kernel` (it must be supported), for tests; returns the previous one.
PackedKernel SetPackedKernelForTesting(PackedKernel kernel);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_PACKED_GEMM_H_
