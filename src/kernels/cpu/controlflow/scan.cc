// Scan: runs the body once per step of the scan inputs, carrying state from step to step, and
// stacks the body's per-step outputs.
//   Scan 8: inputs sequence_lens (optional; every entry must equal the sequence length, since
//     shorter sequences are not implemented), N states [B, ...] and M scan inputs [B, T, ...]
//     with `directions`; each batch entry is scanned on its own, outputs [B, ...], [B, T, ...].
//   Scan 9–23: N states and M scan inputs scanned along scan_input_axes in
//     scan_input_directions; the K scan outputs are stacked along scan_output_axes in
//     scan_output_directions (1 reverses).
// Slices are copied into tensors the body reads; the body runs through the executor's subgraph
// runner, so a run allocates.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/common.h"
#include "kernels/cpu/controlflow/scan.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

std::shared_ptr<Tensor> NewTensor(DataType type, std::vector<int64_t> dims) {
  return Tensor::Allocate(type, Shape(std::move(dims)), CpuAllocator());
}

// Copies `count` blocks of `inner` elements from src (block stride src_stride, starting at
// src_offset) to dst (stride dst_stride, starting at dst_offset), elements counted, any type.
void CopyBlocks(const KernelInfo& info, const Tensor& src, size_t src_offset, size_t src_stride,
                Tensor& dst, size_t dst_offset, size_t dst_stride, size_t count, size_t inner) {
  DispatchStorage(src.type(), info, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* s = DataAs<E>(src);
    E* d = DataAs<E>(dst);
    for (size_t b = 0; b < count; ++b) {
      std::copy_n(s + src_offset + b * src_stride, inner, d + dst_offset + b * dst_stride);
    }
  });
}

// Index `at` of `t` along `axis`, that axis removed.
std::shared_ptr<Tensor> SliceAt(const KernelInfo& info, const Tensor& t, size_t axis, size_t at) {
  const std::vector<int64_t>& dims = t.shape().dims();
  std::vector<int64_t> out = dims;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  std::shared_ptr<Tensor> s = NewTensor(t.type(), out);
  const size_t outer = Product(dims, 0, axis);
  const size_t inner = Product(dims, axis + 1, dims.size());
  const auto len = static_cast<size_t>(dims[axis]);
  CopyBlocks(info, t, at * inner, len * inner, *s, 0, inner, outer, inner);
  return s;
}

// The per-step tensors `steps` stacked along `axis` (reversed when `reverse`).
std::shared_ptr<Tensor> Stack(const KernelInfo& info,
                              const std::vector<std::shared_ptr<const Tensor>>& steps, size_t axis,
                              bool reverse, DataType type, const std::vector<int64_t>& each) {
  std::vector<int64_t> dims = each;
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), static_cast<int64_t>(steps.size()));
  std::shared_ptr<Tensor> out = NewTensor(type, dims);
  const size_t outer = Product(each, 0, axis);
  const size_t inner = Product(each, axis, each.size());
  const size_t len = steps.size();
  for (size_t t = 0; t < len; ++t) {
    const size_t pos = reverse ? len - 1 - t : t;
    CopyBlocks(info, *steps[t], 0, inner, *out, pos * inner, len * inner, outer, inner);
  }
  return out;
}

struct ScanResult {
  std::vector<Value> states;
  std::vector<std::shared_ptr<Tensor>> outputs;
};

