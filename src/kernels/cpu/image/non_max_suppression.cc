// NonMaxSuppression (versions 10, 11): per batch and class, greedily keeps the boxes of highest
// score whose IoU with every box kept before is at most iou_threshold, up to
// max_output_boxes_per_class; boxes with score <= score_threshold are never kept. Output int64
// [num_selected, 3] rows (batch, class, box), batch-major, then class, then selection order.
//   boxes [B, N, 4]: (y1, x1, y2, x2) corners in any order (center_point_box 0) or
//     (x_center, y_center, width, height) (center_point_box 1); scores [B, C, N];
//   optional scalars: max_output_boxes_per_class (int64, default 0: nothing kept), iou_threshold
//     (float, default 0), score_threshold (float, default: none).
// Equal scores keep the lower box index first. The output's size depends on the data: it is
// gathered in scratch (as are the kernel's working arrays), so a run whose output shape was met
// before (a per-shape layout) allocates nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

struct Box {
  double y1, x1, y2, x2;
};

// The boxes kept so far for one batch and class, a column per coordinate, for Overlaps.
struct KeptBoxes {
  double* y1;
  double* x1;
  double* y2;
  double* x2;
  double* area;
};

// Whether box b (of area b_area) has an IoU above t (≥ 0) with any of the first n kept boxes:
// intersection > t · union, which is IoU > t without the division (the union is positive where
// both areas are); a box with no area, or no intersection, has IoU 0. In chunks of 16 that the
// compiler vectorizes, stopping at the first chunk with an overlap: greedy NMS over thousands of
// boxes (torchvision's batched NMS offsets each class's boxes apart, so few suppress each other
// and every candidate meets every kept box) spends its time here. SSDlite's 27,000 boxes took
// 738 ms as one IoU (with a division) per pair.
// (Inlined, not a lambda: a lambda in a cloned function is compiled for the baseline.)
[[gnu::always_inline]] inline bool OverlapAt(const KeptBoxes& k, size_t i, const Box& b,
                                             double b_area, double t) {
  const double h = std::min(k.y2[i], b.y2) - std::max(k.y1[i], b.y1);
  const double w = std::min(k.x2[i], b.x2) - std::max(k.x1[i], b.x1);
  const double inter = h * w;
  return k.area[i] > 0 && b_area > 0 && h > 0 && w > 0 && inter > t * (k.area[i] + b_area - inter);
}

KILN_VECTOR_CLONES bool Overlaps(const KeptBoxes& k, size_t n, const Box& b, double b_area,
                                 double t) {
  constexpr size_t kChunk = 16;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    bool any = false;
    for (size_t j = i; j < i + kChunk; ++j) any |= OverlapAt(k, j, b, b_area, t);
    if (any) return true;
  }
  for (; i < n; ++i) {
    if (OverlapAt(k, i, b, b_area, t)) return true;
  }
  return false;
}

double Area(const Box& b) {
  return (b.y2 - b.y1) * (b.x2 - b.x1);
}

// The kept boxes of one batch and class bucketed by x1, for classes with many candidates: a box
// can overlap a candidate only if its x1 lies within the widest candidate's width before the
// candidate's x1 (or after it, up to its x2), so only the buckets over that span are searched.
// Boxes far apart are never compared: torchvision's batched NMS offsets each class's boxes by
// the largest coordinate, and with all of a detector's classes in one call (SSDlite: 91 classes
// of 3,234 anchors) greedy NMS compared each candidate with every kept box of every class. The
// same boxes are kept as by comparing with all: a box outside the searched buckets has no
// horizontal overlap with the candidate (the span has a bucket's margin on either side).
class XBuckets {
 public:
  static constexpr size_t kMaxBuckets = 4096;
  static constexpr size_t kNone = ~size_t{0};

  // Scratch for `kept` boxes at most; `head` has kMaxBuckets + 1 places.
  XBuckets(size_t* head, size_t* next) : head_(head), next_(next) {}

