#include "kernels/cpu/float_sum.h"

#include <algorithm>

#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr size_t kLanes = 16;
constexpr size_t kBlock = 1024;

KILN_VECTOR_CLONES void AddLanes(const float* x, size_t n, float* lanes) {
  for (size_t i = 0; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  }
}

}  // namespace

double SumFloats(const float* x, size_t n) {
  double total = 0;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t len = std::min(kBlock, n - b);
    float lanes[kLanes] = {};
    AddLanes(x + b, len, lanes);
    double block = 0;
    for (const float v : lanes) block += v;
    for (size_t i = len - len % kLanes; i < len; ++i) block += x[b + i];
    total += block;
  }
  return total;
}

}  // namespace kiln::cpu
