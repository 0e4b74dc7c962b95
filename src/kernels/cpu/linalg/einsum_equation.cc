#include "kernels/cpu/linalg/einsum_equation.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

char LabelName(int id) {
  return static_cast<char>(id < 26 ? 'A' + id : 'a' + (id - 26));
}

[[noreturn]] void Fail(const KernelInfo& info, const std::string& text, const std::string& what) {
  info.Fail(ErrorCode::kInvalidArgument, "equation '" + text + "': " + what);
}

// Parses one term (letters and at most one "...") of `text`.
std::vector<int> ParseTerm(const KernelInfo& info, const std::string& text,
                           const std::string& term) {
  std::vector<int> labels;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char ch = term[i];
    if (ch >= 'A' && ch <= 'Z') {
      labels.push_back(ch - 'A');
    } else if (ch >= 'a' && ch <= 'z') {
      labels.push_back(26 + (ch - 'a'));
    } else if (ch == '.') {
      if (term.compare(i, 3, "...") != 0) Fail(info, text, "'.' must be part of \"...\"");
      if (ellipsis) Fail(info, text, "term '" + term + "' has more than one \"...\"");
      ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
    } else {
      Fail(info, text, std::string("unexpected character '") + ch + "'");
    }
  }
  return labels;
}

}  // namespace

EinsumEquation ParseEinsum(const KernelInfo& info, const std::string& text, size_t operands) {
  std::string s;
  for (char ch : text) {
    if (ch != ' ') s += ch;
  }
  EinsumEquation eq;
  eq.text = text;
  std::string lhs = s;
  const size_t arrow = s.find("->");
  if (arrow != std::string::npos) {
    lhs = s.substr(0, arrow);
    const std::string rhs = s.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos) Fail(info, text, "more than one \"->\"");
    eq.explicit_output = true;
    eq.output = ParseTerm(info, text, rhs);
  }
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    eq.inputs.push_back(ParseTerm(info, text, lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (eq.inputs.size() != operands) {
    Fail(info, text,
         std::to_string(eq.inputs.size()) + " terms for " + std::to_string(operands) + " inputs");
  }
  for (size_t i = 0; i < eq.output.size(); ++i) {
    const int label = eq.output[i];
    if (label == kEllipsis) continue;
    if (std::find(eq.output.begin(), eq.output.begin() + static_cast<ptrdiff_t>(i), label) !=
        eq.output.begin() + static_cast<ptrdiff_t>(i)) {
      Fail(info, text, std::string("output label '") + LabelName(label) + "' is repeated");
    }
    const bool in_inputs = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](const auto& term) {
      return std::find(term.begin(), term.end(), label) != term.end();
    });
    if (!in_inputs) {
      Fail(info, text, std::string("output label '") + LabelName(label) + "' is in no input");
    }
  }
  return eq;
}

EinsumLabels BindEinsum(const KernelInfo& info, const EinsumEquation& eq,
                        std::span<const std::span<const int64_t>> dims) {
  // How many dimensions each ellipsis stands for, and the most of any operand.
  size_t ellipsis_rank = 0;
  SmallVector<size_t, 16> operand_ellipsis(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const std::vector<int>& term = eq.inputs[i];
    const bool has_ellipsis = std::find(term.begin(), term.end(), kEllipsis) != term.end();
    const size_t letters = term.size() - (has_ellipsis ? 1 : 0);
    const size_t rank = dims[i].size();
    if (has_ellipsis ? rank < letters : rank != letters) {
      Fail(info, eq.text,
           "input " + std::to_string(i) + " has rank " + std::to_string(rank) +
               " but its term has " + std::to_string(letters) + " letters" +
               (has_ellipsis ? " and \"...\"" : ""));
    }
    operand_ellipsis[i] = rank - letters;
    ellipsis_rank = std::max(ellipsis_rank, operand_ellipsis[i]);
  }

  EinsumLabels out;
  out.sizes.assign(kLetterLabels + ellipsis_rank, -1);
  SmallVector<int, 64> count(out.sizes.size(), 0);
  out.input_start.push_back(0);
  for (size_t i = 0; i < dims.size(); ++i) {
    for (int label : eq.inputs[i]) {
      if (label != kEllipsis) {
        out.input_labels.push_back(label);
        continue;
      }
      for (size_t e = ellipsis_rank - operand_ellipsis[i]; e < ellipsis_rank; ++e) {
        out.input_labels.push_back(kFirstEllipsisLabel + static_cast<int>(e));
      }
    }
    out.input_start.push_back(out.input_labels.size());
    const std::span<const int> labels = out.input(i);
    for (size_t d = 0; d < labels.size(); ++d) {
      const int label = labels[d];
      const int64_t size = dims[i][d];
      int64_t& known = out.sizes[static_cast<size_t>(label)];
      const auto first =
          static_cast<size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
      if (first < d && size != dims[i][first]) {
        Fail(info, eq.text,
             std::string("label '") + LabelName(label) + "' repeats in input " + std::to_string(i) +
                 " with sizes " + std::to_string(dims[i][first]) + " and " + std::to_string(size));
      }
      if (known == -1 || known == 1) {
        known = size;
      } else if (size != known && size != 1) {
        const std::string name = label < kLetterLabels
                                     ? std::string("label '") + LabelName(label) + "'"
                                     : std::string("a dimension of \"...\"");
        Fail(info, eq.text,
             name + " has size " + std::to_string(size) + " in input " + std::to_string(i) +
                 " but " + std::to_string(known) + " before, and neither is 1");
      }
      ++count[static_cast<size_t>(label)];
    }
  }

  if (eq.explicit_output) {
    const bool has_ellipsis =
        std::find(eq.output.begin(), eq.output.end(), kEllipsis) != eq.output.end();
    if (!has_ellipsis && ellipsis_rank > 0) {
      Fail(info, eq.text,
           "the inputs' \"...\" stands for " + std::to_string(ellipsis_rank) +
               " dimensions but the output has no \"...\"");
    }
    for (int label : eq.output) {
      if (label != kEllipsis) {
        out.output.push_back(label);
        continue;
      }
      for (size_t e = 0; e < ellipsis_rank; ++e) {
        out.output.push_back(kFirstEllipsisLabel + static_cast<int>(e));
      }
    }
  } else {
    for (size_t e = 0; e < ellipsis_rank; ++e) {
      out.output.push_back(kFirstEllipsisLabel + static_cast<int>(e));
    }
    for (int label = 0; label < kLetterLabels; ++label) {
      if (count[static_cast<size_t>(label)] == 1) out.output.push_back(label);
    }
  }
  return out;
}

}  // namespace kiln::cpu
