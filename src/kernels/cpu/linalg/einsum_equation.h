// Einsum equations: parsing "ij,jk->ik"-style text once per node, and binding it to the operand
// ranks and dimensions at run time (ellipsis expansion, implicit output, label sizes).
//
//   kiln::cpu::EinsumEquation eq = kiln::cpu::ParseEinsum(info, "...ij,...jk", 2);
//   const std::span<const int64_t> dims[] = {a.shape().dims(), b.shape().dims()};
//   kiln::cpu::EinsumLabels labels = kiln::cpu::BindEinsum(info, eq, dims);
#ifndef KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_
#define KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// Label ids: 'A'..'Z' are 0..25 and 'a'..'z' are 26..51 (so sorting ids sorts like ASCII, as
// numpy orders an implicit output); the dimensions an ellipsis stands for get kFirstEllipsisLabel
// and up, the last ellipsis dimension the highest.
inline constexpr int kLetterLabels = 52;
inline constexpr int kFirstEllipsisLabel = kLetterLabels;
// Marks where "..." stands in a parsed term.
inline constexpr int kEllipsis = -1;

struct EinsumEquation {
  std::string text;
  std::vector<std::vector<int>> inputs;  // per operand: letter ids, kEllipsis where "..." is
  bool explicit_output = false;          // "->" given
  std::vector<int> output;               // when explicit
};

// Parses the equation (spaces ignored) for `operands` inputs. Throws kInvalidArgument naming the
// equation for a malformed one: a character other than letters, ',', "...", "->"; more than one
// ellipsis in a term; a term count other than `operands`; an output letter repeated or absent
// from the inputs.
EinsumEquation ParseEinsum(const KernelInfo& info, const std::string& text, size_t operands);

// Bound at every run, so kept off the heap for ordinary ranks and operand counts.
struct EinsumLabels {
  // Operand i has one label id per dimension: input_labels[input_start[i], input_start[i + 1]).
  SmallVector<int, 32> input_labels;
  SmallVector<size_t, 16> input_start;
  SmallVector<int> output;         // one label id per output dimension
  SmallVector<int64_t, 64> sizes;  // per label id: its size after broadcasting

  size_t operand_count() const noexcept { return input_start.size() - 1; }
  std::span<const int> input(size_t i) const noexcept {
    return input_labels.span().subspan(input_start[i], input_start[i + 1] - input_start[i]);
  }
};

// Binds a parsed equation to the operands' dimensions: expands ellipses (right-aligned, as many
// dimensions as the operand has beyond its letters), builds the implicit output (ellipsis
// dimensions, then the letters that occur once, sorted) and sizes every label. A label's sizes
// must agree or be 1 (broadcast), except that a label repeated within one operand (a diagonal)
// needs equal sizes. Throws kInvalidArgument naming the equation otherwise.
EinsumLabels BindEinsum(const KernelInfo& info, const EinsumEquation& eq,
                        std::span<const std::span<const int64_t>> dims);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_
