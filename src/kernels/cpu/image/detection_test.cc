// NonMaxSuppression and RoiAlign: selections and pooled values worked out by hand from the ONNX
// definitions (RoiAlign on an image linear in x and y, where bilinear samples are exact), each
// opset's defaults, every error the kernels raise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using Floats = std::vector<float>;
using Ints = std::vector<int64_t>;

// ONNX's suppress-by-IoU example: boxes 0-2 overlap (IoU > 0.5), 3-4 overlap, 5 is alone.
Floats Boxes() {
  return {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
          0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101};
}
Floats Scores() {
  return {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
}

NodeTest Nms(int64_t max_out, float iou, float score) {
  return NodeTest("NonMaxSuppression", 11)
      .Input<float>({1, 6, 4}, Boxes())
      .Input<float>({1, 1, 6}, Scores())
      .Input<int64_t>({1}, {max_out})
      .Input<float>({1}, {iou})
      .Input<float>({1}, {score});
}

TEST(ImageNonMaxSuppression, SuppressesByIouAndScore) {
  auto out = Nms(3, 0.5f, 0).Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 3}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (Ints{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  auto scored = Nms(3, 0.5f, 0.4f).Run();
  EXPECT_EQ(Values<int64_t>(*scored[0]), (Ints{0, 0, 3, 0, 0, 0}));
  auto limited = Nms(2, 0.5f, 0).Run();
  EXPECT_EQ(Values<int64_t>(*limited[0]), (Ints{0, 0, 3, 0, 0, 0}));
  // With a threshold of 1 nothing overlaps enough: all boxes in score order.
  auto all = Nms(10, 1, 0).Run();
  EXPECT_EQ(Values<int64_t>(*all[0]), (Ints{0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 5}));
}

// Greedy NMS written out with IoU = intersection / union per pair, every kept box compared:
// rows (0, class, box) for boxes [n, 4] (corners in either order) and scores [classes, n].
Ints GreedyNms(const Floats& boxes, const Floats& scores, size_t n, int64_t classes, float iou) {
  Ints want;
  for (int64_t c = 0; c < classes; ++c) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    const float* s = scores.data() + static_cast<size_t>(c) * n;
    std::stable_sort(order.begin(), order.end(), [&](size_t l, size_t r) { return s[l] > s[r]; });
    std::vector<size_t> kept;
    // Each box as (y1, y2, x1, x2, area) with its corners ordered, once, read through a raw
    // pointer, with std::min and std::max written out: in the -O0 ASan build their calls per pair
    // made this reference most of a 16 s test.
    std::vector<double> norm(5 * n);
    for (size_t i = 0; i < n; ++i) {
      const float* b = boxes.data() + 4 * i;
      double* r = norm.data() + 5 * i;
      r[0] = b[2] < b[0] ? b[2] : b[0];
      r[1] = b[0] < b[2] ? b[2] : b[0];
      r[2] = b[3] < b[1] ? b[3] : b[1];
      r[3] = b[1] < b[3] ? b[3] : b[1];
      r[4] = (r[1] - r[0]) * (r[3] - r[2]);
    }
    for (const size_t i : order) {
      bool suppressed = false;
      const double* bb = norm.data() + 5 * i;
      for (const size_t k : kept) {
        const double* a = norm.data() + 5 * k;
        const double h = (bb[1] < a[1] ? bb[1] : a[1]) - (a[0] < bb[0] ? bb[0] : a[0]);
        const double w = (bb[3] < a[3] ? bb[3] : a[3]) - (a[2] < bb[2] ? bb[2] : a[2]);
        if (!(a[4] > 0) || !(bb[4] > 0) || !(h > 0) || !(w > 0)) continue;
        if (h * w / (a[4] + bb[4] - h * w) > iou) {
          suppressed = true;
          break;
        }
      }
      if (suppressed) continue;
      kept.push_back(i);
      want.insert(want.end(), {0, c, static_cast<int64_t>(i)});
    }
  }
  return want;
}

Ints RunNms(const Floats& boxes, const Floats& scores, size_t n, int64_t classes, float iou) {
  const auto run = NodeTest("NonMaxSuppression", 11)
                       .Input<float>({1, static_cast<int64_t>(n), 4}, boxes)
                       .Input<float>({1, classes, static_cast<int64_t>(n)}, scores)
                       .Input<int64_t>({1}, {100000})
                       .Input<float>({1}, {iou})
                       .Run();
  return Values<int64_t>(*run[0]);
}

uint32_t Step(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

// Thousands of boxes (more kept than one 16-box chunk of the vectorized overlap test, boxes with
// no area, corners in either order, equal scores), two classes: the same selection as greedy
// NMS written out with IoU = intersection / union per pair.
TEST(ImageNonMaxSuppression, ManyBoxesMatchGreedyIou) {
  const size_t n = 3000;
  uint32_t state = 5;
  const auto next = [&state] { return static_cast<float>(Step(state)) / 16777216.0f; };
  std::vector<float> boxes(n * 4), scores(2 * n);
  for (size_t i = 0; i < n; ++i) {
    const float y = next() * 100, x = next() * 100;
    const float h = i % 97 == 0 ? 0.0f : next() * 8, w = next() * 8;
    const bool flip = i % 5 == 0;
    boxes[4 * i] = flip ? y + h : y;
    boxes[4 * i + 1] = x;
    boxes[4 * i + 2] = flip ? y : y + h;
    boxes[4 * i + 3] = x + w;
  }
  for (size_t i = 0; i < 2 * n; ++i) scores[i] = std::round(next() * 500) / 500;  // ties
  const Ints want = GreedyNms(boxes, scores, n, 2, 0.3f);
  ASSERT_GT(want.size() / 3, 200u);  // many kept: the chunked test runs over long lists
  EXPECT_EQ(RunNms(boxes, scores, n, 2, 0.3f), want);
}

// torchvision's batched NMS: 40 groups of boxes offset far apart along both axes (the kernel
// buckets the kept boxes by x and searches only the candidate's neighbourhood), with a few boxes
// five groups wide (the buckets are as wide as the widest box), columns in either order, boxes of
// no area; and a second class where one box has a NaN coordinate (then every kept box is searched).
TEST(ImageNonMaxSuppression, FarApartGroupsAndWideBoxesMatchGreedyIou) {
  const size_t n = 4000;
  uint32_t state = 11;
  const auto next = [&state] { return static_cast<float>(Step(state)) / 16777216.0f; };
  std::vector<float> boxes(n * 4), scores(2 * n);
  for (size_t i = 0; i < n; ++i) {
    const float offset = static_cast<float>(i % 40) * 300.0f;
    const float y = offset + next() * 250, x = offset + next() * 250;
    const bool wide = i % 701 == 0;
    const float h = i % 89 == 0 ? 0.0f : 5 + next() * 40;
    const float w = wide ? 1500.0f : 5 + next() * 40;
    const bool flip = i % 7 == 0;
    boxes[4 * i] = y;
    boxes[4 * i + 1] = flip ? x + w : x;
    boxes[4 * i + 2] = y + h;
    boxes[4 * i + 3] = flip ? x : x + w;
  }
  for (size_t i = 0; i < 2 * n; ++i) scores[i] = std::round(next() * 1000) / 1000;
  Floats with_nan = boxes;
  with_nan[4 * 123 + 1] = std::numeric_limits<float>::quiet_NaN();
  for (const Floats* b : {&boxes, &with_nan}) {
    const Ints want = GreedyNms(*b, scores, n, 2, 0.45f);
    ASSERT_GT(want.size() / 3, 1000u);
    EXPECT_EQ(RunNms(*b, scores, n, 2, 0.45f), want);
  }
}

TEST(ImageNonMaxSuppression, CenterPointBoxesClassesAndBatches) {
  // Centre format: box 1 is box 0 moved by 0.1 (IoU 0.82), box 2 is far away.
  auto out = NodeTest("NonMaxSuppression", 10)
                 .Attr("center_point_box", int64_t{1})
                 .Input<float>({2, 3, 4}, {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 5, 5, 1, 1,
                                           0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 5, 5, 1, 1})
                 .Input<float>({2, 2, 3}, {0.1f, 0.2f, 0.3f, 0.3f, 0.2f, 0.1f,  //
                                           0.5f, 0.5f, 0.5f, 0.1f, 0.1f, 0.1f})
                 .Input<int64_t>({}, {5})
                 .Input<float>({}, {0.5f})
                 .Run();
  EXPECT_EQ(Values<int64_t>(*out[0]), (Ints{0, 0, 2, 0, 0, 1, 0, 1, 0, 0, 1, 2,  //
                                            1, 0, 0, 1, 0, 2, 1, 1, 0, 1, 1, 2}));
}

TEST(ImageNonMaxSuppression, NaNScoresAreNeverKept) {
  // Box 3 (the best score) and box 0 become NaN: with no score threshold the rest are kept in
  // score order, and the NaNs never reach the sort.
  Floats scores = Scores();
  scores[0] = scores[3] = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("NonMaxSuppression", 11)
                 .Input<float>({1, 6, 4}, Boxes())
                 .Input<float>({1, 1, 6}, scores)
                 .Input<int64_t>({1}, {10})
                 .Input<float>({1}, {1})
                 .Run();
  EXPECT_EQ(Values<int64_t>(*out[0]), (Ints{0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 5}));
}

TEST(ImageNonMaxSuppression, DefaultsKeepNothing) {
  auto out = NodeTest("NonMaxSuppression", 11)
                 .Input<float>({1, 6, 4}, Boxes())
                 .Input<float>({1, 1, 6}, Scores())
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 3}));
}