  // Sets the buckets up for these candidates; false (search every kept box instead) when a
  // coordinate is not finite or the candidates are few.
  bool Reset(const Box* corners, const size_t* order, size_t candidates) {
    if (candidates < 256) return false;
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    double widest = 0;
    for (size_t n = 0; n < candidates; ++n) {
      const Box& b = corners[order[n]];
      if (!std::isfinite(b.x1) || !std::isfinite(b.x2) || !std::isfinite(b.x2 - b.x1)) {
        return false;
      }
      lo = std::min(lo, b.x1);
      hi = std::max(hi, b.x1);
      widest = std::max(widest, b.x2 - b.x1);
    }
    lo_ = lo;
    width_ = std::max(widest, (hi - lo) / static_cast<double>(kMaxBuckets));
    if (!(width_ > 0) || !std::isfinite((hi - lo) / width_)) return false;
    buckets_ = std::min(kMaxBuckets, static_cast<size_t>((hi - lo) / width_)) + 1;
    std::fill(head_, head_ + buckets_, kNone);
    return true;
  }

  void Add(size_t kept, double x1) {
    const size_t b = Bucket(x1);
    next_[kept] = head_[b];
    head_[b] = kept;
  }

  // Whether a kept box overlaps `box` by more than t (OverlapAt).
  bool Overlaps(const KeptBoxes& k, const Box& box, double area, double t) const {
    const size_t first = Bucket(box.x1 - width_);
    const size_t last = Bucket(box.x2);
    for (size_t b = first == 0 ? 0 : first - 1; b <= last + 1 && b < buckets_; ++b) {
      for (size_t i = head_[b]; i != kNone; i = next_[i]) {
        if (OverlapAt(k, i, box, area, t)) return true;
      }
    }
    return false;
  }

 private:
  // The bucket of x, clamped to the buckets.
  size_t Bucket(double x) const {
    const double f = std::floor((x - lo_) / width_);
    if (!(f > 0)) return 0;
    return f >= static_cast<double>(buckets_ - 1) ? buckets_ - 1 : static_cast<size_t>(f);
  }

  size_t* head_;
  size_t* next_;
  double lo_ = 0;
  double width_ = 1;
  size_t buckets_ = 1;
};

