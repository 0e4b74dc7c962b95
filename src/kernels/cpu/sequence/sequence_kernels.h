// The sequence kernel family (ONNX seq(tensor(T)) and optional values): factories and the helpers
// its kernels share.
//
//   const kiln::TensorSequence& s = kiln::cpu::SequenceInput(ctx, 0);
//   int64_t p = kiln::cpu::NormalizePosition(ctx.info(), raw, s.tensors.size(), false);
#ifndef KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_KERNELS_H_
#define KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/value.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// sequence_ops.cc
std::unique_ptr<Kernel> MakeSequenceEmpty(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSequenceConstruct(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSequenceInsert(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSequenceAt(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSequenceErase(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSequenceLength(const KernelInfo& info);
// split_concat.cc
std::unique_ptr<Kernel> MakeSplitToSequence(const KernelInfo& info);
std::unique_ptr<Kernel> MakeConcatFromSequence(const KernelInfo& info);
// sequence_map.cc
std::unique_ptr<Kernel> MakeSequenceMap(const KernelInfo& info);
// optional_ops.cc
std::unique_ptr<Kernel> MakeOptional(const KernelInfo& info);
std::unique_ptr<Kernel> MakeOptionalHasElement(const KernelInfo& info);
std::unique_ptr<Kernel> MakeOptionalGetElement(const KernelInfo& info);

// What input i holds: a plain tensor (also when only the tensor list has it, as when a node is
// evaluated at load), a sequence, an optional, or kNone when it is left out.
Value::Kind InputKind(const KernelContext& ctx, size_t i);

// "tensor(float)", "seq(tensor(int64))", … of input i, for messages.
std::string InputTypeText(const KernelContext& ctx, size_t i);

// Input i as a sequence; throws kInvalidArgument "input i must be a sequence, not T" naming the
// node otherwise.
const std::shared_ptr<const TensorSequence>& SequenceInput(const KernelContext& ctx, size_t i);

// An optional position input (one int32 or int64 element); nullopt when left out. Throws
// kInvalidArgument naming the node for another type or element count.
std::optional<int64_t> PositionInput(const KernelContext& ctx, size_t i);

// Maps a position in [-n, n-1] ([-n, n] with `end_allowed`) to [0, n); throws kInvalidArgument
// naming the node, the position and the accepted range otherwise.
size_t NormalizePosition(const KernelInfo& info, int64_t position, size_t n, bool end_allowed);

// An independent copy of `t` on the heap, for a sequence or an optional to own.
std::shared_ptr<const Tensor> OwnedCopy(const Tensor& t);

// Copies `from` into `to`, of the same type and element count.
void CopyInto(const Tensor& from, Tensor& to);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_KERNELS_H_
