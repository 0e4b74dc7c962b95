// ApplyEpilogueRows against the same arithmetic written out per element: narrow contiguous rows
// (taken in groups of rows with the bias repeated), strided rows, and every combination of bias
// and Z, for activations with and without parameters. The operations per element are the same,
// so the results must be equal bit for bit.
#include "kernels/cpu/nn/conv_epilogue.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::cpu::nn {
namespace {

std::vector<float> Values(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = scale * static_cast<float>((i * 7919 + 13) % 211) / 211.0f + shift;
  }
  return v;
}

float Reference(Activation a, float x, float alpha, float beta) {
  switch (a) {
    case Activation::kRelu:
      return Activate<Activation::kRelu>(x, alpha, beta);
    case Activation::kClip:
      return Activate<Activation::kClip>(x, alpha, beta);
    case Activation::kLeakyRelu:
      return Activate<Activation::kLeakyRelu>(x, alpha, beta);
    default:
      return x;
  }
}

TEST(ConvEpilogue, RowsOfAnyWidthMatchEachElement) {
  const Epilogue epilogues[] = {{Activation::kNone, 0.0f, 0.0f},
                                {Activation::kRelu, 0.0f, 0.0f},
                                {Activation::kClip, -0.25f, 0.5f},
                                {Activation::kLeakyRelu, 0.1f, 0.0f}};
  for (const Epilogue& e : epilogues) {
    for (size_t cols :
         {size_t{1}, size_t{3}, size_t{8}, size_t{24}, size_t{63}, size_t{64}, size_t{100}}) {
      for (size_t rows : {size_t{1}, size_t{5}, size_t{37}}) {
        for (size_t pad : {size_t{0}, size_t{3}}) {  // row stride cols + pad
          for (int variant = 0; variant < 4; ++variant) {
            const bool with_bias = (variant & 1) != 0;
            const bool with_z = (variant & 2) != 0;
            SCOPED_TRACE("activation " + std::to_string(static_cast<int>(e.activation)) + " cols " +
                         std::to_string(cols) + " rows " + std::to_string(rows) + " pad " +
                         std::to_string(pad) + " bias " + std::to_string(with_bias) + " z " +
                         std::to_string(with_z));
            const size_t ld = cols + pad;
            std::vector<float> y = Values(rows * ld, 2.0f, -1.0f);
            const std::vector<float> bias = Values(cols, 1.0f, -0.6f);
            const std::vector<float> z = Values(rows * ld, 0.5f, -0.2f);
            std::vector<float> want = y;
            for (size_t r = 0; r < rows; ++r) {
              for (size_t j = 0; j < cols; ++j) {
                float v = want[r * ld + j];
                if (with_bias) v = v + bias[j];
                if (with_z) v = v + z[r * ld + j];
                want[r * ld + j] = Reference(e.activation, v, e.alpha, e.beta);
              }
            }
            ApplyEpilogueRows(e, y.data(), rows, cols, ld, with_bias ? bias.data() : nullptr,
                              with_z ? z.data() : nullptr, ld);
            size_t differ = 0;
            for (size_t i = 0; i < y.size(); ++i) differ += y[i] != want[i] ? 1 : 0;
            EXPECT_EQ(differ, 0u);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu::nn
