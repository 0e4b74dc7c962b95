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
  plan_ = std::make_unique<GraphPlan>(
      g, CpuKernels(),
      PlanOptions{.infer = true, .fold_constants = options_.optimization_level >= 1});
  check_finite_ = options_.ConfigFlag("kiln.run.check_finite", false);
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

size_t Session::OutputIndex(const std::string& name, size_t entry) const {
  for (size_t k = 0; k < outputs_.size(); ++k) {
    if (outputs_[k].name == name) return k;
  }
  ThrowInvalidArgument("output_names", "entry " + std::to_string(entry) + " '" + name +
                                           "' is not an output of the model");
}

void Session::FrameReturn::operator()(Frame* frame) const noexcept {
  frame->Clear();
  std::lock_guard<std::mutex> lock(session->pool_mu_);
  session->pool_.emplace_back(frame);  // capacity was reserved when the frame was made
}

Session::FrameLease Session::AcquireFrame(RunContext& run) const {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      FrameLease lease(pool_.back().release(), FrameReturn{this});
      pool_.pop_back();
      lease->Reset(run);
      return lease;
    }
  }
  auto frame = std::make_unique<Frame>(*plan_, nullptr, run);
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool_.reserve(frames_made_ + 1);
    ++frames_made_;
  }
  return FrameLease(frame.release(), FrameReturn{this});
}

void Session::Run(const RunOptions& run, std::span<const std::string> input_names,
                  std::span<const std::shared_ptr<Tensor>> inputs,
                  std::span<const std::string> output_names,
                  std::span<std::shared_ptr<Tensor>> results) const {
  if (results.size() != output_names.size()) {
    throw Error(ErrorCode::kEngineError, "results and output_names differ in length");
  }
  for (size_t i = 0; i < output_names.size(); ++i) OutputIndex(output_names[i], i);

  RunContext ctx{*threads_, allocator_, &run.terminate, profiler_.get(), check_finite_};
  FrameLease frame = AcquireFrame(ctx);
  for (size_t i = 0; i < input_names.size(); ++i) {
    size_t k = 0;
    while (k < inputs_.size() && inputs_[k].name != input_names[i]) ++k;
    if (k == inputs_.size()) {
      ThrowInvalidArgument("input_names", "entry " + std::to_string(i) + " '" + input_names[i] +
                                              "' is not an input of the model");
    }
    if (frame->HasInput(k)) {
      ThrowInvalidArgument("input_names", "input '" + input_names[i] + "' is given twice");
    }
    CheckInput(inputs_[k], *inputs[i]);
    frame->SetInput(k, inputs[i]);
  }
  for (size_t k = 0; k < inputs_.size(); ++k) {
    if (!frame->HasInput(k)) {
      ThrowInvalidArgument("input_names", "input '" + inputs_[k].name + "' is missing");
    }
  }
  frame->Execute();

  for (size_t i = 0; i < output_names.size(); ++i) {
    const Tensor& got = frame->Output(OutputIndex(output_names[i], i));
    const Tensor* target = results[i].get();
    if (target != nullptr && (target->type() != got.type() || target->shape() != got.shape())) {
      ThrowInvalidArgument("outputs", "output '" + output_names[i] + "' was given a " +
                                          TypeText(target->type(), target->shape()) +
                                          " tensor but the model produced " +
                                          TypeText(got.type(), got.shape()));
    }
    if (target != nullptr && target->type() == DataType::kString) {
      throw Error(ErrorCode::kNotImplemented,
                  "output '" + output_names[i] + "': string outputs cannot be written in place");
    }
  }
  // New tensors for the empty slots first (this may fail); only then touch the caller's tensors.
  std::vector<std::shared_ptr<Tensor>> made;
  for (size_t i = 0; i < output_names.size(); ++i) {
    if (results[i] != nullptr) continue;
    if (made.empty()) made.resize(output_names.size());
    made[i] = frame->TakeOutput(OutputIndex(output_names[i], i));
  }
  for (size_t i = 0; i < output_names.size(); ++i) {
    if (results[i] == nullptr) {
      results[i] = std::move(made[i]);
      continue;
    }
    const Tensor& got = frame->Output(OutputIndex(output_names[i], i));
    if (got.byte_size() != 0) std::memcpy(results[i]->data(), got.data(), got.byte_size());
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
