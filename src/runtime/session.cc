#include "runtime/session.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <new>
#include <optional>
#include <thread>

#include "core/error.h"
#include "kernels/registry.h"
#include "onnx/writer.h"
#include "optimizer/gradient.h"
#include "optimizer/nchwc_legalization.h"
#include "optimizer/optimizer.h"

namespace kiln::runtime {
namespace {

std::string TypeText(DataType t, const Shape& s) {
  return std::string(DataTypeName(t)) + " " + s.ToString();
}

// Writes the optimized model (SessionOptions::optimized_model_path). A node the optimizer added
// at another opset than the model imports is written at the model's version where the registry
// runs both versions with the same kernel. Errors keep their code and name the path.
void WriteOptimizedModel(const ir::Model& model, const std::string& path) {
  onnx::WriteOptions w;
  w.compatible = [](const std::string& domain, const std::string& op, int64_t from, int64_t to) {
    const KernelDef* def = CpuKernels().Find(domain, op, from);
    return def != nullptr && def == CpuKernels().Find(domain, op, to);
  };
  try {
    onnx::WriteModelFile(model, path, w);
  } catch (const Error& e) {
    throw Error(e.code(), "writing the optimized model to '" + path + "': " + e.what());
  }
}

}  // namespace

Session::Session(ir::Model model, SessionOptions options, std::shared_ptr<const Logger> logger)
    : model_(std::move(model)), options_(std::move(options)), logger_(std::move(logger)) {
  if (options_.optimization_level < 0 || options_.optimization_level > 3) {
    ThrowInvalidArgument("options", "graph optimization level " +
                                        std::to_string(options_.optimization_level) +
                                        " is not 0 to 3");
  }
  if (options_.ConfigFlag("kiln.graph.keep_loaded", false)) {
    loaded_ = std::make_unique<const ir::Model>(ir::CloneModel(model_));
  }
  ir::Graph& g = *model_.graph;
  UseGivenInitializers(g);
  ApplyFreeDimensionOverrides(g);
  for (const ir::Value* v : g.inputs()) {
    (v->default_value() != nullptr ? overridable_ : inputs_).push_back({v->name(), v->type()});
  }
  size_t required = 0;
  size_t defaulted = 0;
  for (const ir::Value* v : g.inputs()) {
    if (v->default_value() != nullptr) {
      graph_inputs_.push_back({&overridable_[defaulted++], Value(v->default_value())});
    } else {
      graph_inputs_.push_back({&inputs_[required++], Value()});
    }
  }
  for (const ir::Value* v : g.outputs()) outputs_.push_back({v->name(), v->type()});
  // Gradient nodes have no kernel: they become ordinary nodes first, whatever the level.
  optimizer::ExpandGradients(g);
  custom_ = std::make_unique<CustomKernels>(options_.custom_ops);
  const KernelRegistry& kernels = custom_->registry();
  // Nodes an overriding custom op implements sit in a domain no pass matches while the graph is
  // optimized and planned, and go back to their own before anything reads the graph again.
  struct Restore {
    ir::Graph& g;
    const CustomOps& ops;
    ~Restore() {
      try {
        ClaimOverriddenNodes(g, ops, true);
      } catch (...) {  // (only when a domain's name cannot be copied; the graph is dropped then)
      }
    }
  } restore{g, options_.custom_ops};
  ClaimOverriddenNodes(g, options_.custom_ops, false);
  // ONNX Runtime's NCHWc layout (com.microsoft.nchwc) has no kernels: its nodes become standard
  // ones first, whatever the level.
  int64_t onnx_opset = 0;
  for (const char* domain : {"", "ai.onnx"}) {
    auto it = model_.opsets.find(domain);
    if (it != model_.opsets.end()) onnx_opset = std::max(onnx_opset, it->second);
  }
  optimizer::LegalizeNchwc(g, kernels, {.onnx_opset = onnx_opset});
  optimizer::Optimize(g, options_.optimization_level, kernels);
  if (options_.ConfigFlag("kiln.compute.bf16", false)) optimizer::UseBf16Products(g);
  const size_t memory_limit = MemoryLimitOf(options_.config);
  plan_ = std::make_unique<GraphPlan>(
      g, kernels, PlanOptions{.infer = true, .fold_constants = options_.optimization_level >= 1});
  ClaimOverriddenNodes(g, options_.custom_ops, true);
  // Every run in order places the plan's arena first (the parallel mode places nothing).
  if (memory_limit != 0 && !options_.parallel && plan_->arena_bytes() > memory_limit) {
    throw Error(ErrorCode::kOutOfMemory,
                "the model's activations, planned from its declared shapes, need " +
                    std::to_string(plan_->arena_bytes()) +
                    " bytes per run, more than the memory limit " + kMemoryLimitKey + "=" +
                    std::to_string(memory_limit));
  }
  if (!options_.optimized_model_path.empty()) {
    WriteOptimizedModel(model_, options_.optimized_model_path);
  }
  check_finite_ = options_.ConfigFlag("kiln.run.check_finite", false);
  int threads = options_.intra_op_threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads_ = std::make_unique<ThreadPool>(threads, &PrepareCpuKernelThread);
  if (options_.parallel) {
    int inter = options_.inter_op_threads;
    if (inter <= 0) inter = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (inter > 1) inter_op_ = std::make_unique<ThreadPool>(inter, &PrepareCpuKernelThread);
  }
  if (memory_limit != 0) {
    budget_ = std::make_shared<MemoryBudget>(memory_limit);
    auto caching =
        std::make_shared<CachingAllocator>(budget_, options_.ConfigFlag("kiln.arena.enable", true));
    caching_ = caching.get();
    allocator_ = std::move(caching);
    budget_->SetReclaim([this] { ReleaseIdleMemory(); });
  } else if (options_.ConfigFlag("kiln.arena.enable", true)) {
    auto caching = std::make_shared<CachingAllocator>();
    caching_ = caching.get();
    allocator_ = std::move(caching);
  } else {
    allocator_ = CpuAllocator();
  }
  if (!options_.profile_prefix.empty()) profiler_ = std::make_unique<Profiler>();
}

Session::~Session() {
  // The budget may outlive the session (outputs keep the allocator that counts against it).
  if (budget_ != nullptr) budget_->SetReclaim(nullptr);
}

void Session::ReleaseIdleMemory() const noexcept {
  std::vector<std::unique_ptr<Frame>> idle;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    idle.swap(pool_);
    // (FrameReturn relies on the capacity reserved for every frame made.)
    try {
      pool_.reserve(frames_made_);
    } catch (const std::bad_alloc&) {
      idle.swap(pool_);  // nothing freed: the pool keeps its frames and capacity
      return;
    }
  }
  idle.clear();  // their arenas go back to the allocator, which keeps them ...
  if (caching_ != nullptr) caching_->Trim();  // ... until now
}

