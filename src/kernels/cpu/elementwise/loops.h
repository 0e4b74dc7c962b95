// The loops every elementwise kernel runs: unary over a contiguous buffer, binary and ternary
// over a BroadcastPlan, each in parallel blocks with the operation inlined.
//
//   kiln::cpu::RunBinary(ctx.threads(), plan, a, b, y, [](float p, float q) { return p + q; });
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_LOOPS_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_LOOPS_H_

#include <algorithm>
#include <array>
#include <cstddef>

#include "core/thread_pool.h"
#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {

namespace loops {

// The innermost loops, compiled for the machine's widest vectors (vectorize.h).
template <typename X, typename Y, typename Op>
KILN_VECTOR_CLONES void Unary(size_t n, const X* x, Y* y, const Op& op) {
  for (size_t i = 0; i < n; ++i) y[i] = op(x[i]);
}

template <typename A, typename B, typename Y, typename Op>
KILN_VECTOR_CLONES void Binary(size_t n, const A* a, const B* b, Y* y, const Op& op) {
  for (size_t i = 0; i < n; ++i) y[i] = op(a[i], b[i]);
}

template <typename A, typename B, typename Y, typename Op>
KILN_VECTOR_CLONES void BinaryScalarB(size_t n, const A* a, B b, Y* y, const Op& op) {
  for (size_t i = 0; i < n; ++i) y[i] = op(a[i], b);
}

template <typename A, typename B, typename Y, typename Op>
KILN_VECTOR_CLONES void BinaryScalarA(size_t n, A a, const B* b, Y* y, const Op& op) {
  for (size_t i = 0; i < n; ++i) y[i] = op(a, b[i]);
}

}  // namespace loops

// y[i] = op(x[i]) for i in [0, n).
template <typename X, typename Y, typename Op>
void RunUnary(ThreadPool& pool, size_t n, const X* x, Y* y, const Op& op) {
  pool.ParallelFor(n, BroadcastPlan::kBlock, [&](size_t begin, size_t end) {
    loops::Unary(end - begin, x + begin, y + begin, op);
  });
}

// y = op(a, b) over `plan` (built with a's and b's shapes, in that order). y may alias a when a
// has the output's shape.
template <typename A, typename B, typename Y, typename Op>
void RunBinary(ThreadPool& pool, const BroadcastPlan& plan, const A* a, const B* b, Y* y,
               const Op& op) {
  const bool a_varies = plan.step(0) != 0;
  const bool b_varies = plan.step(1) != 0;
  plan.ForEachBlock<2>(pool, [&](size_t out, const std::array<size_t, 2>& in, size_t n) {
    const A* pa = a + in[0];
    const B* pb = b + in[1];
    Y* py = y + out;
    if (a_varies && b_varies) {
      loops::Binary(n, pa, pb, py, op);
    } else if (a_varies) {
      loops::BinaryScalarB(n, pa, *pb, py, op);
    } else if (b_varies) {
      loops::BinaryScalarA(n, *pa, pb, py, op);
    } else {
      std::fill(py, py + n, op(*pa, *pb));
    }
  });
}

// y = op(a, b, c) over `plan` (built with the three shapes in that order).
template <typename A, typename B, typename C, typename Y, typename Op>
void RunTernary(ThreadPool& pool, const BroadcastPlan& plan, const A* a, const B* b, const C* c,
                Y* y, const Op& op) {
  const size_t sa = plan.step(0);
  const size_t sb = plan.step(1);
  const size_t sc = plan.step(2);
  plan.ForEachBlock<3>(pool, [&](size_t out, const std::array<size_t, 3>& in, size_t n) {
    const A* pa = a + in[0];
    const B* pb = b + in[1];
    const C* pc = c + in[2];
    Y* py = y + out;
    for (size_t i = 0; i < n; ++i) py[i] = op(pa[i * sa], pb[i * sb], pc[i * sc]);
  });
}

// y = x broadcast to the output of `plan` (built with x's shape).
template <typename T>
void RunBroadcastCopy(ThreadPool& pool, const BroadcastPlan& plan, const T* x, T* y) {
  const bool varies = plan.step(0) != 0;
  plan.ForEachBlock<1>(pool, [&](size_t out, const std::array<size_t, 1>& in, size_t n) {
    if (varies) {
      std::copy(x + in[0], x + in[0] + n, y + out);
    } else {
      std::fill(y + out, y + out + n, x[in[0]]);
    }
  });
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_LOOPS_H_