TEST(ImageNonMaxSuppression, NoBoxes) {
  auto out = NodeTest("NonMaxSuppression", 11)
                 .Input<float>({1, 0, 4}, {})
                 .Input<float>({1, 2, 0}, {})
                 .Input<int64_t>({1}, {3})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 3}));
}

TEST(ImageNonMaxSuppression, Errors) {
  ExpectNodeError(NodeTest("NonMaxSuppression", 11)
                      .Input<float>({1, 2, 3}, Floats(6))
                      .Input<float>({1, 1, 2}, Floats(2)),
                  ErrorCode::kInvalidArgument, "input 'boxes'");
  ExpectNodeError(NodeTest("NonMaxSuppression", 11)
                      .Input<float>({1, 2, 4}, Floats(8))
                      .Input<float>({1, 1, 3}, Floats(3)),
                  ErrorCode::kInvalidArgument, "input 'scores'");
  ExpectNodeError(Nms(3, 1.5f, 0), ErrorCode::kInvalidArgument, "input 'iou_threshold'");
  ExpectNodeError(NodeTest("NonMaxSuppression", 11)
                      .Input<float>({1, 6, 4}, Boxes())
                      .Input<float>({1, 1, 6}, Scores())
                      .Input<int64_t>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'max_output_boxes_per_class'");
  ExpectNodeError(NodeTest("NonMaxSuppression", 11)
                      .Attr("center_point_box", int64_t{2})
                      .Input<float>({1, 6, 4}, Boxes())
                      .Input<float>({1, 1, 6}, Scores()),
                  ErrorCode::kInvalidGraph, "attribute 'center_point_box'");
  ExpectNodeError(NodeTest("NonMaxSuppression", 11)
                      .Input<float>({1, 6, 4}, Boxes())
                      .Input<double>({1, 1, 6}, {1, 2, 3, 4, 5, 6}),
                  ErrorCode::kInvalidArgument, "scores");
}

// A 4 x 4 image with value 4y + x.
Floats Linear() {
  Floats v(16);
  for (size_t i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  return v;
}

NodeTest Roi(int64_t opset, const Floats& roi, const char* ctm, const char* mode = "avg") {
  NodeTest t("RoiAlign", opset);
  if (opset >= 16) t.Attr("coordinate_transformation_mode", ctm);
  return t.Attr("mode", mode)
      .Attr("sampling_ratio", int64_t{2})
      .Input<float>({1, 1, 4, 4}, Linear())
      .Input<float>({1, 4}, roi)
      .Input<int64_t>({1}, {0});
}

TEST(ImageRoiAlign, AverageOfExactSamples) {
  // output_half_pixel: samples at 0.75 and 2.25 on each axis, mean 1.5: 4 * 1.5 + 1.5.
  EXPECT_EQ(Values<float>(*Roi(16, {0, 0, 3, 3}, "output_half_pixel").Run()[0]), (Floats{7.5f}));
  // Version 10 has no half-pixel shift either.
  EXPECT_EQ(Values<float>(*Roi(10, {0, 0, 3, 3}, "").Run()[0]), (Floats{7.5f}));
  // half_pixel: the roi moves by -0.5, samples at 0.25 and 1.75, mean 1.
  EXPECT_EQ(Values<float>(*Roi(16, {0, 0, 3, 3}, "half_pixel").Run()[0]), (Floats{5}));
}

TEST(ImageRoiAlign, MaxTakesTheLargestTap) {
  // Samples land on pixels 1 and 3 of each axis: the largest is (3, 3) = 15.
  EXPECT_EQ(Values<float>(*Roi(16, {0, 0, 4, 4}, "output_half_pixel", "max").Run()[0]),
            (Floats{15}));
}

TEST(ImageRoiAlign, BinsScaleAndBatches) {
  Floats x = Linear();
  for (size_t i = 0; i < 16; ++i) x.push_back(100 + x[i]);
  auto out = NodeTest("RoiAlign", 16)
                 .Attr("coordinate_transformation_mode", "output_half_pixel")
                 .Attr("output_height", int64_t{2})
                 .Attr("output_width", int64_t{1})
                 .Attr("sampling_ratio", int64_t{1})
                 .Attr("spatial_scale", 0.5f)
                 .Input<float>({2, 1, 4, 4}, x)
                 .Input<float>({2, 4}, {0, 0, 4, 4, 0, 0, 4, 4})
                 .Input<int64_t>({2}, {1, 0})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({2, 1, 2, 1}));
  // The roi is [0, 2] on both axes: one sample per bin at x 1, y 0.5 and 1.5.
  EXPECT_EQ(Values<float>(*out[0]), (Floats{103, 107, 3, 7}));
}

// An adaptive grid (sampling_ratio 0) of 48 x 48 samples per bin, more than the kernel computes
// at once. The roi starts at -0.5 with bins 48 pixels wide, so every sample lands on a pixel centre
// (y, x in 0..47, then 48..95 for the second bin) with all its weight there. The image falls from
// the top-left corner, so the largest sample is the very first one, in the first block.
TEST(ImageRoiAlign, AdaptiveGridOfManySamples) {
  Floats x(size_t{96} * 96);
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t row = i / 96;
    const size_t col = i % 96;
    x[i] = static_cast<float>((95 - row) + (95 - col));
  }
  const auto run = [&](const char* mode) {
    return Values<float>(*NodeTest("RoiAlign", 16)
                              .Attr("coordinate_transformation_mode", "output_half_pixel")
                              .Attr("mode", mode)
                              .Attr("output_height", int64_t{2})
                              .Attr("output_width", int64_t{1})
                              .Attr("sampling_ratio", int64_t{0})
                              .Input<float>({1, 1, 96, 96}, x)
                              .Input<float>({1, 4}, {-0.5f, -0.5f, 47.5f, 95.5f})
                              .Input<int64_t>({1}, {0})
                              .Run()[0]);
  };
  // Means: y 23.5 / 71.5, x 23.5.
  const Floats avg = run("avg");
  ASSERT_EQ(avg.size(), 2u);
  EXPECT_NEAR(avg[0], 71.5f + 71.5f, 1e-3f);
  EXPECT_NEAR(avg[1], 23.5f + 71.5f, 1e-3f);
  // Largest: the samples at (0, 0) and (48, 0).
  EXPECT_EQ(run("max"), (Floats{190, 142}));
}

