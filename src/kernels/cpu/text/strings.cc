// String kernels:
//   StringNormalizer 10–23: drops stopwords (compared exactly, or after locale-free lower-casing
//     when is_case_sensitive is 0) and changes case (LOWER, UPPER, NONE) of a [C] or [1, C]
//     input; when every string is dropped the output is one empty string ([1] or [1, 1]). The
//     `locale` attribute is accepted and not used: case mapping never depends on the machine's
//     locale (text/case_map.h says which letters map).
//   StringConcat 20–23: elementwise concatenation with numpy broadcasting.
//   StringSplit 20–23: Python's str.split per element (a missing or empty delimiter splits on
//     runs of whitespace and drops empty ends; maxsplit limits the splits); the substrings are
//     padded with "" to the longest split, their counts go to the int64 second output.
//   RegexFullMatch 20–23: whether each string matches `pattern` as a whole. Patterns are run by
//     std::regex (ECMAScript grammar), which covers the RE2 syntax of classes, groups,
//     alternation, repetition counts, \w \W \d \s \b and anchors; RE2-only syntax (named groups
//     (?P<n>…), \p{…} classes, (?i) flags) is rejected at load. Strings longer than
//     kMaxRegexInput bytes are refused, as std::regex matches recursively.
// Output sizes of StringNormalizer and StringSplit depend on the data, so those allocate.
#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_util.h"
#include "kernels/cpu/text/case_map.h"
#include "kernels/cpu/text/text_kernels.h"

namespace kiln::cpu {
namespace {

void RequireStrings(const KernelInfo& info, const Tensor& t, const char* name) {
  if (t.type() != DataType::kString) {
    info.Fail(
        ErrorCode::kInvalidArgument,
        std::string("input '") + name + "' must be a string tensor, not " + DataTypeName(t.type()));
  }
}

class StringNormalizer final : public Kernel {
 public:
  explicit StringNormalizer(const KernelInfo& info)
      : case_sensitive_(info.GetInt("is_case_sensitive", 0) != 0) {
    const std::string action = info.GetString("case_change_action", "NONE");
    if (action == "LOWER") {
      action_ = Action::kLower;
    } else if (action == "UPPER") {
      action_ = Action::kUpper;
    } else if (action != "NONE") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'case_change_action' must be LOWER, UPPER "
                "or NONE, not \"" +
                    action + "\"");
    }
    for (const std::string& w : info.GetStrings("stopwords")) {
      stopwords_.insert(case_sensitive_ ? w : ToLowerUtf8(w));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireStrings(info, x, "X");
    const std::vector<int64_t>& dims = x.shape().dims();
    if (!(dims.size() == 1 || (dims.size() == 2 && dims[0] == 1))) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' must have shape [C] or [1, C], not " + x.shape().ToString());
    }
    const auto* in = DataAs<std::string>(x);
    std::vector<const std::string*> kept;
    for (size_t i = 0; i < x.element_count(); ++i) {
      const bool stop = case_sensitive_ ? stopwords_.count(in[i]) != 0
                                        : stopwords_.count(ToLowerUtf8(in[i])) != 0;
      if (!stop) kept.push_back(&in[i]);
    }
    const auto n = static_cast<int64_t>(std::max<size_t>(kept.size(), 1));
    Tensor& y = ctx.Output(0, DataType::kString, dims.size() == 1 ? Shape({n}) : Shape({1, n}));
    auto* out = DataAs<std::string>(y);
    for (size_t i = 0; i < kept.size(); ++i) {
      switch (action_) {
        case Action::kNone:
          out[i] = *kept[i];
          break;
        case Action::kLower:
          out[i] = ToLowerUtf8(*kept[i]);
          break;
        case Action::kUpper:
          out[i] = ToUpperUtf8(*kept[i]);
          break;
      }
    }
  }

 private:
  enum class Action { kNone, kLower, kUpper };
  bool case_sensitive_;
  Action action_ = Action::kNone;
  std::unordered_set<std::string> stopwords_;
};