class ScanBase : public Kernel {
 protected:
  ScanBase(const KernelInfo& info, size_t first_state) : body_(info.GetGraph("body")) {
    if (body_ == nullptr) info.Fail(ErrorCode::kInvalidGraph, "attribute 'body' is required");
    const int64_t m = info.RequireInt("num_scan_inputs");
    if (m < 1 || static_cast<size_t>(m) + first_state > info.input_count()) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'num_scan_inputs' (" + std::to_string(m) +
                                              ") does not fit the node's " +
                                              std::to_string(info.input_count()) + " inputs");
    }
    scan_inputs_ = static_cast<size_t>(m);
    states_ = info.input_count() - first_state - scan_inputs_;
    if (body_->inputs().size() != states_ + scan_inputs_) {
      info.Fail(ErrorCode::kInvalidGraph,
                "the body takes " + std::to_string(body_->inputs().size()) + " inputs, expected " +
                    std::to_string(states_ + scan_inputs_));
    }
    if (body_->outputs().size() < states_ || info.output_count() > body_->outputs().size()) {
      info.Fail(ErrorCode::kInvalidGraph,
                "the body gives " + std::to_string(body_->outputs().size()) + " outputs for " +
                    std::to_string(states_) + " states and the node's " +
                    std::to_string(info.output_count()) + " outputs");
    }
    scan_outputs_ = body_->outputs().size() - states_;
  }

  // Reads a per-input list attribute (axes or directions) of `n` entries, `fallback` when absent.
  static std::vector<int64_t> ListOf(const KernelInfo& info, const char* name, size_t n) {
    std::vector<int64_t> v = info.GetInts(name);
    if (v.empty()) return std::vector<int64_t>(n, 0);
    if (v.size() != n) {
      info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' has " +
                                              std::to_string(v.size()) + " entries, expected " +
                                              std::to_string(n));
    }
    return v;
  }

  ScanResult Run(KernelContext& ctx, std::vector<Value> states,
                 const std::vector<const Tensor*>& inputs, const std::vector<int64_t>& in_axes,
                 const std::vector<int64_t>& in_dirs, const std::vector<int64_t>& out_axes,
                 const std::vector<int64_t>& out_dirs) const {
    const KernelInfo& info = ctx.info();
    int64_t length = -1;
    std::vector<size_t> axes(inputs.size());
    for (size_t j = 0; j < inputs.size(); ++j) {
      const size_t rank = inputs[j]->shape().rank();
      if (rank == 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "scan input " + std::to_string(j) + " must have rank >= 1, not a scalar");
      }
      axes[j] = NormalizeAxis(info, in_axes[j], rank, "scan_input_axes");
      const int64_t d = inputs[j]->shape().dims()[axes[j]];
      if (length >= 0 && d != length) {
        info.Fail(ErrorCode::kInvalidArgument, "scan inputs have sequence lengths " +
                                                   std::to_string(length) + " and " +
                                                   std::to_string(d));
      }
      length = d;
    }
    const auto len = static_cast<size_t>(length);
    std::vector<std::vector<std::shared_ptr<const Tensor>>> steps(scan_outputs_);
    for (size_t t = 0; t < len; ++t) {
      std::vector<Value> body_in = states;
      for (size_t j = 0; j < inputs.size(); ++j) {
        const size_t at = in_dirs[j] != 0 ? len - 1 - t : t;
        body_in.emplace_back(std::shared_ptr<const Tensor>(SliceAt(info, *inputs[j], axes[j], at)));
      }
      std::vector<Value> outs = ctx.subgraphs().RunSubgraph(*body_, body_in);
      for (size_t i = 0; i < states_; ++i) states[i] = outs[i];
      for (size_t k = 0; k < scan_outputs_; ++k) {
        const std::shared_ptr<const Tensor>& s = outs[states_ + k].tensor();
        if (s == nullptr) {
          info.Fail(ErrorCode::kInvalidArgument, "scan output " + std::to_string(k) + " is a " +
                                                     outs[states_ + k].TypeText() +
                                                     ", not a tensor");
        }
        if (!steps[k].empty() &&
            (steps[k][0]->shape() != s->shape() || steps[k][0]->type() != s->type())) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "scan output " + std::to_string(k) + " changes shape or type between steps (" +
                        steps[k][0]->shape().ToString() + " then " + s->shape().ToString() + ")");
        }
        steps[k].push_back(s);
      }
    }
    ScanResult r{std::move(states), {}};
    for (size_t k = 0; k < scan_outputs_; ++k) {
      DataType type = body_->outputs()[states_ + k]->type().elem;
      std::vector<int64_t> each;
      if (!steps[k].empty()) {
        type = steps[k][0]->type();
        each = steps[k][0]->shape().dims();
      } else if (type == DataType::kUndefined) {
        type = DataType::kFloat;
      }
      const size_t axis = NormalizeAxis(info, out_axes[k], each.size() + 1, "scan_output_axes");
      r.outputs.push_back(Stack(info, steps[k], axis, out_dirs[k] != 0, type, each));
    }
    return r;
  }

  // Copies `t` into the node's own output i (which the executor may have planned).
  static void SetTensor(KernelContext& ctx, size_t i, const std::shared_ptr<const Tensor>& t) {
    if (!ctx.WantsOutput(i)) return;
    Tensor& out = ctx.Output(i, t->type(), t->shape());
    CopyBlocks(ctx.info(), *t, 0, 0, out, 0, 0, 1, t->element_count());
  }

  std::shared_ptr<const ir::Graph> body_;
  size_t states_ = 0;
  size_t scan_inputs_ = 0;
  size_t scan_outputs_ = 0;
};

class Scan9 final : public ScanBase {
 public:
  explicit Scan9(const KernelInfo& info)
      : ScanBase(info, 0),
        in_axes_(ListOf(info, "scan_input_axes", scan_inputs_)),
        in_dirs_(ListOf(info, "scan_input_directions", scan_inputs_)),
        out_axes_(ListOf(info, "scan_output_axes", scan_outputs_)),
        out_dirs_(ListOf(info, "scan_output_directions", scan_outputs_)) {}

