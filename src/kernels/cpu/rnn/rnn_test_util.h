// Test helpers for the rnn family: Float16 inputs, tolerant comparison of float or Float16
// outputs, and checks on errors.
#ifndef KILN_KERNELS_CPU_RNN_RNN_TEST_UTIL_H_
#define KILN_KERNELS_CPU_RNN_RNN_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {

inline std::vector<Float16> ToHalf(const std::vector<float>& v) {
  std::vector<Float16> out;
  out.reserve(v.size());
  for (float f : v) out.push_back(Float16::FromFloat(f));
  return out;
}

// Checks shape and values of a float or Float16 tensor.
inline void ExpectTensorNear(const Tensor& t, std::vector<int64_t> shape,
                             const std::vector<float>& want, float tol) {
  EXPECT_EQ(t.shape(), Shape(std::move(shape)));
  std::vector<float> got;
  if (t.type() == DataType::kFloat16) {
    for (Float16 h : Values<Float16>(t)) got.push_back(h.ToFloat());
  } else {
    got = Values<float>(t);
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_RNN_RNN_TEST_UTIL_H_
