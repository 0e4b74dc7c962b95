// Broadcasting for the elementwise kernels: output shapes under numpy (multidirectional) and
// legacy (opset < 7, axis-based) rules, and a plan that walks the output in contiguous blocks
// with each input's offset, so inner loops run over plain pointers.
//
//   kiln::cpu::SmallVector<int64_t> out(a.shape().dims());
//   kiln::cpu::BroadcastInto(info, out, b.shape().dims(), "B");  // throws if they do not fit
//   kiln::cpu::BroadcastPlan plan(out.span(), {a.shape().dims(), b.shape().dims()});
//   plan.ForEachBlock<2>(ctx.threads(), [&](size_t y_off, const std::array<size_t, 2>& in_off,
//                                           size_t count) {
//     // y[y_off + i] = f(a[in_off[0] + i * plan.step(0)], b[in_off[1] + i * plan.step(1)])
//   });
//
// The plan drops dimensions of size 1 and merges adjacent dimensions that every input walks the
// same way, so same-shape operands become one contiguous run and a scalar operand one run with
// step 0: those are the fast paths, with no per-element index arithmetic. Shapes and plans live
// on the stack (SmallVector): with ordinary ranks, none of this touches the heap.
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_BROADCAST_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_BROADCAST_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// Broadcasts `out` (the shape so far) with `dims`, the shape of input `name`, under numpy rules.
// Throws kInvalidArgument naming the node, the input and the clashing dimensions.
void BroadcastInto(const KernelInfo& info, SmallVector<int64_t>& out, std::span<const int64_t> dims,
                   const char* name);

// Whether `from` broadcasts to exactly `to` (unidirectional broadcasting).
bool BroadcastsTo(std::span<const int64_t> from, std::span<const int64_t> to);

// The legacy broadcasting of opsets before 7 (Add-1/6, Pow-1, Equal-1, And-1, …): the output has
// A's shape; without `broadcast` B must have A's shape; with it B is a one-element tensor or its
// shape equals A's dimensions from `axis` on (the suffix of A when `axis` is absent), where a
// dimension of 1 in B also fits (it repeats; PyTorch's exporter wrote such models). Returns B's
// dimensions as numpy dimensions of A's rank (1 elsewhere). Throws kInvalidArgument naming the
// node and the inputs `a_name`, `b_name`.
SmallVector<int64_t> LegacyBroadcastDims(const KernelInfo& info, std::span<const int64_t> a,
                                         std::span<const int64_t> b, bool broadcast,
                                         std::optional<int64_t> axis, const char* a_name = "A",
                                         const char* b_name = "B");

// The `broadcast` and `axis` attributes of a legacy binary op, read once per node.
struct LegacyBroadcast {
  bool broadcast = false;
  std::optional<int64_t> axis;

  static LegacyBroadcast FromInfo(const KernelInfo& info);
};

// The shapes a binary op computes over: the output's and each input's as the plan should see it.
struct BinaryShapes {
  SmallVector<int64_t> out;
  SmallVector<int64_t> a;
  SmallVector<int64_t> b;
};

// Numpy broadcasting of `a` and `b`, or legacy broadcasting of b to a when `legacy` is set.
BinaryShapes ResolveBinaryShapes(const KernelInfo& info, std::span<const int64_t> a,
                                 std::span<const int64_t> b,
                                 const std::optional<LegacyBroadcast>& legacy,
                                 const char* a_name = "A", const char* b_name = "B");

// How to walk an output of shape `out` and up to kMaxOperands inputs broadcast to it.
class BroadcastPlan {
 public:
  static constexpr size_t kMaxOperands = 3;
  // Work is handed to threads in blocks of about this many output elements.
  static constexpr size_t kBlock = 16384;

  // Each input's dims must broadcast to `out` (unidirectionally); throws kFail otherwise, which
  // is a bug in the caller: kernels check shapes first and report them properly.
  BroadcastPlan(std::span<const int64_t> out,
                std::initializer_list<std::span<const int64_t>> inputs);
  // The same with the shapes as vectors.
  BroadcastPlan(const std::vector<int64_t>& out,
                std::initializer_list<const std::vector<int64_t>*> inputs);

  size_t size() const noexcept { return size_; }  // output elements
  size_t inner() const noexcept { return inner_; }
  size_t rows() const noexcept { return rows_; }
  // Input k's step along the inner run: 1 (it varies) or 0 (it is broadcast).
  size_t step(size_t k) const noexcept { return step_[k]; }
  // The collapsed outer dimensions and input k's strides along them (for tests).
  std::span<const size_t> outer_dims() const noexcept { return outer_dims_.span(); }
  std::span<const size_t> outer_strides(size_t k) const noexcept {
    return outer_strides_[k].span();
  }

  // Calls fn(out_offset, in_offsets, count) for contiguous runs covering the output once, in
  // parallel on `pool`; input k's elements for the run start at in_offsets[k] and advance by
  // step(k). N is the number of inputs the plan was built with.
  template <size_t N, typename F>
  void ForEachBlock(ThreadPool& pool, F&& fn) const {
    static_assert(N >= 1 && N <= kMaxOperands);
    if (size_ == 0) return;
    const size_t block = std::min(inner_, kBlock);
    const size_t per_row = (inner_ + block - 1) / block;
    const size_t items = rows_ * per_row;
    const size_t grain = per_row > 1 ? 1 : std::max<size_t>(1, kBlock / inner_);
    auto run = [&](size_t begin, size_t end) {
      const size_t rank = outer_dims_.size();
      SmallVector<size_t> index(rank);
      std::array<size_t, N> base{};
      size_t row = begin / per_row;
      for (size_t d = rank, rest = row; d-- > 0;) {
        index[d] = rest % outer_dims_[d];
        rest /= outer_dims_[d];
        for (size_t k = 0; k < N; ++k) base[k] += index[d] * outer_strides_[k][d];
      }
      for (size_t item = begin; item < end; ++item) {
        const size_t item_row = item / per_row;
        if (item_row != row) {  // next row: advance the odometer by one
          row = item_row;
          for (size_t d = rank; d-- > 0;) {
            for (size_t k = 0; k < N; ++k) base[k] += outer_strides_[k][d];
            if (++index[d] < outer_dims_[d]) break;
            for (size_t k = 0; k < N; ++k) base[k] -= index[d] * outer_strides_[k][d];
            index[d] = 0;
          }
        }
        const size_t start = (item % per_row) * block;
        std::array<size_t, N> offsets;
        for (size_t k = 0; k < N; ++k) offsets[k] = base[k] + start * step_[k];
        fn(row * inner_ + start, offsets, std::min(block, inner_ - start));
      }
    };
    pool.ParallelFor(items, grain, run);
  }

 private:
  size_t size_ = 0;
  size_t inner_ = 1;
  size_t rows_ = 0;
  std::array<size_t, kMaxOperands> step_{};
  SmallVector<size_t> outer_dims_;
  std::array<SmallVector<size_t>, kMaxOperands> outer_strides_;

  void Init(std::span<const int64_t> out, std::span<const std::span<const int64_t>> inputs);
};

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_BROADCAST_H_
