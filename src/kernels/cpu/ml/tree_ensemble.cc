// TreeEnsemble (ai.onnx.ml 5): evaluates every tree of the ensemble on each row of X [N, F]
// (float, double or float16) and aggregates the reached leaves' weights per target (SUM,
// AVERAGE, MIN, MAX) into Y [N, n_targets] of X's type, then applies post_transform (NONE,
// SOFTMAX, SOFTMAX_ZERO, LOGISTIC; PROBIT is not implemented). Node modes: BRANCH_LEQ, LT, GTE,
// GT, EQ, NEQ and MEMBER (membership_values lists each MEMBER node's set in node order, sets
// separated by NaN). A NaN feature takes the true branch where nodes_missing_value_tracks_true
// says so, else the comparison's result (false but for NEQ). The trees are checked once at
// creation (indices in range, no cycles), so evaluation cannot run away.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/ml/ml_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// A float, double or float16 tensor attribute as doubles.
std::vector<double> RealsOf(const KernelInfo& info, const char* name, bool required) {
  std::shared_ptr<const Tensor> t = info.GetTensor(name);
  if (t == nullptr) {
    if (required)
      info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is required");
    return {};
  }
  std::vector<double> out(t->element_count());
  Dispatch<float, double, Float16>(t->type(), info, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, Float16>) {
        out[i] = DataAs<T>(*t)[i].ToFloat();
      } else {
        out[i] = static_cast<double>(DataAs<T>(*t)[i]);
      }
    }
  });
  return out;
}

enum Mode : uint8_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember };

