// SequenceMap (opset 17): runs the `body` subgraph once per element of input 0. Further inputs
// are sequences of the same length (the body sees their element at the same position) or tensors
// (the body sees the same tensor every time). Each body output, a tensor, is gathered into one
// output sequence.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/sequence/sequence_kernels.h"
#include "kernels/registry.h"

namespace kiln::cpu {
namespace {

class SequenceMap final : public Kernel {
 public:
  explicit SequenceMap(const KernelInfo& info) : body_(info.GetGraph("body")) {
    if (body_ == nullptr) info.Fail(ErrorCode::kInvalidGraph, "attribute 'body' is required");
    if (info.input_count() == 0) {
      info.Fail(ErrorCode::kInvalidGraph, "needs at least one input (the sequence)");
    }
    if (body_->inputs().size() != info.input_count()) {
      info.Fail(ErrorCode::kInvalidGraph,
                "the body takes " + std::to_string(body_->inputs().size()) +
                    " inputs, the node has " + std::to_string(info.input_count()));
    }
    if (body_->outputs().size() != info.output_count()) {
      info.Fail(ErrorCode::kInvalidGraph,
                "the body gives " + std::to_string(body_->outputs().size()) +
                    " outputs, the node has " + std::to_string(info.output_count()));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const size_t inputs = ctx.input_count();
    const size_t n = SequenceInput(ctx, 0)->tensors.size();
    std::vector<const TensorSequence*> seqs(inputs, nullptr);
    std::vector<Value> fixed(inputs);
    for (size_t i = 0; i < inputs; ++i) {
      const Value::Kind kind = InputKind(ctx, i);
      if (kind == Value::Kind::kSequence) {
        seqs[i] = ctx.InputValue(i)->sequence().get();
        if (seqs[i]->tensors.size() != n) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input " + std::to_string(i) + " is a sequence of " +
                        std::to_string(seqs[i]->tensors.size()) + " tensors, input 0 of " +
                        std::to_string(n) + ": the sequences must have one length");
        }
      } else if (kind == Value::Kind::kTensor && ctx.InputValue(i) != nullptr) {
        fixed[i] = *ctx.InputValue(i);
      } else {
        info.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) +
                                                   " must be a sequence or a tensor, not " +
                                                   InputTypeText(ctx, i));
      }
    }
    const size_t outputs = body_->outputs().size();
    std::vector<std::shared_ptr<TensorSequence>> out(outputs);
    for (size_t j = 0; j < outputs; ++j) {
      out[j] = std::make_shared<TensorSequence>();
      out[j]->elem_type = body_->outputs()[j]->type().elem;  // what an empty result holds
    }
    std::vector<Value> args(inputs);
    for (size_t k = 0; k < n; ++k) {
      for (size_t i = 0; i < inputs; ++i) {
        args[i] = seqs[i] != nullptr ? Value(seqs[i]->tensors[k]) : fixed[i];
      }
      std::vector<Value> results = ctx.subgraphs().RunSubgraph(*body_, args);
      for (size_t j = 0; j < outputs; ++j) {
        if (results[j].kind() != Value::Kind::kTensor) {
          info.Fail(ErrorCode::kInvalidArgument, "body output " + std::to_string(j) + " is a " +
                                                     results[j].TypeText() + ", not a tensor");
        }
        const std::shared_ptr<const Tensor>& t = results[j].tensor();
        if (k == 0) {
          out[j]->elem_type = t->type();
        } else if (t->type() != out[j]->elem_type) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "body output " + std::to_string(j) + " is tensor(" + DataTypeName(t->type()) +
                        ") at iteration " + std::to_string(k) + ", tensor(" +
                        DataTypeName(out[j]->elem_type) + ") before");
        }
        out[j]->tensors.push_back(t);  // the subgraph's outputs are its own, fresh tensors
      }
    }
    for (size_t j = 0; j < outputs; ++j) {
      if (ctx.WantsOutput(j)) ctx.SetOutputValue(j, Value::FromSequence(std::move(out[j])));
    }
  }

 private:
  std::shared_ptr<const ir::Graph> body_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSequenceMap(const KernelInfo& info) {
  return Make<SequenceMap>(info);
}

}  // namespace kiln::cpu