class NonMaxSuppression final : public Kernel {
 public:
  explicit NonMaxSuppression(const KernelInfo& info)
      : center_point_box_(info.GetInt("center_point_box", 0)) {
    if (center_point_box_ != 0 && center_point_box_ != 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'center_point_box' is " +
                                              std::to_string(center_point_box_) +
                                              "; it must be 0 or 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& boxes = ctx.Input(0);
    const Tensor& scores = ctx.Input(1);
    const auto& bd = boxes.shape().dims();
    const auto& sd = scores.shape().dims();
    if (bd.size() != 3 || bd[2] != 4) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'boxes' has shape " + boxes.shape().ToString() +
                                                 "; expected [batches, boxes, 4]");
    }
    if (sd.size() != 3 || sd[0] != bd[0] || sd[2] != bd[1]) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'scores' has shape " + scores.shape().ToString() + "; expected [" +
                    std::to_string(bd[0]) + ", classes, " + std::to_string(bd[1]) +
                    "] for 'boxes' of shape " + boxes.shape().ToString());
    }
    nn::RequireSameType(info, "scores", scores, boxes.type(), "boxes");
    int64_t max_out = 0;
    if (const Tensor* t = ctx.OptionalInput(2); t != nullptr) {
      RequireIntType(info, *t, "max_output_boxes_per_class");
      if (t->element_count() != 1) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'max_output_boxes_per_class' has shape " +
                                                   t->shape().ToString() +
                                                   "; it must hold one value");
      }
      max_out = std::max<int64_t>(0, IntAt(*t, 0));
    }
    double iou_threshold = 0;
    if (const Tensor* t = ctx.OptionalInput(3); t != nullptr) {
      iou_threshold = ReadScalar(info, *t, "iou_threshold");
      if (!(iou_threshold >= 0 && iou_threshold <= 1)) {
        info.Fail(
            ErrorCode::kInvalidArgument,
            "input 'iou_threshold' is " + std::to_string(iou_threshold) + "; it must be in [0, 1]");
      }
    }
    const Tensor* score_t = ctx.OptionalInput(4);
    const double score_threshold = score_t != nullptr
                                       ? ReadScalar(info, *score_t, "score_threshold")
                                       : -std::numeric_limits<double>::infinity();

    const auto batches = static_cast<size_t>(bd[0]);
    const auto count = static_cast<size_t>(bd[1]);
    const auto classes = static_cast<size_t>(sd[1]);
    // At most this many boxes kept per batch and class.
    const size_t per_class = std::min(count, static_cast<size_t>(max_out));
    auto* box_values = ctx.Scratch<double>(boxes.element_count());
    auto* score_values = ctx.Scratch<double>(scores.element_count());
    nn::ReadAsDouble(info, boxes, "boxes", box_values);
    nn::ReadAsDouble(info, scores, "scores", score_values);
    auto* corners = ctx.Scratch<Box>(count);
    auto* order = ctx.Scratch<size_t>(count);
    // The boxes kept for each batch and class, per_class places each (no more than score_values
    // takes: scores has batches · classes · count elements), and how many.
    auto* kept_all = ctx.Scratch<size_t>(batches * classes * per_class);
    auto* kept_counts = ctx.Scratch<size_t>(batches * classes);
    auto* kept_columns = ctx.Scratch<double>(5 * per_class);
    const KeptBoxes columns = {kept_columns, kept_columns + per_class, kept_columns + 2 * per_class,
                               kept_columns + 3 * per_class, kept_columns + 4 * per_class};
    XBuckets buckets(ctx.Scratch<size_t>(XBuckets::kMaxBuckets + 1),
                     ctx.Scratch<size_t>(per_class));
    size_t rows = 0;
    for (size_t b = 0; b < batches; ++b) {
      for (size_t i = 0; i < count; ++i) corners[i] = Corners(&box_values[(b * count + i) * 4]);
      for (size_t c = 0; c < classes; ++c) {
        const double* s = score_values + (b * classes + c) * count;  // count may be 0
        size_t candidates = 0;
        for (size_t i = 0; i < count; ++i) {
          if (s[i] > score_threshold) order[candidates++] = i;  // never a NaN score
        }
        // Highest score first, equal scores by box index (std::stable_sort would take a buffer
        // from the heap).
        std::sort(order, order + candidates,
                  [&](size_t l, size_t r) { return s[l] > s[r] || (s[l] == s[r] && l < r); });
        size_t* kept = kept_all + (b * classes + c) * per_class;
        size_t kept_count = 0;
        const bool bucketed = per_class > 0 && buckets.Reset(corners, order, candidates);
        for (size_t n = 0; n < candidates && kept_count < per_class; ++n) {
          const size_t i = order[n];
          const Box& box = corners[i];
          const double area = Area(box);
          if (bucketed ? buckets.Overlaps(columns, box, area, iou_threshold)
                       : Overlaps(columns, kept_count, box, area, iou_threshold)) {
            continue;
          }
          if (bucketed) buckets.Add(kept_count, box.x1);
          columns.y1[kept_count] = box.y1;
          columns.x1[kept_count] = box.x1;
          columns.y2[kept_count] = box.y2;
          columns.x2[kept_count] = box.x2;
          columns.area[kept_count] = area;
          kept[kept_count++] = i;
        }
        kept_counts[b * classes + c] = kept_count;
        rows += kept_count;
      }
    }
    const std::array<int64_t, 2> dims{static_cast<int64_t>(rows), 3};
    auto* row = static_cast<int64_t*>(ctx.OutputForOverwrite(0, DataType::kInt64, dims).data());
    for (size_t bc = 0; bc < batches * classes; ++bc) {
      for (size_t k = 0; k < kept_counts[bc]; ++k, row += 3) {
        row[0] = static_cast<int64_t>(bc / classes);
        row[1] = static_cast<int64_t>(bc % classes);
        row[2] = static_cast<int64_t>(kept_all[bc * per_class + k]);
      }
    }
  }

 private:
  static double ReadScalar(const KernelInfo& info, const Tensor& t, const char* name) {
    if (t.element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                                 t.shape().ToString() + "; it must hold one value");
    }
    double v = 0;
    nn::ReadAsDouble(info, t, name, &v);
    return v;
  }

  Box Corners(const double* v) const {
    if (center_point_box_ != 0) {
      return Box{v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    }
    return Box{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]),
               std::max(v[1], v[3])};
  }

  int64_t center_point_box_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNonMaxSuppression(const KernelInfo& info) {
  return std::make_unique<NonMaxSuppression>(info);
}

}  // namespace kiln::cpu
