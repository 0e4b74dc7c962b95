// DFT and STFT: transforms of short signals worked out by hand (numpy.fft agrees), each opset's
// axis form, onesided, inverse, the inverse real transform, dft_length, and every error.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

void ExpectNear(const Tensor& t, const F& want) {
  const F got = Values<float>(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

TEST(SignalDft, ForwardOnesidedAndInverse) {
  // fft([1, 2, 3, 4]) = [10, -2+2j, -2, -2-2j].
  auto full = NodeTest("DFT", 17).Input<float>({1, 4, 1}, {1, 2, 3, 4}).Run();
  EXPECT_EQ(full[0]->shape(), Shape({1, 4, 2}));
  ExpectNear(*full[0], {10, 0, -2, 2, -2, 0, -2, -2});
  auto half =
      NodeTest("DFT", 17).Attr("onesided", int64_t{1}).Input<float>({1, 4, 1}, {1, 2, 3, 4}).Run();
  ExpectNear(*half[0], {10, 0, -2, 2, -2, 0});
  auto inv = NodeTest("DFT", 20)
                 .Attr("inverse", int64_t{1})
                 .Input<float>({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})
                 .Run(2);
  ExpectNear(*inv[0], {1, 0, 2, 0, 3, 0, 4, 0});
  auto irfft = NodeTest("DFT", 20)
                   .Attr("inverse", int64_t{1})
                   .Attr("onesided", int64_t{1})
                   .Input<float>({1, 3, 2}, {10, 0, -2, 2, -2, 0})
                   .Run();
  EXPECT_EQ(irfft[0]->shape(), Shape({1, 4, 1}));
  ExpectNear(*irfft[0], {1, 2, 3, 4});
}

TEST(SignalDft, AxisAndLength) {
  // Opset 20: axis as input 2; [2, 1, 1] transformed along axis 0.
  auto axis0 = NodeTest("DFT", 20)
                   .Input<float>({2, 1, 1}, {1, 2})
                   .MissingInput()
                   .Input<int64_t>({}, {0})
                   .Run();
  ExpectNear(*axis0[0], {3, 0, -1, 0});
  // Opset 17: axis attribute; dft_length 2 cuts the signal, 3 pads it.
  auto cut =
      NodeTest("DFT", 17).Input<float>({1, 4, 1}, {1, 2, 3, 4}).Input<int64_t>({}, {2}).Run();
  ExpectNear(*cut[0], {3, 0, -1, 0});
  auto pad = NodeTest("DFT", 17).Input<double>({1, 1, 1}, {1}).Input<int32_t>({}, {3}).Run();
  EXPECT_EQ(pad[0]->shape(), Shape({1, 3, 2}));
  EXPECT_EQ(Values<double>(*pad[0]), (std::vector<double>{1, 0, 1, 0, 1, 0}));
}

TEST(SignalDft, Errors) {
  ExpectNodeError(NodeTest("DFT", 17).Input<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                  ErrorCode::kInvalidArgument, "input 'input'");
  ExpectNodeError(NodeTest("DFT", 17).Input<int32_t>({1, 2, 1}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'input'");
  ExpectNodeError(NodeTest("DFT", 17).Attr("axis", int64_t{2}).Input<float>({1, 2, 1}, {1, 2}),
                  ErrorCode::kInvalidArgument, "last dimension");
  ExpectNodeError(NodeTest("DFT", 17).Input<float>({1, 2, 1}, {1, 2}).Input<int64_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "dft_length");
  ExpectNodeError(
      NodeTest("DFT", 20).Input<float>({1, 2, 1}, {1, 2}).MissingInput().Input<float>({}, {1}),
      ErrorCode::kInvalidArgument, "axis");
}

TEST(SignalStft, FramesAndWindow) {
  auto out = NodeTest("STFT", 17)
                 .Input<float>({1, 4, 1}, {1, 2, 3, 4})
                 .Input<int64_t>({}, {2})
                 .MissingInput()
                 .Input<int64_t>({}, {2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 2, 2}));
  ExpectNear(*out[0], {3, 0, -1, 0, 7, 0, -1, 0});
  auto windowed = NodeTest("STFT", 17)
                      .Input<float>({1, 4, 1}, {1, 2, 3, 4})
                      .Input<int64_t>({}, {2})
                      .Input<float>({2}, {1, 0})
                      .Run();
  ExpectNear(*windowed[0], {1, 0, 1, 0, 3, 0, 3, 0});
  auto complex = NodeTest("STFT", 17)
                     .Attr("onesided", int64_t{0})
                     .Input<float>({1, 2, 2}, {1, 1, 2, 2})
                     .Input<int64_t>({}, {1})
                     .MissingInput()
                     .Input<int64_t>({}, {2})
                     .Run();
  EXPECT_EQ(complex[0]->shape(), Shape({1, 1, 2, 2}));
  ExpectNear(*complex[0], {3, 3, -1, -1});
}

TEST(SignalStft, Errors) {
  const F sig{1, 2, 3, 4};
  ExpectNodeError(NodeTest("STFT", 17)
                      .Input<float>({1, 2, 2}, sig)
                      .Input<int64_t>({}, {1})
                      .MissingInput()
                      .Input<int64_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "onesided");
  ExpectNodeError(NodeTest("STFT", 17).Input<float>({4}, sig).Input<int64_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "input 'signal'");
  ExpectNodeError(NodeTest("STFT", 17)
                      .Input<float>({1, 4, 1}, sig)
                      .Input<int64_t>({}, {0})
                      .MissingInput()
                      .Input<int64_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "frame_step");
  ExpectNodeError(NodeTest("STFT", 17)
                      .Input<float>({1, 4, 1}, sig)
                      .Input<int64_t>({}, {1})
                      .Input<float>({2}, {1, 1})
                      .Input<int64_t>({}, {3}),
                  ErrorCode::kInvalidArgument, "frame_length");
  ExpectNodeError(NodeTest("STFT", 17).Input<float>({1, 4, 1}, sig).Input<int64_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "frame length");
  ExpectNodeError(NodeTest("STFT", 17)
                      .Input<float>({1, 4, 1}, sig)
                      .Input<int64_t>({}, {1})
                      .MissingInput()
                      .Input<int64_t>({}, {5}),
                  ErrorCode::kInvalidArgument, "frame length");
  ExpectNodeError(NodeTest("STFT", 17)
                      .Input<float>({1, 4, 1}, sig)
                      .Input<int64_t>({}, {1})
                      .Input<double>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "window");
}

}  // namespace
}  // namespace kiln::testing