void Session::UseGivenInitializers(ir::Graph& g) const {
  for (const auto& [name, given] : options_.initializers) {
    ir::Value* v = g.FindValue(name);
    const bool is_initializer =
        v != nullptr && (v->initializer() != nullptr || v->default_value() != nullptr);
    if (!is_initializer) {
      ThrowInvalidArgument("options", "initializer '" + name +
                                          "' (SessionOptionsAddInitializer) is not an initializer "
                                          "of the model's main graph");
    }
    const Tensor& model = v->initializer() != nullptr ? *v->initializer() : *v->default_value();
    if (model.type() != given->type() || model.shape().dims() != given->shape().dims()) {
      ThrowInvalidArgument("options",
                           "initializer '" + name + "' (SessionOptionsAddInitializer) is " +
                               TypeText(given->type(), given->shape()) + " but the model's is " +
                               TypeText(model.type(), model.shape()));
    }
  }
  // Only once every one is checked: a failure leaves the graph as it was.
  for (const auto& [name, given] : options_.initializers) {
    ir::Value* v = g.FindValue(name);
    if (v->initializer() != nullptr) {
      v->set_initializer(given);
    } else {
      v->set_default_value(given);
    }
  }
}

void Session::ApplyFreeDimensionOverrides(ir::Graph& g) const {
  // Only the inputs a run must feed: an overridable initializer keeps the shape of its default
  // (as in ONNX Runtime, which applies overrides to the graph's inputs, initializers excluded).
  const auto& by_name = options_.free_dimension_overrides;
  const auto& by_denotation = options_.free_dimension_overrides_by_denotation;
  for (ir::Value* v : g.inputs()) {
    if (!v->type().shape || v->default_value() != nullptr) continue;
    std::vector<int64_t> dims = v->type().shape->dims();
    std::vector<std::string> symbols = v->type().shape->symbols();
    const std::vector<std::string>& denotations = v->type().dim_denotations;
    for (size_t d = 0; d < dims.size(); ++d) {
      std::optional<int64_t> fixed;
      if (!symbols[d].empty()) {
        auto it = by_name.find(symbols[d]);
        if (it != by_name.end()) fixed = it->second;
      }
      if (d < denotations.size() && !denotations[d].empty() && !by_denotation.empty()) {
        std::string key = denotations[d];
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto it = by_denotation.find(key);
        if (it != by_denotation.end()) {
          const int64_t have = fixed ? *fixed : dims[d];
          if (have >= 0 && have != it->second) {
            ThrowInvalidArgument("options",
                                 "input '" + v->name() + "' dimension " + std::to_string(d) +
                                     " has denotation '" + denotations[d] + "', overridden to " +
                                     std::to_string(it->second) + ", but its size is " +
                                     std::to_string(have) +
                                     (fixed ? " by its dim_param override" : " in the model"));
          }
          fixed = it->second;
        }
      }
      if (fixed) {
        dims[d] = *fixed;
        symbols[d].clear();
      }
    }
    v->type().shape = Shape(std::move(dims), std::move(symbols));
  }
}