TEST(ImageRoiAlign, NoRois) {
  auto out = NodeTest("RoiAlign", 16)
                 .Input<float>({1, 1, 4, 4}, Linear())
                 .Input<float>({0, 4}, {})
                 .Input<int64_t>({0}, {})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 1, 1, 1}));
}

TEST(ImageRoiAlign, Errors) {
  ExpectNodeError(NodeTest("RoiAlign", 16)
                      .Input<float>({1, 4, 4}, Linear())
                      .Input<float>({1, 4}, {0, 0, 1, 1})
                      .Input<int64_t>({1}, {0}),
                  ErrorCode::kInvalidArgument, "input 'X'");
  ExpectNodeError(NodeTest("RoiAlign", 16)
                      .Input<float>({1, 1, 4, 4}, Linear())
                      .Input<float>({1, 5}, {0, 0, 1, 1, 1})
                      .Input<int64_t>({1}, {0}),
                  ErrorCode::kInvalidArgument, "input 'rois'");
  ExpectNodeError(NodeTest("RoiAlign", 16)
                      .Input<float>({1, 1, 4, 4}, Linear())
                      .Input<float>({1, 4}, {0, 0, 1, 1})
                      .Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'batch_indices'");
  ExpectNodeError(NodeTest("RoiAlign", 16)
                      .Input<float>({1, 1, 4, 4}, Linear())
                      .Input<float>({1, 4}, {0, 0, 1, 1})
                      .Input<int64_t>({2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "input 'batch_indices'");
  ExpectNodeError(Roi(16, {0, 0, 1, 1}, "half_pixel", "min"), ErrorCode::kInvalidGraph,
                  "attribute 'mode'");
  ExpectNodeError(Roi(16, {0, 0, 1, 1}, "align_corners"), ErrorCode::kInvalidGraph,
                  "attribute 'coordinate_transformation_mode'");
  ExpectNodeError(Roi(16, {0, 0, 1, 1}, "half_pixel").Attr("output_height", int64_t{0}),
                  ErrorCode::kInvalidGraph, "'output_height'");
  ExpectNodeError(NodeTest("RoiAlign", 10)
                      .Attr("sampling_ratio", int64_t{-1})
                      .Input<float>({1, 1, 4, 4}, Linear())
                      .Input<float>({1, 4}, {0, 0, 1, 1})
                      .Input<int64_t>({1}, {0}),
                  ErrorCode::kInvalidGraph, "attribute 'sampling_ratio'");
}

}  // namespace
}  // namespace kiln::testing
