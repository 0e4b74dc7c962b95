// TfIdfVectorizer 9–23: counts the n-grams of `pool_int64s` or `pool_strings` in each row of a
// [C] or [N, C] input (int32, int64 or string), n from min_gram_length to max_gram_length, the
// items of an n-gram up to max_skip_count apart (each n-gram counted once per start and gap;
// 1-grams once per position), and writes TF (the counts), IDF (weight, or 1, where the count is
// nonzero) or TFIDF (count × weight) into float output column ngram_indexes[i] of pool n-gram i.
// The pool is sorted once at creation, so a run looks each candidate up without allocating.
#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_util.h"
#include "kernels/cpu/text/text_kernels.h"

namespace kiln::cpu {
namespace {

class TfIdfVectorizer final : public Kernel {
 public:
  explicit TfIdfVectorizer(const KernelInfo& info)
      : min_n_(info.GetInt("min_gram_length", 0)),
        max_n_(info.GetInt("max_gram_length", 0)),
        max_skip_(info.GetInt("max_skip_count", 0)),
        ints_(info.GetInts("pool_int64s")),
        strings_(info.GetStrings("pool_strings")),
        weights_(info.GetFloats("weights")) {
    const std::string mode = info.GetString("mode", "");
    if (mode == "TF") {
      mode_ = Mode::kTf;
    } else if (mode == "IDF") {
      mode_ = Mode::kIdf;
    } else if (mode == "TFIDF") {
      mode_ = Mode::kTfIdf;
    } else {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'mode' must be TF, IDF or TFIDF, not \"" + mode + "\"");
    }
    if (min_n_ < 1 || max_n_ < min_n_ || max_skip_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'min_gram_length' (" + std::to_string(min_n_) +
                    ") and 'max_gram_length' (" + std::to_string(max_n_) +
                    ") must satisfy 1 <= min <= max, and 'max_skip_count' (" +
                    std::to_string(max_skip_) + ") must be >= 0");
    }
    strings_pool_ = !strings_.empty();
    if (strings_pool_ == !ints_.empty()) {
      info.Fail(ErrorCode::kInvalidGraph,
                "exactly one of the attributes 'pool_int64s' and 'pool_strings' must be given");
    }
    const size_t pool = strings_pool_ ? strings_.size() : ints_.size();
    const std::vector<int64_t> counts = info.GetInts("ngram_counts");
    const std::vector<int64_t> indexes = info.GetInts("ngram_indexes");
    // ngram_counts[k] is where the (k+1)-grams start in the pool.
    for (size_t k = 0; k < counts.size(); ++k) {
      const int64_t start = counts[k];
      const int64_t end = k + 1 < counts.size() ? counts[k + 1] : static_cast<int64_t>(pool);
      const auto n = static_cast<int64_t>(k + 1);
      if (start < 0 || end < start || end > static_cast<int64_t>(pool) || (end - start) % n != 0) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'ngram_counts' " + DimsText(counts) +
                                                " does not split a pool of " +
                                                std::to_string(pool) + " items into whole n-grams");
      }
      Level level{static_cast<size_t>(n), {}};
      for (int64_t at = start; at < end; at += n) {
        level.grams.push_back({static_cast<size_t>(at), 0});
      }
      levels_.push_back(std::move(level));
    }
    size_t total = 0;
    for (const Level& l : levels_) total += l.grams.size();
    if (indexes.size() != total) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'ngram_indexes' has " +
                                              std::to_string(indexes.size()) + " entries for " +
                                              std::to_string(total) + " n-grams in the pool");
    }
    size_t i = 0;
    for (Level& l : levels_) {
      for (Gram& g : l.grams) {
        if (indexes[i] < 0) {
          info.Fail(ErrorCode::kInvalidGraph, "attribute 'ngram_indexes' has a negative entry");
        }
        g.column = static_cast<size_t>(indexes[i++]);
        columns_ = std::max(columns_, g.column + 1);
      }
      std::sort(l.grams.begin(), l.grams.end(),
                [&](const Gram& a, const Gram& b) { return PoolLess(a.start, b.start, l.n); });
    }
    if (!weights_.empty() && weights_.size() < columns_) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'weights' has " +
                                              std::to_string(weights_.size()) + " entries for " +
                                              std::to_string(columns_) + " output columns");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.empty() || dims.size() > 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' must have shape [C] or [N, C], not " + x.shape().ToString());
    }
    const bool is_string = x.type() == DataType::kString;
    if (is_string != strings_pool_ ||
        (!is_string && x.type() != DataType::kInt32 && x.type() != DataType::kInt64)) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'X' is ") + DataTypeName(x.type()) + " but the pool holds " +
                    (strings_pool_ ? "strings" : "int64s (X must be int32 or int64)"));
    }
    const size_t rows = dims.size() == 2 ? static_cast<size_t>(dims[0]) : 1;
    const size_t cols = static_cast<size_t>(dims.back());
    const auto width = static_cast<int64_t>(columns_);
    // Dimensions as a span: no Shape (heap) per run.
    const int64_t y_dims[2] = {dims.size() == 2 ? dims[0] : width, width};
    Tensor& y =
        ctx.Output(0, DataType::kFloat, std::span<const int64_t>(y_dims, dims.size() == 2 ? 2 : 1));
    auto* out = DataAs<float>(y);
    for (size_t r = 0; r < rows; ++r) {
      float* row = out + r * columns_;
      for (const Level& l : levels_) {
        if (static_cast<int64_t>(l.n) < min_n_ || static_cast<int64_t>(l.n) > max_n_ ||
            l.grams.empty()) {
          continue;
        }
        // 1-grams have no gaps: count them once.
        const size_t skips = l.n == 1 ? 0 : static_cast<size_t>(max_skip_);
        for (size_t gap = 1; gap <= skips + 1; ++gap) {
          for (size_t start = 0; start + (l.n - 1) * gap < cols; ++start) {
            const size_t column = Find(x, r * cols + start, gap, l);
            if (column != kNone) row[column] += 1.0f;
          }
        }
      }
      for (size_t c = 0; c < columns_; ++c) {
        const float w = weights_.empty() ? 1.0f : weights_[c];
        if (mode_ == Mode::kIdf) {
          row[c] = row[c] > 0 ? w : 0.0f;
        } else if (mode_ == Mode::kTfIdf) {
          row[c] *= w;
        }
      }
    }
  }

 private:
  enum class Mode { kTf, kIdf, kTfIdf };
  struct Gram {
    size_t start;   // first item in the pool
    size_t column;  // output column
  };
  struct Level {
    size_t n;
    std::vector<Gram> grams;  // sorted by their items
  };
  static constexpr size_t kNone = SIZE_MAX;

  bool PoolLess(size_t a, size_t b, size_t n) const {
    for (size_t k = 0; k < n; ++k) {
      if (strings_pool_ ? strings_[a + k] != strings_[b + k] : ints_[a + k] != ints_[b + k]) {
        return strings_pool_ ? strings_[a + k] < strings_[b + k] : ints_[a + k] < ints_[b + k];
      }
    }
    return false;
  }

  // -1, 0, 1 as the input n-gram at `at` with items `gap` apart compares to pool n-gram `g`.
  int Compare(const Tensor& x, size_t at, size_t gap, size_t g, size_t n) const {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = at + k * gap;
      if (strings_pool_) {
        const int c = DataAs<std::string>(x)[i].compare(strings_[g + k]);
        if (c != 0) return c < 0 ? -1 : 1;
      } else {
        const int64_t v = IntAt(x, i);
        if (v != ints_[g + k]) return v < ints_[g + k] ? -1 : 1;
      }
    }
    return 0;
  }

  size_t Find(const Tensor& x, size_t at, size_t gap, const Level& l) const {
    size_t lo = 0, hi = l.grams.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      const int c = Compare(x, at, gap, l.grams[mid].start, l.n);
      if (c == 0) return l.grams[mid].column;
      if (c < 0) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return kNone;
  }

  int64_t min_n_;
  int64_t max_n_;
  int64_t max_skip_;
  std::vector<int64_t> ints_;
  std::vector<std::string> strings_;
  std::vector<float> weights_;
  bool strings_pool_ = false;
  Mode mode_ = Mode::kTf;
  std::vector<Level> levels_;
  size_t columns_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeTfIdfVectorizer(const KernelInfo& info) {
  return Make<TfIdfVectorizer>(info);
}

}  // namespace kiln::cpu
