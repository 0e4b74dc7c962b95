// If (opsets 1–28) and Loop (opsets 1–28): run subgraph attributes through the executor
// (KernelContext::subgraphs). Branch outputs and loop-carried state may be tensors, sequences or
// optionals; scan outputs are tensors.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/controlflow/scan.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

void CopyInto(const Tensor& from, Tensor& to) {
  if (from.type() == DataType::kString) {
    for (size_t i = 0; i < from.element_count(); ++i) to.strings()[i] = from.strings()[i];
  } else if (from.byte_size() != 0) {
    std::memcpy(to.data(), from.data(), from.byte_size());
  }
}

std::shared_ptr<Tensor> Scalar(DataType type, const void* value, size_t bytes) {
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, Shape(), CpuAllocator());
  std::memcpy(t->data(), value, bytes);
  return t;
}

// Output i of the node: a tensor is copied into the node's own output, anything else is shared.
void SetOutput(KernelContext& ctx, size_t i, const Value& v) {
  if (!ctx.WantsOutput(i)) return;
  if (v.kind() == Value::Kind::kTensor) {
    CopyInto(*v.tensor(), ctx.Output(i, v.tensor()->type(), v.tensor()->shape()));
  } else {
    ctx.SetOutputValue(i, v);
  }
}

bool ReadBool(const KernelInfo& info, const Tensor& t, const char* what) {
  if (t.type() != DataType::kBool || t.element_count() != 1) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " must be one bool, not " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString());
  }
  return *static_cast<const uint8_t*>(t.data()) != 0;
}

