#include "runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "kernels/registry.h"

namespace kiln::runtime {
namespace {

std::string TypeText(DataType t, const Shape& s) {
  return std::string(DataTypeName(t)) + " " + s.ToString();
}

}  // namespace

Session::Session(ir::Model model, SessionOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  if (options_.optimization_level < 0 || options_.optimization_level > 3) {
    ThrowInvalidArgument("options", "graph optimization level " +
                                        std::to_string(options_.optimization_level) +
                                        " is not 0 to 3");
  }
  ir::Graph& g = *model_.graph;
  // Free-dimension overrides fix named dimensions of the inputs before anything reads them.
  for (ir::Value* v : g.inputs()) {
    if (!v->type().shape) continue;
    std::vector<int64_t> dims = v->type().shape->dims();
    std::vector<std::string> symbols = v->type().shape->symbols();
    for (size_t d = 0; d < dims.size(); ++d) {
      auto it = options_.free_dimension_overrides.find(symbols[d]);
      if (!symbols[d].empty() && it != options_.free_dimension_overrides.end()) {
        dims[d] = it->second;
        symbols[d].clear();
      }
    }
    v->type().shape = Shape(std::move(dims), std::move(symbols));
  }
  for (const ir::Value* v : g.inputs()) inputs_.push_back({v->name(), v->type()});
  for (const ir::Value* v : g.outputs()) outputs_.push_back({v->name(), v->type()});
  plan_ = std::make_unique<GraphPlan>(g, CpuKernels());
  int threads = options_.intra_op_threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads_ = std::make_unique<ThreadPool>(threads);
  if (options_.ConfigFlag("kiln.arena.enable", true)) {
    allocator_ = std::make_shared<CachingAllocator>();
  } else {
    allocator_ = CpuAllocator();
  }
  if (!options_.profile_prefix.empty()) profiler_ = std::make_unique<Profiler>();
}

Session::~Session() = default;

void Session::CheckInput(const IoDesc& desc, const Tensor& t) const {
  const std::string what = "input '" + desc.name + "'";
  if (desc.type.kind != ir::ValueKind::kTensor && desc.type.kind != ir::ValueKind::kUnknown) {
    throw Error(ErrorCode::kNotImplemented,
                what + " is not a tensor; only tensor inputs are supported");
  }
  if (desc.type.elem != DataType::kUndefined && desc.type.elem != t.type()) {
    ThrowInvalidArgument("inputs", what + " must be " + DataTypeName(desc.type.elem) + ", not " +
                                       DataTypeName(t.type()));
  }
  if (!desc.type.shape) return;
  const Shape& want = *desc.type.shape;
  if (want.rank() != t.shape().rank()) {
    ThrowInvalidArgument("inputs", what + " must have rank " + std::to_string(want.rank()) + " " +
                                       want.ToString() + ", not " + t.shape().ToString());
  }
  for (size_t d = 0; d < want.rank(); ++d) {
    if (want.dims()[d] >= 0 && want.dims()[d] != t.shape().dims()[d]) {
      ThrowInvalidArgument("inputs", what + " dimension " + std::to_string(d) + " must be " +
                                         std::to_string(want.dims()[d]) + ", not " +
                                         std::to_string(t.shape().dims()[d]));
    }
  }
}

std::vector<std::shared_ptr<Tensor>> Session::Compute(
    const RunOptions& run, std::span<const std::string> input_names,
    std::span<const std::shared_ptr<Tensor>> inputs, std::span<const std::string> output_names,
    std::span<const std::shared_ptr<Tensor>> given) const {
  const std::vector<ir::Value*>& graph_inputs = model_.graph->inputs();
  std::vector<std::shared_ptr<const Tensor>> fed(graph_inputs.size());
  for (size_t i = 0; i < input_names.size(); ++i) {
    size_t k = 0;
    while (k < inputs_.size() && inputs_[k].name != input_names[i]) ++k;
    if (k == inputs_.size()) {
      ThrowInvalidArgument("input_names", "entry " + std::to_string(i) + " '" + input_names[i] +
                                              "' is not an input of the model");
    }
    if (fed[k] != nullptr) {
      ThrowInvalidArgument("input_names", "input '" + input_names[i] + "' is given twice");
    }
    CheckInput(inputs_[k], *inputs[i]);
    fed[k] = inputs[i];
  }
  for (size_t k = 0; k < fed.size(); ++k) {
    if (fed[k] == nullptr) {
      ThrowInvalidArgument("input_names", "input '" + inputs_[k].name + "' is missing");
    }
  }
  std::vector<size_t> out_index(output_names.size());
  for (size_t i = 0; i < output_names.size(); ++i) {
    size_t k = 0;
    while (k < outputs_.size() && outputs_[k].name != output_names[i]) ++k;
    if (k == outputs_.size()) {
      ThrowInvalidArgument("output_names", "entry " + std::to_string(i) + " '" + output_names[i] +
                                               "' is not an output of the model");
    }
    out_index[i] = k;
  }
  if (given.size() != output_names.size()) {
    throw Error(ErrorCode::kEngineError, "given outputs and output_names differ in length");
  }

  RunContext ctx{*threads_, allocator_, &run.terminate, profiler_.get(),
                 options_.ConfigFlag("kiln.run.check_finite", false)};
  Frame frame(*plan_, nullptr, ctx);
  for (size_t k = 0; k < fed.size(); ++k) frame.SetInput(k, fed[k]);
  frame.Execute();

  std::vector<std::shared_ptr<Tensor>> produced(output_names.size());
  for (size_t i = 0; i < output_names.size(); ++i) {
    produced[i] = frame.TakeOutput(out_index[i]);
    const Tensor* target = given[i].get();
    if (target != nullptr &&
        (target->type() != produced[i]->type() || target->shape() != produced[i]->shape())) {
      ThrowInvalidArgument("outputs", "output '" + output_names[i] + "' was given a " +
                                          TypeText(target->type(), target->shape()) +
                                          " tensor but the model produced " +
                                          TypeText(produced[i]->type(), produced[i]->shape()));
    }
    if (target != nullptr && target->type() == DataType::kString) {
      throw Error(ErrorCode::kNotImplemented,
                  "output '" + output_names[i] + "': string outputs cannot be written in place");
    }
  }
  return produced;
}

void Session::WriteInPlace(std::span<const std::shared_ptr<Tensor>> given,
                           std::span<const std::shared_ptr<Tensor>> produced) noexcept {
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] != nullptr && produced[i]->byte_size() != 0) {
      std::memcpy(given[i]->data(), produced[i]->data(), produced[i]->byte_size());
    }
  }
}

void Session::Run(const RunOptions& run, std::span<const std::string> input_names,
                  std::span<const std::shared_ptr<Tensor>> inputs,
                  std::span<const std::string> output_names,
                  std::vector<std::shared_ptr<Tensor>>& results) const {
  std::vector<std::shared_ptr<Tensor>> produced =
      Compute(run, input_names, inputs, output_names, results);
  // Everything succeeded: only now touch the caller's tensors.
  WriteInPlace(results, produced);
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i] == nullptr) results[i] = std::move(produced[i]);
  }
}

std::string Session::EndProfiling() {
  if (profiler_ == nullptr) ThrowInvalidArgument("session", "profiling is not enabled");
  static std::atomic<int> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::string path =
      options_.profile_prefix + "_" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "_" +
      std::to_string(counter.fetch_add(1)) + ".json";
  profiler_->WriteJson(path);
  return path;
}

}  // namespace kiln::runtime