uint64_t Session::profiling_start_ns() const noexcept {
  return profiler_ != nullptr ? profiler_->start_ns() : 0;
}

namespace {

// A bool tensor holds one byte per element, 0 or 1 (the kernels read them as C++ bool, for which
// any other byte is undefined behaviour): a caller's tensor with another byte is refused, naming
// the element.
template <typename What>
void CheckBools(const Tensor& t, const What& what) {
  if (t.type() != DataType::kBool) return;
  const auto* bytes = static_cast<const uint8_t*>(t.data());
  const size_t n = t.element_count();
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= bytes[i];
  if (any <= 1) return;
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] > 1) {
      ThrowInvalidArgument("inputs", what() + ": bool element " + std::to_string(i) + " is " +
                                         std::to_string(bytes[i]) + "; a bool is 0 or 1");
    }
  }
}

}  // namespace

void Session::CheckInput(const IoDesc& desc, const Value& v) const {
  // Built only for a message: a run checks every input.
  auto what = [&] { return "input '" + desc.name + "'"; };
  switch (desc.type.kind) {
    case ir::ValueKind::kTensor:
    case ir::ValueKind::kUnknown:
      if (v.kind() != Value::Kind::kTensor) {
        ThrowInvalidArgument("inputs", what() + " must be a tensor, not a " + v.TypeText());
      }
      break;
    case ir::ValueKind::kSequence:
    case ir::ValueKind::kOptional: {
      // Sequence and optional types carry the element type of their tensors (ir::TypeInfo).
      const bool sequence = desc.type.kind == ir::ValueKind::kSequence;
      if (v.kind() != (sequence ? Value::Kind::kSequence : Value::Kind::kOptional)) {
        ThrowInvalidArgument("inputs", what() + " must be " +
                                           (sequence ? "a sequence" : "an optional") + ", not a " +
                                           v.TypeText());
      }
      const ir::TypeInfo* inner = desc.type.contained.get();
      if (!sequence && inner != nullptr &&
          (inner->kind == ir::ValueKind::kSequence) !=
              (v.contained_kind() == Value::Kind::kSequence)) {
        ThrowInvalidArgument("inputs",
                             what() + " must be an optional of a " +
                                 (inner->kind == ir::ValueKind::kSequence ? "sequence" : "tensor") +
                                 ", not a " + v.TypeText());
      }
      if (desc.type.elem != DataType::kUndefined && v.elem_type() != DataType::kUndefined &&
          v.elem_type() != desc.type.elem) {
        ThrowInvalidArgument("inputs", what() + " must hold " + DataTypeName(desc.type.elem) +
                                           " tensors, not a " + v.TypeText());
      }
      if (v.tensor() != nullptr) CheckBools(*v.tensor(), what);
      if (v.sequence() != nullptr) {
        for (size_t i = 0; i < v.sequence()->tensors.size(); ++i) {
          CheckBools(*v.sequence()->tensors[i],
                     [&] { return what() + " tensor " + std::to_string(i); });
        }
      }
      return;
    }
    case ir::ValueKind::kMap:
      throw Error(ErrorCode::kNotImplemented, what() + " is a map; maps are not supported");
    case ir::ValueKind::kSparseTensor:
      throw Error(ErrorCode::kNotImplemented,
                  what() + " is a sparse tensor; sparse tensors are not supported");
  }
  const Tensor& t = *v.tensor();
  if (desc.type.elem != DataType::kUndefined && desc.type.elem != t.type()) {
    ThrowInvalidArgument("inputs", what() + " must be " + DataTypeName(desc.type.elem) + ", not " +
                                       DataTypeName(t.type()));
  }
  CheckBools(t, what);
  if (!desc.type.shape) return;
  const Shape& want = *desc.type.shape;
  if (want.rank() != t.shape().rank()) {
    ThrowInvalidArgument("inputs", what() + " must have rank " + std::to_string(want.rank()) + " " +
                                       want.ToString() + ", not " + t.shape().ToString());
  }
  for (size_t d = 0; d < want.rank(); ++d) {
    if (want.dims()[d] >= 0 && want.dims()[d] != t.shape().dims()[d]) {
      ThrowInvalidArgument("inputs", what() + " dimension " + std::to_string(d) + " must be " +
                                         std::to_string(want.dims()[d]) + ", not " +
                                         std::to_string(t.shape().dims()[d]));
    }
  }
}