class TreeEnsemble final : public Kernel {
 public:
  explicit TreeEnsemble(const KernelInfo& info)
      : aggregate_(info.GetInt("aggregate_function", 1)),
        post_(info.GetInt("post_transform", 0)),
        targets_(info.RequireInt("n_targets")),
        roots_(info.GetInts("tree_roots")),
        features_(info.GetInts("nodes_featureids")),
        true_ids_(info.GetInts("nodes_truenodeids")),
        false_ids_(info.GetInts("nodes_falsenodeids")),
        true_leafs_(info.GetInts("nodes_trueleafs")),
        false_leafs_(info.GetInts("nodes_falseleafs")),
        missing_true_(info.GetInts("nodes_missing_value_tracks_true")),
        leaf_targets_(info.GetInts("leaf_targetids")),
        splits_(RealsOf(info, "nodes_splits", true)),
        weights_(RealsOf(info, "leaf_weights", true)) {
    if (aggregate_ < 0 || aggregate_ > 3) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'aggregate_function' must be 0-3, not " + std::to_string(aggregate_));
    }
    if (post_ < 0 || post_ > 3) {
      info.Fail(post_ == 4 ? ErrorCode::kNotImplemented : ErrorCode::kInvalidGraph,
                "attribute 'post_transform' " + std::to_string(post_) +
                    " is not supported (NONE, SOFTMAX, SOFTMAX_ZERO, LOGISTIC are)");
    }
    if (targets_ < 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'n_targets' must be >= 1, not " + std::to_string(targets_));
    }
    const size_t nodes = features_.size();
    std::shared_ptr<const Tensor> modes = info.GetTensor("nodes_modes");
    if (modes == nullptr || modes->type() != DataType::kUint8 || modes->element_count() != nodes) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'nodes_modes' must be a uint8 tensor of " +
                                              std::to_string(nodes) + " entries");
    }
    modes_.assign(DataAs<uint8_t>(*modes), DataAs<uint8_t>(*modes) + nodes);
    auto check_size = [&](size_t size, const char* name, size_t want) {
      if (size != want) {
        info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' has " +
                                                std::to_string(size) + " entries, not " +
                                                std::to_string(want));
      }
    };
    check_size(true_ids_.size(), "nodes_truenodeids", nodes);
    check_size(false_ids_.size(), "nodes_falsenodeids", nodes);
    check_size(true_leafs_.size(), "nodes_trueleafs", nodes);
    check_size(false_leafs_.size(), "nodes_falseleafs", nodes);
    check_size(splits_.size(), "nodes_splits", nodes);
    if (!missing_true_.empty())
      check_size(missing_true_.size(), "nodes_missing_value_tracks_true", nodes);
    check_size(weights_.size(), "leaf_weights", leaf_targets_.size());
    for (int64_t t : leaf_targets_) {
      if (t < 0 || t >= targets_) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'leaf_targetids' has target " +
                                                std::to_string(t) + " outside [0, " +
                                                std::to_string(targets_) + ")");
      }
    }
    const auto leaves = static_cast<int64_t>(leaf_targets_.size());
    for (size_t n = 0; n < nodes; ++n) {
      if (modes_[n] > kMember) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'nodes_modes' entry " + std::to_string(n) +
                                                " is " + std::to_string(modes_[n]));
      }
      if (features_[n] < 0) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'nodes_featureids' has a negative entry");
      }
      max_feature_ = std::max(max_feature_, features_[n]);
      for (int side = 0; side < 2; ++side) {
        const int64_t id = side == 0 ? true_ids_[n] : false_ids_[n];
        const bool leaf = (side == 0 ? true_leafs_[n] : false_leafs_[n]) != 0;
        // An inner child must come after its parent, which rules out cycles.
        const bool ok = leaf ? id >= 0 && id < leaves
                             : id > static_cast<int64_t>(n) && id < static_cast<int64_t>(nodes);
        if (!ok) {
          info.Fail(ErrorCode::kInvalidGraph,
                    std::string("attribute '") +
                        (side == 0 ? "nodes_truenodeids" : "nodes_falsenodeids") + "' entry " +
                        std::to_string(n) + " (" + std::to_string(id) + ") names no " +
                        (leaf ? "leaf" : "later node"));
        }
      }
    }
    for (int64_t r : roots_) {
      if (r < 0 || r >= static_cast<int64_t>(nodes)) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'tree_roots' names node " +
                                                std::to_string(r) + " of " + std::to_string(nodes));
      }
    }
    // Member sets, in the order of the MEMBER nodes.
    const std::vector<double> members = RealsOf(info, "membership_values", false);
    sets_.resize(nodes);
    size_t at = 0;
    for (size_t n = 0; n < nodes; ++n) {
      if (modes_[n] != kMember) continue;
      while (at < members.size() && !std::isnan(members[at])) sets_[n].push_back(members[at++]);
      ++at;
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.size() != 2 || dims[1] <= max_feature_) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' must have shape [N, F] with F > " +
                                                 std::to_string(max_feature_) + ", not " +
                                                 x.shape().ToString());
    }
    const auto rows = static_cast<size_t>(dims[0]);
    const auto width = static_cast<size_t>(dims[1]);
    const auto targets = static_cast<size_t>(targets_);
    const int64_t y_dims[2] = {dims[0], targets_};  // a span: no Shape (heap) per run
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), y_dims);
    double* acc = ctx.Scratch<double>(targets);
    bool* seen = ctx.Scratch<bool>(targets);
    Dispatch<float, double, Float16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto to_double = [](const T& v) {
        if constexpr (std::is_same_v<T, Float16>) {
          return static_cast<double>(v.ToFloat());
        } else {
          return static_cast<double>(v);
        }
      };
      const T* in = DataAs<T>(x);
      T* out = DataAs<T>(y);
      for (size_t r = 0; r < rows; ++r) {
        std::fill(acc, acc + targets, 0.0);
        std::fill(seen, seen + targets, false);
        for (int64_t root : roots_) {
          auto n = static_cast<size_t>(root);
          size_t leaf = 0;
          while (true) {
            const double v = to_double(in[r * width + static_cast<size_t>(features_[n])]);
            const bool go_true = Test(n, v);
            const int64_t id = go_true ? true_ids_[n] : false_ids_[n];
            if ((go_true ? true_leafs_[n] : false_leafs_[n]) != 0) {
              leaf = static_cast<size_t>(id);
              break;
            }
            n = static_cast<size_t>(id);
          }
          const auto t = static_cast<size_t>(leaf_targets_[leaf]);
          const double w = weights_[leaf];
          if (aggregate_ == 2) {
            acc[t] = seen[t] ? std::min(acc[t], w) : w;
          } else if (aggregate_ == 3) {
            acc[t] = seen[t] ? std::max(acc[t], w) : w;
          } else {
            acc[t] += w;
          }
          seen[t] = true;
        }
        if (aggregate_ == 0 && !roots_.empty()) {
          for (size_t t = 0; t < targets; ++t) acc[t] /= static_cast<double>(roots_.size());
        }
        PostTransform(acc, targets);
        for (size_t t = 0; t < targets; ++t) {
          if constexpr (std::is_same_v<T, Float16>) {
            out[r * targets + t] = Float16::FromFloat(static_cast<float>(acc[t]));
          } else {
            out[r * targets + t] = static_cast<T>(acc[t]);
          }
        }
      }
    });
  }

 private:
  bool Test(size_t n, double v) const {
    if (std::isnan(v) && !missing_true_.empty() && missing_true_[n] != 0) return true;
    const double s = splits_[n];
    switch (modes_[n]) {
      case kLeq:
        return v <= s;
      case kLt:
        return v < s;
      case kGte:
        return v >= s;
      case kGt:
        return v > s;
      case kEq:
        return v == s;
      case kNeq:
        return v != s;
      default:
        for (double m : sets_[n]) {
          if (m == v) return true;
        }
        return false;
    }
  }

  void PostTransform(double* acc, size_t n) const {
    if (post_ == 3) {
      for (size_t t = 0; t < n; ++t) acc[t] = 1.0 / (1.0 + std::exp(-acc[t]));
      return;
    }
    if (post_ == 1 || post_ == 2) {
      double top = -std::numeric_limits<double>::infinity();
      for (size_t t = 0; t < n; ++t) top = std::max(top, acc[t]);
      double sum = 0;
      for (size_t t = 0; t < n; ++t) {
        // SOFTMAX_ZERO leaves zero scores at zero.
        acc[t] = post_ == 2 && acc[t] == 0.0 ? 0.0 : std::exp(acc[t] - top);
        sum += acc[t];
      }
      for (size_t t = 0; t < n; ++t) acc[t] = sum > 0 ? acc[t] / sum : 0.0;
    }
  }

  int64_t aggregate_;
  int64_t post_;
  int64_t targets_;
  std::vector<int64_t> roots_;
  std::vector<int64_t> features_;
  std::vector<int64_t> true_ids_;
  std::vector<int64_t> false_ids_;
  std::vector<int64_t> true_leafs_;
  std::vector<int64_t> false_leafs_;
  std::vector<int64_t> missing_true_;
  std::vector<int64_t> leaf_targets_;
  std::vector<double> splits_;
  std::vector<double> weights_;
  std::vector<uint8_t> modes_;
  std::vector<std::vector<double>> sets_;
  int64_t max_feature_ = -1;
};

}  // namespace

std::unique_ptr<Kernel> MakeTreeEnsemble(const KernelInfo& info) {
  return Make<TreeEnsemble>(info);
}

}  // namespace kiln::cpu