class If final : public Kernel {
 public:
  explicit If(const KernelInfo& info)
      : then_(info.GetGraph("then_branch")), else_(info.GetGraph("else_branch")) {
    if (then_ == nullptr || else_ == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'then_branch' and 'else_branch' are required");
    }
    for (const auto* g : {then_.get(), else_.get()}) {
      if (g->outputs().size() != info.output_count()) {
        info.Fail(ErrorCode::kInvalidGraph, "a branch has " + std::to_string(g->outputs().size()) +
                                                " outputs, the node " +
                                                std::to_string(info.output_count()));
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const bool cond = ReadBool(ctx.info(), ctx.Input(0), "input 'cond'");
    std::vector<Value> outs = ctx.subgraphs().RunSubgraph(cond ? *then_ : *else_, {});
    for (size_t i = 0; i < outs.size(); ++i) SetOutput(ctx, i, outs[i]);
  }

 private:
  std::shared_ptr<const ir::Graph> then_;
  std::shared_ptr<const ir::Graph> else_;
};

class Loop final : public Kernel {
 public:
  explicit Loop(const KernelInfo& info) : body_(info.GetGraph("body")) {
    if (body_ == nullptr) info.Fail(ErrorCode::kInvalidGraph, "attribute 'body' is required");
    if (info.input_count() < 2) {
      info.Fail(ErrorCode::kInvalidGraph, "Loop needs inputs M and cond (either may be empty)");
    }
    carried_ = info.input_count() - 2;
    if (body_->inputs().size() != carried_ + 2) {
      info.Fail(ErrorCode::kInvalidGraph,
                "the body takes " + std::to_string(body_->inputs().size()) + " inputs, expected " +
                    std::to_string(carried_ + 2) + " (iteration, cond, loop-carried values)");
    }
    if (body_->outputs().size() < carried_ + 1) {
      info.Fail(ErrorCode::kInvalidGraph, "the body gives " +
                                              std::to_string(body_->outputs().size()) +
                                              " outputs, fewer than cond + loop-carried values");
    }
    scans_ = body_->outputs().size() - 1 - carried_;
    if (info.output_count() > carried_ + scans_) {
      info.Fail(ErrorCode::kInvalidGraph, "the node has more outputs than the body gives");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    int64_t max_trips = INT64_MAX;
    if (const Tensor* m = ctx.OptionalInput(0)) {
      if (m->type() != DataType::kInt64 || m->element_count() != 1) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'M' must be one int64");
      }
      max_trips = *static_cast<const int64_t*>(m->data());
    }
    bool cond = true;
    if (const Tensor* c = ctx.OptionalInput(1)) cond = ReadBool(info, *c, "input 'cond'");
    std::vector<Value> state;
    for (size_t i = 0; i < carried_; ++i) {
      const Value* v = ctx.InputValue(2 + i);
      if (v == nullptr || v->empty()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "loop-carried input " + std::to_string(i) + " is required");
      }
      state.push_back(*v);  // shared for the length of this step, while the input lives
    }
    std::vector<std::vector<std::shared_ptr<const Tensor>>> scanned(scans_);
    for (int64_t trip = 0; trip < max_trips && cond; ++trip) {
      std::vector<Value> inputs;
      inputs.emplace_back(Scalar(DataType::kInt64, &trip, sizeof trip));
      const uint8_t c = 1;
      inputs.emplace_back(Scalar(DataType::kBool, &c, 1));
      inputs.insert(inputs.end(), state.begin(), state.end());
      std::vector<Value> outs = ctx.subgraphs().RunSubgraph(*body_, inputs);
      if (outs[0].tensor() == nullptr) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "the body's cond output is a " + outs[0].TypeText() + ", not a tensor");
      }
      cond = ReadBool(info, *outs[0].tensor(), "the body's cond output");
      for (size_t i = 0; i < carried_; ++i) state[i] = outs[1 + i];
      for (size_t i = 0; i < scans_; ++i) {
        if (outs[1 + carried_ + i].kind() != Value::Kind::kTensor) {
          info.Fail(ErrorCode::kInvalidArgument, "scan output " + std::to_string(i) + " is a " +
                                                     outs[1 + carried_ + i].TypeText() +
                                                     ", not a tensor");
        }
        const std::shared_ptr<const Tensor>& s = outs[1 + carried_ + i].tensor();
        if (!scanned[i].empty() &&
            (scanned[i][0]->shape() != s->shape() || scanned[i][0]->type() != s->type())) {
          info.Fail(ErrorCode::kInvalidArgument, "scan output " + std::to_string(i) +
                                                     " changes shape or type between "
                                                     "iterations (" +
                                                     scanned[i][0]->shape().ToString() + " then " +
                                                     s->shape().ToString() + ")");
        }
        scanned[i].push_back(s);
      }
    }
    for (size_t i = 0; i < carried_; ++i) SetOutput(ctx, i, state[i]);
    for (size_t i = 0; i < scans_; ++i) {
      const size_t o = carried_ + i;
      if (!ctx.WantsOutput(o)) continue;
      std::vector<int64_t> dims{static_cast<int64_t>(scanned[i].size())};
      // With no iteration the element type is the body's declared one (float when undeclared).
      DataType type = body_->outputs()[1 + o]->type().elem;
      if (!scanned[i].empty()) {
        const Shape& each = scanned[i][0]->shape();
        dims.insert(dims.end(), each.dims().begin(), each.dims().end());
        type = scanned[i][0]->type();
      } else if (type == DataType::kUndefined) {
        type = DataType::kFloat;
      }
      Tensor& out = ctx.Output(o, type, Shape(dims));
      size_t offset = 0;
      for (const auto& s : scanned[i]) {
        if (type == DataType::kString) {
          for (size_t k = 0; k < s->element_count(); ++k)
            out.strings()[offset + k] = s->strings()[k];
          offset += s->element_count();
        } else {
          std::memcpy(static_cast<char*>(out.data()) + offset, s->data(), s->byte_size());
          offset += s->byte_size();
        }
      }
    }
  }

 private:
  std::shared_ptr<const ir::Graph> body_;
  size_t carried_ = 0;
  size_t scans_ = 0;
};

constexpr KernelDef kDefs[] = {
    {"", "If", 1, kLatestOpset, Make<If>},
    {"", "Loop", 1, kLatestOpset, Make<Loop>},
    {"", "Scan", 8, 8, MakeScan8},
    {"", "Scan", 9, kLatestOpset, MakeScan9},
};

}  // namespace

std::span<const KernelDef> ControlFlowKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
