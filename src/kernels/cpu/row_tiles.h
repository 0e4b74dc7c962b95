// Row tiles, for the register-tiled kernels (PackedGemm's, Int8Gemm's VNNI one, Bf16Gemm's): a
// block of m rows is cut into ceil(m / max) tiles whose sizes differ by at most one (49 rows in
// tiles of at most 12 are 10+10+10+10+9, not 12+12+12+12+1: a one-row tile runs at a fraction of
// the speed). Tile t starts at row TileStart(m, max, t) and has TileRows(m, max, t) rows.
//
//   for (size_t t = 0; t < TileCount(m, 12); ++t) Tile(TileStart(m, 12, t), TileRows(m, 12, t));
//
// Header-only and free of the standard library: the kernel files compiled for wider instruction
// sets include it (see linalg/packed_kernel.h).
#ifndef KILN_KERNELS_CPU_ROW_TILES_H_
#define KILN_KERNELS_CPU_ROW_TILES_H_

#include <cstddef>

namespace kiln::cpu::tiles {

static inline size_t TileCount(size_t m, size_t max) {
  return (m + max - 1) / max;
}
static inline size_t TileStart(size_t m, size_t max, size_t t) {
  const size_t tiles = TileCount(m, max);
  const size_t extra = m % tiles;
  return t * (m / tiles) + (t < extra ? t : extra);
}
static inline size_t TileRows(size_t m, size_t max, size_t t) {
  const size_t tiles = TileCount(m, max);
  return m / tiles + (t < m % tiles ? 1 : 0);
}

}  // namespace kiln::cpu::tiles

#endif  // KILN_KERNELS_CPU_ROW_TILES_H_