class StringConcat final : public Kernel {
 public:
  explicit StringConcat(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireStrings(info, a, "X");
    RequireStrings(info, b, "Y");
    const std::vector<int64_t>& da = a.shape().dims();
    const std::vector<int64_t>& db = b.shape().dims();
    const size_t rank = std::max(da.size(), db.size());
    SmallVector<int64_t> out(rank, 1), sa(rank, 0), sb(rank, 0);
    const SmallVector<int64_t> stride_a = SignedStrides(da), stride_b = SignedStrides(db);
    const size_t pad_a = rank - da.size(), pad_b = rank - db.size();  // leading 1s
    for (size_t k = 0; k < rank; ++k) {
      const int64_t x = k >= pad_a ? da[k - pad_a] : 1;
      const int64_t y = k >= pad_b ? db[k - pad_b] : 1;
      if (x != y && x != 1 && y != 1) {
        info.Fail(ErrorCode::kInvalidArgument, "inputs 'X' " + a.shape().ToString() + " and 'Y' " +
                                                   b.shape().ToString() + " do not broadcast");
      }
      out[k] = x == 1 ? y : x;
      if (x != 1) sa[k] = stride_a[k - pad_a];
      if (y != 1) sb[k] = stride_b[k - pad_b];
    }
    Tensor& z = ctx.Output(0, DataType::kString, std::span<const int64_t>(out.data(), rank));
    const auto* pa = DataAs<std::string>(a);
    const auto* pb = DataAs<std::string>(b);
    auto* pz = DataAs<std::string>(z);
    SmallVector<int64_t> index(rank, 0);
    for (size_t i = 0, n = z.element_count(); i < n; ++i) {
      int64_t oa = 0, ob = 0;
      for (size_t k = 0; k < rank; ++k) {
        oa += index[k] * sa[k];
        ob += index[k] * sb[k];
      }
      pz[i].reserve(pa[oa].size() + pb[ob].size());
      pz[i] = pa[oa];
      pz[i] += pb[ob];
      for (size_t k = rank; k-- > 0;) {
        if (++index[k] < out[k]) break;
        index[k] = 0;
      }
    }
  }
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

class StringSplit final : public Kernel {
 public:
  explicit StringSplit(const KernelInfo& info)
      : delimiter_(info.GetString("delimiter", "")), maxsplit_(info.GetInt("maxsplit", -1)) {
    if (info.HasAttribute("maxsplit") && maxsplit_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'maxsplit' must be >= 0, not " + std::to_string(maxsplit_));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireStrings(info, x, "X");
    const auto* in = DataAs<std::string>(x);
    const size_t n = x.element_count();
    std::vector<std::vector<std::string_view>> parts(n);
    size_t widest = 0;
    for (size_t i = 0; i < n; ++i) {
      parts[i] = Split(in[i]);
      widest = std::max(widest, parts[i].size());
    }
    std::vector<int64_t> dims = x.shape().dims();
    Tensor& lengths = ctx.Output(1, DataType::kInt64, Shape(dims));
    dims.push_back(static_cast<int64_t>(widest));
    Tensor& y = ctx.Output(0, DataType::kString, Shape(dims));
    auto* out = DataAs<std::string>(y);
    auto* len = DataAs<int64_t>(lengths);
    for (size_t i = 0; i < n; ++i) {
      len[i] = static_cast<int64_t>(parts[i].size());
      for (size_t j = 0; j < parts[i].size(); ++j) out[i * widest + j] = parts[i][j];
    }
  }

 private:
  std::vector<std::string_view> Split(std::string_view s) const {
    std::vector<std::string_view> out;
    const auto limit = maxsplit_ < 0 ? SIZE_MAX : static_cast<size_t>(maxsplit_);
    if (delimiter_.empty()) {
      size_t i = 0;
      while (i < s.size() && IsSpace(s[i])) ++i;
      while (i < s.size()) {
        if (out.size() == limit) {
          out.push_back(s.substr(i));  // the rest, trailing whitespace kept (as Python does)
          break;
        }
        size_t j = i;
        while (j < s.size() && !IsSpace(s[j])) ++j;
        out.push_back(s.substr(i, j - i));
        i = j;
        while (i < s.size() && IsSpace(s[i])) ++i;
      }
      return out;
    }
    size_t start = 0;
    while (out.size() < limit) {
      const size_t at = s.find(delimiter_, start);
      if (at == std::string_view::npos) break;
      out.push_back(s.substr(start, at - start));
      start = at + delimiter_.size();
    }
    out.push_back(s.substr(start));
    return out;
  }

  std::string delimiter_;
  int64_t maxsplit_;
};

constexpr size_t kMaxRegexInput = 1 << 16;

class RegexFullMatch final : public Kernel {
 public:
  explicit RegexFullMatch(const KernelInfo& info) {
    const std::string pattern = info.GetString("pattern", "");
    if (!info.HasAttribute("pattern")) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'pattern' is required");
    }
    if (pattern.find("(?") != std::string::npos || pattern.find("\\p") != std::string::npos ||
        pattern.find("\\P") != std::string::npos) {
      info.Fail(ErrorCode::kNotImplemented,
                "attribute 'pattern' uses RE2 syntax std::regex lacks ((?…) groups or flags, "
                "\\p classes): \"" +
                    pattern + "\"");
    }
    try {
      regex_ = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'pattern' is not a valid regular expression (" + std::string(e.what()) +
                    "): \"" + pattern + "\"");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireStrings(info, x, "X");
    const auto* in = DataAs<std::string>(x);
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kBool, x.shape());
    auto* out = DataAs<bool>(y);
    for (size_t i = 0, n = x.element_count(); i < n; ++i) {
      if (in[i].size() > kMaxRegexInput) {
        info.Fail(ErrorCode::kNotImplemented, "input 'X' element " + std::to_string(i) + " has " +
                                                  std::to_string(in[i].size()) +
                                                  " bytes; matching is limited to " +
                                                  std::to_string(kMaxRegexInput));
      }
      out[i] = std::regex_match(in[i], regex_);
    }
  }

 private:
  std::regex regex_;
};

}  // namespace

std::unique_ptr<Kernel> MakeStringNormalizer(const KernelInfo& info) {
  return Make<StringNormalizer>(info);
}
std::unique_ptr<Kernel> MakeStringConcat(const KernelInfo& info) {
  return Make<StringConcat>(info);
}
std::unique_ptr<Kernel> MakeStringSplit(const KernelInfo& info) {
  return Make<StringSplit>(info);
}
std::unique_ptr<Kernel> MakeRegexFullMatch(const KernelInfo& info) {
  return Make<RegexFullMatch>(info);
}

}  // namespace kiln::cpu
