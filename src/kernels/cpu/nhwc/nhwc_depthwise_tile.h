// Internal to kernels/cpu/nhwc: the depthwise fast path's row templates (see
// nhwc_depthwise_fast.h), included only by the files that instantiate them for one kernel size
// each (nhwc_depthwise_k3.cc, _k5.cc, _k7.cc):
//
//   DwRowFn DepthwiseFastRow3(int64_t stride, DwAct a, int width) {
//     return stride == 1 ? FastRowOf<3, 1>(a, width) : nullptr;
//   }
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_TILE_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_TILE_H_

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_depthwise_fast.h"
#include "kernels/cpu/nhwc/nhwc_simd.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace dw {

template <DwAct A, int kW>
[[gnu::always_inline]] inline Vec<kW> ActivateVec(Vec<kW> v, Vec<kW> lo, Vec<kW> hi) {
  if constexpr (A == DwAct::kClip) {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
  }
  return v;
}

// kCols output columns from ox on, channels [c0, c0 + kW): acc = bias + Σ w·x over the kernel rows
// in r.ry and, with kBorder (then kCols is 1), the kernel columns in rx only.
template <int K, int S, int kCols, bool kBorder, DwAct A, int kW>
[[gnu::always_inline]] KILN_CONTRACT inline void DwTile(const Problem& p, const DwRow& r,
                                                        const Vec<kW> (&w)[K * K], Vec<kW> bias,
                                                        TapRange rx, int64_t ox, size_t c0) {
  const auto c = static_cast<int64_t>(p.channels);
  // Horizontal dilation d (with stride 1 only): the tile's columns are d apart, and column j's
  // tap kx reads input column ix0 + d·(j + kx).
  const int64_t d = p.g.dilation[1];
  const int64_t ix0 = ox * S - p.g.pad_begin[1];
  // Signed: ix0 is negative at the left border, where those taps are skipped.
  const int64_t base = (r.iy0 * p.in_w + ix0) * c + static_cast<int64_t>(c0);
  // The clip's bounds read before any store: a store through r.y may alias r.lo and r.hi as far
  // as the compiler knows, and it would load and broadcast them again for every column.
  const Vec<kW> lo = Vec<kW>{} + r.lo;
  const Vec<kW> hi = Vec<kW>{} + r.hi;
  // A lone column sums its taps in kParts partial sums, so that its multiply-adds do not wait on
  // each other (the latency of one is four of them in flight).
  constexpr int kParts = kCols == 1 ? 4 : 1;
  Vec<kW> acc[kCols * kParts] = {};
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) acc[j * kParts] = bias;
#pragma GCC unroll 8
  for (int ky = 0; ky < K; ++ky) {
    if (ky < r.ry.lo || ky >= r.ry.hi) continue;
    const int64_t row = base + ky * r.row_step;
#pragma GCC unroll 32
    for (int i = 0; i < (kCols - 1) * S + K; ++i) {
      if (kBorder && (i < rx.lo || i >= rx.hi)) continue;
      Vec<kW> xv = LoadVec<kW>(r.x + row + i * c * d);
      // Held in a register for the columns that use it: left alone, GCC folds the load into
      // each of their multiply-adds, so a 3×3 tile loads 72 vectors instead of 30, and the
      // load ports, not the multiply-adds, set its pace (a 3×3 layer over 56×56×48 at 1 thread:
      // 28 → 20 µs). The empty asm takes xv in a vector register and gives it back unchanged.
      // (16-float vectors only: this instantiation is compiled for AVX-512 alone, where a Vec<16>
      // fits one register; the 8-float one is also compiled for the baseline, where it does not.)
      if constexpr (kW == 16 && kCols > 1) asm("" : "+v"(xv));
#pragma GCC unroll 16
      for (int j = 0; j < kCols; ++j) {
        const int kx = i - j * S;
        if (kx >= 0 && kx < K) acc[j * kParts + (ky * K + kx) % kParts] += w[ky * K + kx] * xv;
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) {
    const size_t at = static_cast<size_t>(ox + j * d) * p.features + c0;
    Vec<kW> v = acc[j * kParts];
#pragma GCC unroll 4
    for (int part = 1; part < kParts; ++part) v += acc[j * kParts + part];
    if (r.z != nullptr) v += LoadVec<kW>(r.z + at);
    StoreVec<kW>(r.y + at, ActivateVec<A, kW>(v, lo, hi));
  }
}

// Channels [c_begin, c_end) (kW | c_end - c_begin) of one output row of the fast path.
template <int K, int S, DwAct A, int kW>
[[gnu::always_inline]] KILN_CONTRACT inline void DwRowBody(const Problem& p, const DwRow& r,
                                                           const float* w, const float* bias,
                                                           TapRange inner, size_t c_begin,
                                                           size_t c_end) {
  // 8 columns × 1 register of sums and 9 of weights for 3×3; 4 + 25 for 5×5 (of AVX-512's 32
  // registers; with AVX2's 16 the weights that do not fit are read from L1 by the multiply-adds).
  constexpr int kCols = K == 3 || (K == 5 && kW == 8) ? 8 : 4;
  for (size_t c0 = c_begin; c0 < c_end; c0 += kW) {
    Vec<kW> wv[K * K];
#pragma GCC unroll 32
    for (int t = 0; t < K * K; ++t) {
      wv[t] = LoadVec<kW>(w + static_cast<size_t>(t) * p.features + c0);
    }
    const Vec<kW> bv = bias != nullptr ? LoadVec<kW>(bias + c0) : Vec<kW>{};
    // With horizontal dilation d, the columns in d passes, one per residue modulo d: a pass's
    // columns read only its own input columns, as an undilated layer over every d-th column.
    const int64_t d = p.g.dilation[1];
    for (int64_t first = 0; first < d; ++first) {
      int64_t ox = first;
      for (; ox < inner.lo; ox += d) {
        const TapRange rx = Taps(ox, S, d, p.g.pad_begin[1], p.in_w, K);
        DwTile<K, S, 1, true, A, kW>(p, r, wv, bv, rx, ox, c0);
      }
      for (; ox + (kCols - 1) * d < inner.hi; ox += kCols * d) {
        DwTile<K, S, kCols, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
      }
      if (kCols > 4 && ox + 3 * d < inner.hi) {
        DwTile<K, S, 4, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
        ox += 4 * d;
      }
      for (; ox < inner.hi; ox += d) DwTile<K, S, 1, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
      for (; ox < p.out_w; ox += d) {
        const TapRange rx = Taps(ox, S, d, p.g.pad_begin[1], p.in_w, K);
        DwTile<K, S, 1, true, A, kW>(p, r, wv, bv, rx, ox, c0);
      }
    }
  }
}

// The 8-float rows: cloned for AVX2 and the baseline (an AVX-512 machine runs the AVX2 clone when
// a test forces this width there).
template <int K, int S, DwAct A>
KILN_VECTOR_CLONES_AVX2 KILN_CONTRACT void DwRowFast8(const Problem& p, const DwRow& r,
                                                      const float* w, const float* bias,
                                                      TapRange inner, size_t c_begin,
                                                      size_t c_end) {
  DwRowBody<K, S, A, 8>(p, r, w, bias, inner, c_begin, c_end);
}

#if KILN_HAS_VECTOR_CLONES
// The 16-float rows: AVX-512 only. (Vectors of 16 floats on a machine without AVX-512 would be
// split in two, and the 25 weights of a 5×5 kernel take 50 of AVX2's 16 registers: 3× slower
// than 8-float vectors.)
template <int K, int S, DwAct A>
KILN_TARGET_AVX512 KILN_CONTRACT void DwRowFast16(const Problem& p, const DwRow& r, const float* w,
                                                  const float* bias, TapRange inner, size_t c_begin,
                                                  size_t c_end) {
  DwRowBody<K, S, A, 16>(p, r, w, bias, inner, c_begin, c_end);
}
#endif

}  // namespace dw

// The row function of a K×K kernel with horizontal stride S (see DepthwiseFastRow).
template <int K, int S>
DwRowFn FastRowOf(DwAct a, int width) {
#if KILN_HAS_VECTOR_CLONES
  const bool clip = a == DwAct::kClip;
  if (width == 16)
    return clip ? &dw::DwRowFast16<K, S, DwAct::kClip> : &dw::DwRowFast16<K, S, DwAct::kNone>;
  if (width == 8)
    return clip ? &dw::DwRowFast8<K, S, DwAct::kClip> : &dw::DwRowFast8<K, S, DwAct::kNone>;
  return nullptr;
#else
  return width == 8 && a == DwAct::kNone ? &dw::DwRowFast8<K, S, DwAct::kNone> : nullptr;
#endif
}

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_TILE_H_