void Session::CheckNamedDims(const IoDesc& desc, const Value& v,
                             std::vector<NamedDim>& seen) const {
  if (!desc.type.shape || v.kind() != Value::Kind::kTensor) return;
  const Shape& want = *desc.type.shape;
  const std::vector<int64_t>& got = v.tensor()->shape().dims();
  for (size_t d = 0; d < want.rank() && d < want.symbols().size(); ++d) {
    const std::string& symbol = want.symbols()[d];
    if (want.dims()[d] >= 0 || symbol.empty()) continue;
    auto same = [&](const NamedDim& n) { return *n.symbol == symbol; };
    auto it = std::find_if(seen.begin(), seen.end(), same);
    if (it == seen.end()) {
      seen.push_back({&symbol, got[d], &desc.name, d});
    } else if (it->size != got[d]) {
      ThrowInvalidArgument("inputs", "input '" + desc.name + "' dimension " + std::to_string(d) +
                                         " ('" + symbol + "') is " + std::to_string(got[d]) +
                                         ", but input '" + *it->input + "' dimension " +
                                         std::to_string(it->dim) + " has " +
                                         std::to_string(it->size) + " for it");
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

bool Session::HasLayoutKey(const Frame& frame) const {
  for (size_t k = 0; k < graph_inputs_.size(); ++k) {
    if (frame.Input(k).kind() != Value::Kind::kTensor) return false;
  }
  return true;
}

bool Session::KeyMatches(const std::vector<int64_t>& key, const Frame& frame) const {
  size_t at = 0;
  for (size_t k = 0; k < graph_inputs_.size(); ++k) {
    const Tensor& t = *frame.Input(k).tensor();
    const std::vector<int64_t>& dims = t.shape().dims();
    if (key.size() < at + 2 + dims.size() || key[at] != static_cast<int64_t>(t.type()) ||
        key[at + 1] != static_cast<int64_t>(dims.size()) ||
        !std::equal(dims.begin(), dims.end(), key.begin() + static_cast<ptrdiff_t>(at + 2))) {
      return false;
    }
    at += 2 + dims.size();
  }
  return at == key.size();
}

std::vector<int64_t> Session::LayoutKey(const Frame& frame) const {
  std::vector<int64_t> key;
  for (size_t k = 0; k < graph_inputs_.size(); ++k) {
    const Tensor& t = *frame.Input(k).tensor();
    key.push_back(static_cast<int64_t>(t.type()));
    key.push_back(static_cast<int64_t>(t.shape().rank()));
    key.insert(key.end(), t.shape().dims().begin(), t.shape().dims().end());
  }
  return key;
}

size_t Session::shape_layout_count() const {
  std::lock_guard<std::mutex> lock(layouts_mu_);
  return layouts_.size();
}

std::shared_ptr<const ArenaLayout> Session::FindLayout(const Frame& frame) const {
  std::lock_guard<std::mutex> lock(layouts_mu_);
  for (size_t i = 0; i < layouts_.size(); ++i) {
    if (!KeyMatches(layouts_[i].key, frame)) continue;
    std::rotate(layouts_.begin(), layouts_.begin() + static_cast<ptrdiff_t>(i),
                layouts_.begin() + static_cast<ptrdiff_t>(i) + 1);
    return layouts_.front().layout;
  }
  return nullptr;
}

void Session::AddLayout(const Frame& frame, std::shared_ptr<const ArenaLayout> layout) const {
  ShapeLayout entry{LayoutKey(frame), std::move(layout)};
  std::lock_guard<std::mutex> lock(layouts_mu_);
  for (const ShapeLayout& l : layouts_) {
    if (l.key == entry.key) return;  // a concurrent run with these shapes made one first
  }
  if (layouts_.size() == kMaxLayouts) layouts_.pop_back();
  layouts_.insert(layouts_.begin(), std::move(entry));
}

void Session::Run(const RunOptions& run, std::span<const std::string> input_names,
                  std::span<const Value> inputs, std::span<const std::string> output_names,
                  std::span<std::shared_ptr<Tensor>> results, std::span<Value> others) const {
  if (results.size() != output_names.size() || others.size() != output_names.size() ||
      inputs.size() != input_names.size()) {
    throw Error(ErrorCode::kEngineError, "Session::Run: lists of different lengths");
  }
  for (size_t i = 0; i < output_names.size(); ++i) OutputIndex(output_names[i], i);

  // Declared before the frame, so it runs once the frame is back in the pool (its buffers
  // freed): the run gives the caching allocator's kept blocks back (RunOptions::shrink_arena).
  struct ShrinkOnExit {
    CachingAllocator* caching;
    ~ShrinkOnExit() {
      if (caching != nullptr) caching->Trim();
    }
  } shrink_on_exit{run.shrink_arena ? caching_ : nullptr};
  const bool check_finite = run.check_finite < 0 ? check_finite_ : run.check_finite == 1;
  RunContext ctx{*threads_,    allocator_,      &run.terminate, profiler_.get(),
                 check_finite, inter_op_.get(), logger_.get(),  budget_};
  FrameLease frame = AcquireFrame(ctx);
  std::vector<NamedDim> named;
  for (size_t i = 0; i < input_names.size(); ++i) {
    size_t k = 0;
    while (k < graph_inputs_.size() && graph_inputs_[k].desc->name != input_names[i]) ++k;
    if (k == graph_inputs_.size()) {
      ThrowInvalidArgument("input_names",
                           "entry " + std::to_string(i) + " '" + input_names[i] +
                               "' is not an input of the model" +
                               (overridable_.empty() ? "" : " nor an overridable initializer"));
    }
    if (frame->HasInput(k)) {
      ThrowInvalidArgument("input_names", "input '" + input_names[i] + "' is given twice");
    }
    CheckInput(*graph_inputs_[k].desc, inputs[i]);
    CheckNamedDims(*graph_inputs_[k].desc, inputs[i], named);
    frame->SetInput(k, inputs[i]);
  }
  for (size_t k = 0; k < graph_inputs_.size(); ++k) {
    if (frame->HasInput(k)) continue;
    const GraphInput& in = graph_inputs_[k];
    if (in.default_value.empty()) {
      ThrowInvalidArgument("input_names", "input '" + in.desc->name + "' is missing");
    }
    // Not fed: the model's value, which must agree with the dimensions the fed inputs named.
    CheckNamedDims(*in.desc, in.default_value, named);
    frame->SetInput(k, in.default_value);
  }
  bool record = false;
  // (The parallel mode places nothing in the arena: see RunContext::inter_op.)
  if (plan_->has_unplanned_outputs() && inter_op_ == nullptr) {
    // The layout made for these input shapes; none yet: the plan's own, and this run makes one.
    // Inputs that are not all tensors have no key and run on the plan's own.
    const bool keyed = HasLayoutKey(*frame);
    std::shared_ptr<const ArenaLayout> layout = keyed ? FindLayout(*frame) : nullptr;
    record = keyed && layout == nullptr;
    if (layout == nullptr) layout = plan_->arena();
    frame->UseLayout(std::move(layout));
    if (record) frame->RecordShapes();
  }
  // Outputs the caller gave no tensor for are made outside the arena and handed over, not copied.
  // (Those it gave one for are written only once the run has succeeded, from the arena.)
  for (size_t i = 0; i < output_names.size(); ++i) {
    if (results[i] == nullptr) frame->HandOver(OutputIndex(output_names[i], i));
  }
  frame->Execute();
  if (record) {
    // Only a speed-up for later runs: this run has its results, so no memory for the layout
    // just means the next run with these shapes records again.
    try {
      AddLayout(*frame, plan_->LayoutFor(frame->ProducedShapes()));
      // The buffers this run took from the allocator are the arena's now: give back those kept.
      if (caching_ != nullptr) caching_->Trim();
    } catch (const std::bad_alloc&) {
    }
  }

  for (size_t i = 0; i < output_names.size(); ++i) {
    const Value& got = frame->Output(OutputIndex(output_names[i], i));
    const Tensor* target = results[i].get();
    if (target == nullptr) continue;
    if (got.kind() != Value::Kind::kTensor) {
      ThrowInvalidArgument("outputs", "output '" + output_names[i] + "' is a " + got.TypeText() +
                                          " and cannot be written into a tensor");
    }
    const Tensor& t = *got.tensor();
    if (target->type() != t.type() || target->shape() != t.shape()) {
      ThrowInvalidArgument("outputs", "output '" + output_names[i] + "' was given a " +
                                          TypeText(target->type(), target->shape()) +
                                          " tensor but the model produced " +
                                          TypeText(t.type(), t.shape()));
    }
    if (target->type() == DataType::kString) {
      throw Error(ErrorCode::kNotImplemented,
                  "output '" + output_names[i] + "': string outputs cannot be written in place");
    }
  }
  // New tensors for the empty slots first (this may fail); only then touch the caller's tensors.
  std::vector<std::shared_ptr<Tensor>> made;
  for (size_t i = 0; i < output_names.size(); ++i) {
    const size_t k = OutputIndex(output_names[i], i);
    if (results[i] != nullptr || frame->Output(k).kind() != Value::Kind::kTensor) continue;
    if (made.empty()) made.resize(output_names.size());
    made[i] = frame->TakeTensorOutput(k);
  }
  // The caller's now: out of the memory limit's count (see memory_budget()).
  if (budget_ != nullptr) {
    for (const auto& t : made) {
      if (t != nullptr && t->byte_size() != 0) caching_->Disown(t->data());
    }
  }
  for (size_t i = 0; i < output_names.size(); ++i) {
    const Value& got = frame->Output(OutputIndex(output_names[i], i));
    if (got.kind() != Value::Kind::kTensor) {
      others[i] = got;
    } else if (results[i] == nullptr) {
      results[i] = std::move(made[i]);
    } else if (got.tensor()->byte_size() != 0) {
      std::memcpy(results[i]->data(), got.tensor()->data(), got.tensor()->byte_size());
    }
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