  void Compute(KernelContext& ctx) const override {
    std::vector<const Tensor*> inputs;
    for (size_t j = 0; j < scan_inputs_; ++j) inputs.push_back(&ctx.Input(states_ + j));
    std::vector<Value> states;
    for (size_t i = 0; i < states_; ++i) {
      const Value* v = ctx.InputValue(i);
      if (v == nullptr || v->empty()) {
        ctx.info().Fail(ErrorCode::kInvalidArgument,
                        "state input " + std::to_string(i) + " is required");
      }
      states.push_back(*v);
    }
    ScanResult r = Run(ctx, std::move(states), inputs, in_axes_, in_dirs_, out_axes_, out_dirs_);
    for (size_t i = 0; i < states_; ++i) {
      if (r.states[i].tensor() == nullptr) {
        if (ctx.WantsOutput(i)) ctx.SetOutputValue(i, r.states[i]);
      } else {
        SetTensor(ctx, i, r.states[i].tensor());
      }
    }
    for (size_t k = 0; k < scan_outputs_ && states_ + k < ctx.output_count(); ++k) {
      SetTensor(ctx, states_ + k, r.outputs[k]);
    }
  }

 private:
  std::vector<int64_t> in_axes_;
  std::vector<int64_t> in_dirs_;
  std::vector<int64_t> out_axes_;
  std::vector<int64_t> out_dirs_;
};

class Scan8 final : public ScanBase {
 public:
  explicit Scan8(const KernelInfo& info)
      : ScanBase(info, 1), dirs_(ListOf(info, "directions", scan_inputs_)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    std::vector<const Tensor*> all;
    for (size_t i = 0; i < states_ + scan_inputs_; ++i) {
      const Tensor& t = ctx.Input(1 + i);
      if (t.shape().rank() < (i < states_ ? 1u : 2u)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input " + std::to_string(1 + i) + " needs a batch dimension" +
                      (i < states_ ? "" : " and a sequence dimension") + ", not shape " +
                      t.shape().ToString());
      }
      all.push_back(&t);
    }
    const int64_t batch = all[0]->shape().dims()[0];
    for (const Tensor* t : all) {
      if (t->shape().dims()[0] != batch) {
        info.Fail(ErrorCode::kInvalidArgument, "inputs disagree on the batch size (" +
                                                   std::to_string(batch) + " and " +
                                                   std::to_string(t->shape().dims()[0]) + ")");
      }
    }
    if (const Tensor* lens = ctx.OptionalInput(0)) {
      const int64_t steps = all[states_]->shape().dims()[1];
      for (int64_t v : ReadInts(info, *lens, "sequence_lens")) {
        if (v != steps) {
          info.Fail(ErrorCode::kNotImplemented, "input 'sequence_lens' entry " + std::to_string(v) +
                                                    " differs from the sequence length " +
                                                    std::to_string(steps));
        }
      }
    }
    const std::vector<int64_t> zeros_in(scan_inputs_, 0), zeros_out(scan_outputs_, 0);
    std::vector<std::vector<std::shared_ptr<const Tensor>>> per_batch(states_ + scan_outputs_);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> states;
      std::vector<std::shared_ptr<Tensor>> slices;
      for (size_t i = 0; i < states_ + scan_inputs_; ++i) {
        slices.push_back(SliceAt(info, *all[i], 0, static_cast<size_t>(b)));
      }
      for (size_t i = 0; i < states_; ++i) {
        states.emplace_back(std::shared_ptr<const Tensor>(slices[i]));
      }
      std::vector<const Tensor*> inputs;
      for (size_t j = 0; j < scan_inputs_; ++j) inputs.push_back(slices[states_ + j].get());
      ScanResult r = Run(ctx, std::move(states), inputs, zeros_in, dirs_, zeros_out, zeros_out);
      for (size_t i = 0; i < states_; ++i) {
        if (r.states[i].tensor() == nullptr) {
          info.Fail(ErrorCode::kInvalidArgument, "state " + std::to_string(i) + " is not a tensor");
        }
        per_batch[i].push_back(r.states[i].tensor());
      }
      for (size_t k = 0; k < scan_outputs_; ++k) per_batch[states_ + k].push_back(r.outputs[k]);
    }
    for (size_t o = 0; o < per_batch.size() && o < ctx.output_count(); ++o) {
      if (per_batch[o].empty()) {
        info.Fail(ErrorCode::kNotImplemented, "a batch of size 0 is not supported");
      }
      const Tensor& first = *per_batch[o][0];
      SetTensor(ctx, o, Stack(info, per_batch[o], 0, false, first.type(), first.shape().dims()));
    }
  }

 private:
  std::vector<int64_t> dirs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScan8(const KernelInfo& info) {
  return Make<Scan8>(info);
}
std::unique_ptr<Kernel> MakeScan9(const KernelInfo& info) {
  return Make<Scan9>(info);
}

}  // namespace kiln::cpu
