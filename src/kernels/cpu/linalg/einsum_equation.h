// Einsum equations: parsing "ij,jk->ik"-style text once per node, and binding it to the operand
// ranks and dimensions at run time (ellipsis expansion, implicit output, label sizes).
//
//   kiln::cpu::EinsumEquation eq = kiln::cpu::ParseEinsum(info, "...ij,...jk", 2);
//   kiln::cpu::EinsumLabels labels = kiln::cpu::BindEinsum(info, eq, {a.dims(), b.dims()});
#ifndef KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_
#define KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_

#include <cstdint>
#include <string>
#include <vector>

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

struct EinsumLabels {
  std::vector<std::vector<int>> inputs;  // per operand: one label id per dimension
  std::vector<int> output;               // one label id per output dimension
  std::vector<int64_t> sizes;            // per label id: its size after broadcasting
};

// Binds a parsed equation to the operands' dimensions: expands ellipses (right-aligned, as many
// dimensions as the operand has beyond its letters), builds the implicit output (ellipsis
// dimensions, then the letters that occur once, sorted) and sizes every label. A label's sizes
// must agree or be 1 (broadcast), except that a label repeated within one operand (a diagonal)
// needs equal sizes. Throws kInvalidArgument naming the equation otherwise.
EinsumLabels BindEinsum(const KernelInfo& info, const EinsumEquation& eq,
                        const std::vector<std::vector<int64_t>>& dims);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_EINSUM_EQUATION_H_
