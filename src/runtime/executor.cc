#include "runtime/executor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <new>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "core/float16.h"

namespace kiln::runtime {
namespace {

template <typename T, typename ToDouble>
bool AllFinite(const Tensor& t, ToDouble to_double) {
  const T* p = static_cast<const T*>(t.data());
  for (size_t i = 0; i < t.element_count(); ++i) {
    if (!std::isfinite(to_double(p[i]))) return false;
  }
  return true;
}

bool IsFinite(const Tensor& t) {
  switch (t.type()) {
    case DataType::kFloat:
      return AllFinite<float>(t, [](float v) { return double{v}; });
    case DataType::kDouble:
      return AllFinite<double>(t, [](double v) { return v; });
    case DataType::kFloat16:
      return AllFinite<Float16>(t, [](Float16 v) { return double{v.ToFloat()}; });
    case DataType::kBfloat16:
      return AllFinite<BFloat16>(t, [](BFloat16 v) { return double{v.ToFloat()}; });
    default:
      return true;
  }
}

}  // namespace

Profiler::Profiler()
    : origin_(std::chrono::steady_clock::now()),
      start_ns_(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count())) {}

int64_t Profiler::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               origin_)
      .count();
}

void Profiler::Record(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
}

namespace {
std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

void Profiler::WriteJson(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::kFail, "cannot write the profile to '" + path + "'");
  // Threads as 1, 2, ... in order of their first event: trace viewers take a tid as a 32-bit
  // number (Perfetto puts a larger one on the process's track, mixing the threads' events).
  std::unordered_map<size_t, size_t> tids;
  out << "[\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    const size_t tid = tids.try_emplace(e.thread, tids.size() + 1).first->second;
    out << "{\"name\":\"" << JsonEscape(e.name)
        << "\",\"cat\":\"node\",\"ph\":\"X\",\"ts\":" << e.start_us << ",\"dur\":" << e.duration_us
        << ",\"pid\":1,\"tid\":" << tid << ",\"args\":{\"op_type\":\"" << JsonEscape(e.op_type)
        << "\"}}" << (i + 1 < events_.size() ? ",\n" : "\n");
  }
  out << "]\n";
  if (!out) throw Error(ErrorCode::kFail, "writing the profile to '" + path + "' failed");
}

class Frame::StepOutputs final : public OutputAllocator {
 public:
  // A planned output is zero-filled, or, for a kernel that overwrites it, left as it is in release
  // builds and filled with all-ones bytes in debug builds (NaN for floats: an unwritten element
  // shows).
  static void Prepare(Tensor& t, bool zero) noexcept {
    if (t.byte_size() == 0) return;
#ifdef NDEBUG
    if (zero) std::memset(t.data(), 0, t.byte_size());
#else
    std::memset(t.data(), zero ? 0 : 0xFF, t.byte_size());
#endif
  }

  StepOutputs(Frame& frame, const GraphPlan::Step& step, ScratchArena& scratch)
      : frame_(frame), step_(step), scratch_(scratch) {}

  Tensor& Allocate(size_t index, DataType type, std::span<const int64_t> dims, bool zero) override {
    const int slot = index < step_.outputs.size() ? step_.outputs[index] : -1;
    if (slot >= 0 && frame_.recording_) {
      ProducedShape& p = frame_.produced_[slot];
      p.known = true;
      p.type = type;
      p.shape = Shape(std::vector<int64_t>(dims.begin(), dims.end()));
    }
    if (slot >= 0 && !frame_.hand_over_[static_cast<size_t>(slot)]) {
      if (Tensor* planned = frame_.Planned(slot, type, dims)) {
        // (A view's buffer holds its input, which the step reads.)
        if (!frame_.layout_->shares_input[slot]) {
          Prepare(*planned, zero || type == DataType::kString);
        }
        frame_.owned_[slot] = frame_.planned_[slot];
        frame_.slots_[slot] = Value(frame_.planned_[slot]);
        return *planned;
      }
    }
    Shape shape(std::vector<int64_t>(dims.begin(), dims.end()));
    std::shared_ptr<Tensor> t =
        zero || type == DataType::kString
            ? Tensor::Allocate(type, std::move(shape), frame_.run_->allocator)
            : Tensor::AllocateForOverwrite(type, std::move(shape), frame_.run_->allocator);
    if (slot < 0) {
      spare_.push_back(t);  // an output the graph leaves out: dropped after the step
    } else {
      frame_.owned_[slot] = t;
      frame_.slots_[slot] = Value(t);
    }
    return *t;
  }

  void* Scratch(size_t bytes) override {
    return scratch_.Get(bytes);
  }

  void SetValue(size_t index, Value value) override {
    const int slot = index < step_.outputs.size() ? step_.outputs[index] : -1;
    if (slot < 0) return;  // an output the graph leaves out
    if (!frame_.slots_[slot].empty()) {
      throw Error(ErrorCode::kEngineError, "output " + std::to_string(index) + " set twice");
    }
    frame_.slots_[slot] = frame_.OutsideArena(std::move(value));
  }

 private:
  Frame& frame_;
  const GraphPlan::Step& step_;
  ScratchArena& scratch_;
  std::vector<std::shared_ptr<Tensor>> spare_;
};

class Frame::StepSubgraphs final : public SubgraphRunner {
 public:
  StepSubgraphs(Frame& frame, const GraphPlan::Step& step) : frame_(frame), step_(step) {}
  std::vector<Value> RunSubgraph(const ir::Graph& graph,
                                 const std::vector<Value>& inputs) override {
    return frame_.RunSubgraph(step_, graph, inputs);
  }

 private:
  Frame& frame_;
  const GraphPlan::Step& step_;
};

Frame::Frame(const GraphPlan& plan, const Frame* parent, RunContext& run)
    : plan_(plan),
      parent_(parent),
      run_(&run),
      slots_(plan.slot_count()),
      owned_(plan.slot_count()),
      hand_over_(plan.slot_count(), false),
      arena_allocator_(run.allocator),
      budget_(run.budget) {
  scratch_.set_budget(budget_);
  for (const auto& [slot, t] : plan.constants()) slots_[slot] = Value(t);
  for (const auto& [slot, name] : plan.captures()) slots_[slot] = LookupCaptured(name);
  if (plan.has_arena() && !parallel()) UseLayout(plan.arena());
}

Frame::~Frame() {
  slots_.clear();
  owned_.clear();
  FreeArena();
}

void Frame::FreeArena() noexcept {
  planned_.clear();
  layout_.reset();
  if (arena_ != nullptr) arena_allocator_->Free(arena_);
  arena_ = nullptr;
  arena_capacity_ = 0;
}

void Frame::UseLayout(std::shared_ptr<const ArenaLayout> layout) {
  if (layout == layout_) return;
  planned_.clear();  // the tensors of the old layout
  layout_.reset();
  // Nothing planned: the block is kept for the next layout.
  if (layout == nullptr || !layout->any) return;
  if (layout->bytes > arena_capacity_) {
    FreeArena();
    try {
      arena_ = arena_allocator_->Alloc(layout->bytes);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kOutOfMemory) throw;
      throw Error(e.code(), std::string("the run's arena (the activations planned for its input "
                                        "shapes): ") +
                                e.what());
    }
    if (arena_ == nullptr) {
      throw Error(ErrorCode::kOutOfMemory,
                  "cannot allocate the run's arena of " + std::to_string(layout->bytes) + " bytes");
    }
    arena_capacity_ = layout->bytes;
  }
  try {
    planned_.resize(plan_.slot_count());
    for (size_t s = 0; s < plan_.slot_count(); ++s) {
      const int64_t offset = layout->offsets[s];
      if (offset < 0) continue;
      const size_t bytes = *StorageBytes(layout->types[s], *layout->shapes[s].ElementCount());
      void* data = bytes == 0 ? nullptr : static_cast<char*>(arena_) + offset;
      planned_[s] =
          Tensor::Wrap(layout->types[s], layout->shapes[s], data, bytes, arena_allocator_->Info());
    }
  } catch (...) {
    FreeArena();
    throw;
  }
  layout_ = std::move(layout);
}

void Frame::RecordShapes() {
  produced_.assign(plan_.slot_count(), ProducedShape{});
  recording_ = true;
}

void Frame::Clear() noexcept {
  recording_ = false;
  scratch_.EndStep();  // a failed step may have left scratch in use
  if (schedule_ != nullptr) {
    for (auto& s : schedule_->scratch) s->EndStep();
  }
  for (auto& s : slots_) s = Value();
  for (auto& o : owned_) o.reset();
  std::fill(hand_over_.begin(), hand_over_.end(), false);
}

void Frame::HandOver(size_t i) {
  hand_over_[static_cast<size_t>(plan_.output_slots().at(i))] = true;
}

void Frame::Reset(RunContext& run) {
  run_ = &run;
  for (const auto& [slot, t] : plan_.constants()) slots_[slot] = Value(t);
  for (const auto& [slot, name] : plan_.captures()) slots_[slot] = LookupCaptured(name);
}

Tensor* Frame::Planned(int slot, DataType type, std::span<const int64_t> dims) const {
  if (planned_.empty()) return nullptr;
  Tensor* t = planned_[static_cast<size_t>(slot)].get();
  if (t == nullptr || t->type() != type || !std::ranges::equal(t->shape().dims(), dims)) {
    return nullptr;
  }
  return t;
}

ScratchArena::~ScratchArena() {
  for (void* p : overflow_) CpuAlignedFree(p);
  CpuAlignedFree(block_);
  if (budget_ != nullptr) budget_->Release(overflow_bytes_ + capacity_);
}

void* ScratchArena::Get(size_t bytes) {
  constexpr size_t kAlign = 64;
  if (bytes > SIZE_MAX - kAlign) throw Error(ErrorCode::kOutOfMemory, "scratch size overflows");
  bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  std::lock_guard<std::mutex> lock(mu_);
  void* p = nullptr;
  // used_ counts heap blocks too, so it can pass capacity_ within a step.
  if (used_ <= capacity_ && bytes <= capacity_ - used_) {
    p = static_cast<char*>(block_) + used_;
  } else {
    overflow_.reserve(overflow_.size() + 1);
    if (budget_ != nullptr) budget_->Reserve(bytes, "scratch");
    p = CpuAlignedAlloc(bytes);
    if (p == nullptr) {
      if (budget_ != nullptr) budget_->Release(bytes);
      throw Error(ErrorCode::kOutOfMemory,
                  "cannot allocate " + std::to_string(bytes) + " bytes of scratch memory");
    }
    overflow_.push_back(p);
    overflow_bytes_ += bytes;
  }
  used_ = bytes > SIZE_MAX - used_ ? SIZE_MAX : used_ + bytes;
  peak_ = std::max(peak_, used_);
  return p;
}

void ScratchArena::EndStep() noexcept {
  for (void* p : overflow_) CpuAlignedFree(p);
  overflow_.clear();
  used_ = 0;
  if (budget_ != nullptr) budget_->Release(overflow_bytes_);
  overflow_bytes_ = 0;
  if (peak_ > capacity_) {
    // The step needed more than the block: grow it once, so the next run fits (within the
    // budget: else the block stays, and such steps take heap blocks as they go).
    if (budget_ != nullptr && !budget_->TryReserve(peak_ - capacity_)) return;
    CpuAlignedFree(block_);
    block_ = CpuAlignedAlloc(peak_);
    capacity_ = block_ != nullptr ? peak_ : 0;
    if (budget_ != nullptr && block_ == nullptr) budget_->Release(peak_);  // the old and the new
  }
}

Value Frame::LookupCaptured(const std::string& name) const {
  for (const Frame* f = parent_; f != nullptr; f = f->parent_) {
    const int s = f->plan_.SlotNamed(name);
    if (s >= 0 && !f->slots_[s].empty()) return f->slots_[s];
  }
  throw Error(ErrorCode::kEngineError, "captured value '" + name + "' is not available");
}

void Frame::SetInput(size_t i, Value v) {
  slots_[plan_.input_slots().at(i)] = std::move(v);
}

bool Frame::HasInput(size_t i) const {
  return !slots_[plan_.input_slots().at(i)].empty();
}

const Value& Frame::Output(size_t i) const {
  const Value& v = slots_[plan_.output_slots().at(i)];
  if (v.empty()) {
    throw Error(ErrorCode::kEngineError, "graph output " + std::to_string(i) + " was not computed");
  }
  return v;
}

bool Frame::InArena(const Tensor& t) const noexcept {
  const char* p = static_cast<const char*>(t.data());
  const char* base = static_cast<const char*>(arena_);
  return arena_ != nullptr && t.byte_size() != 0 && p >= base && t.byte_size() <= arena_capacity_ &&
         p <= base + (arena_capacity_ - t.byte_size());
}

Value Frame::OutsideArena(Value v) const {
  if (arena_ == nullptr) return v;
  auto in_arena = [&](const std::shared_ptr<const Tensor>& t) { return InArena(*t); };
  const auto heap = [&](const std::shared_ptr<const Tensor>& t) {
    return in_arena(t) ? std::shared_ptr<const Tensor>(CopyTensor(*t, run_->allocator)) : t;
  };
  Value content = v.Content();
  if (content.kind() == Value::Kind::kTensor && in_arena(content.tensor())) {
    content = Value(heap(content.tensor()));
  } else if (content.kind() == Value::Kind::kSequence) {
    const auto& items = content.sequence()->tensors;
    if (std::any_of(items.begin(), items.end(), in_arena)) {
      auto copy = std::make_shared<TensorSequence>();
      copy->elem_type = content.sequence()->elem_type;
      for (const auto& t : items) copy->tensors.push_back(heap(t));
      content = Value::FromSequence(std::move(copy));
    }
  } else {
    return v;
  }
  return v.kind() == Value::Kind::kOptional ? Value::OptionalOf(content) : content;
}

std::string Frame::InputsText(const GraphPlan::Step& step) const {
  std::string text = " (the node was given ";
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    if (i > 0) text += ", ";
    const int s = step.inputs[i];
    const std::string& name =
        step.node->inputs()[i] != nullptr ? step.node->inputs()[i]->name() : "";
    if (s < 0) {
      text += "no input " + std::to_string(i);
      continue;
    }
    const Value& v = slots_[s];
    text += "'" + name + "' " + v.TypeText();
    if (v.kind() == Value::Kind::kTensor) text += " " + v.tensor()->shape().ToString();
  }
  if (step.inputs.empty()) text += "no inputs";
  return text + ")";
}

void Frame::RunStep(const GraphPlan::Step& step, ScratchArena& scratch) {
  const ir::Node& node = *step.node;
  if (run_->terminate != nullptr && run_->terminate->load(std::memory_order_relaxed)) {
    throw Error(ErrorCode::kTerminated,
                "the run was terminated (RunOptions) before " + node.Describe());
  }
  const Tensor* inputs[16];
  const Value* values[16];
  std::vector<const Tensor*> many;
  std::vector<const Value*> many_values;
  const Tensor** in = inputs;
  const Value** in_values = values;
  if (step.inputs.size() > 16) {
    many.resize(step.inputs.size());
    many_values.resize(step.inputs.size());
    in = many.data();
    in_values = many_values.data();
  }
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const int s = step.inputs[i];
    in_values[i] = s < 0 ? nullptr : &slots_[s];
    in[i] = s < 0 ? nullptr : slots_[s].tensor().get();
    if (s >= 0 && slots_[s].empty()) {
      throw Error(ErrorCode::kEngineError,
                  node.Describe() + ": input " + std::to_string(i) + " has not been computed");
    }
    if (s >= 0 && slots_[s].kind() != Value::Kind::kTensor) in[i] = nullptr;
  }
  Tensor* outs[16] = {};
  std::vector<Tensor*> many_outs;
  Tensor** out = outs;
  if (step.outputs.size() > 16) {
    many_outs.assign(step.outputs.size(), nullptr);
    out = many_outs.data();
  }
  StepOutputs allocator(*this, step, scratch);
  StepSubgraphs subgraphs(*this, step);
  KernelContext ctx(*step.info, std::span<const Tensor* const>(in, step.inputs.size()),
                    std::span<Tensor*>(out, step.outputs.size()), allocator, run_->threads,
                    &subgraphs, std::span<const Value* const>(in_values, step.inputs.size()));
  ctx.set_run_state(run_->terminate, run_->logger);
  const int64_t start = run_->profiler != nullptr ? run_->profiler->NowUs() : 0;
  try {
    step.kernel->Compute(ctx);
  } catch (const Error& e) {
    const std::string what = e.what();
    // (A subgraph's step has said what it was given: that is the innermost node, kept.)
    if (e.code() == ErrorCode::kOutOfMemory && what.rfind("node '", 0) != 0) {
      throw Error(e.code(), node.Describe() + ": " + what);  // e.g. the memory limit's
    }
    if (e.code() == ErrorCode::kOutOfMemory || e.code() == ErrorCode::kTerminated ||
        what.find(" (the node was given ") != std::string::npos) {
      throw;
    }
    // Named the node already (KernelInfo::Fail), or not: either way the message ends with what
    // the step was given, so a kernel that refuses its inputs says which shapes it got.
    throw Error(e.code(), (what.rfind("node '", 0) == 0 ? what : node.Describe() + ": " + what) +
                              InputsText(step));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kRuntimeException, node.Describe() + ": " + e.what() + InputsText(step));
  }
  if (run_->profiler != nullptr) {
    run_->profiler->Record({node.name(), node.op_type(), start, run_->profiler->NowUs() - start,
                            std::hash<std::thread::id>()(std::this_thread::get_id())});
  }
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    const int s = step.outputs[i];
    if (s >= 0 && slots_[s].empty()) {
      throw Error(ErrorCode::kEngineError,
                  node.Describe() + ": the kernel did not produce output " + std::to_string(i));
    }
    if (s >= 0 && run_->check_finite && slots_[s].kind() == Value::Kind::kTensor &&
        !IsFinite(*slots_[s].tensor())) {
      throw Error(ErrorCode::kRuntimeException,
                  node.Describe() + ": output " + std::to_string(i) + " '" +
                      node.outputs()[i]->name() +
                      "' holds NaN or infinity (kiln.run.check_finite)");
    }
  }
  scratch.EndStep();
  if (parallel()) {
    // Freed by count: the plan's order says nothing of which reader finishes last.
    for (int s : step.readings) {
      if (schedule_->left[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        slots_[s] = Value();
        owned_[s].reset();
      }
    }
    return;
  }
  for (int s : step.release) {
    slots_[s] = Value();
    owned_[s].reset();
  }
}

void Frame::Execute() {
  for (size_t i = 0; i < plan_.input_slots().size(); ++i) {
    if (slots_[plan_.input_slots()[i]].empty()) {
      throw Error(ErrorCode::kEngineError,
                  "graph input '" + plan_.graph().inputs()[i]->name() + "' was not set");
    }
  }
  if (parallel()) {
    ExecuteParallel();
    return;
  }
  for (const GraphPlan::Step& step : plan_.steps()) RunStep(step, scratch_);
}

void Frame::ExecuteParallel() {
  const std::vector<GraphPlan::Step>& steps = plan_.steps();
  ThreadPool& pool = *run_->inter_op;
  const size_t workers = static_cast<size_t>(pool.size());
  if (schedule_ == nullptr) {
    auto schedule = std::make_unique<Schedule>();
    schedule->ready.reserve(steps.size());
    schedule->waiting.reserve(steps.size());
    schedule->left = std::make_unique<std::atomic<int>[]>(plan_.slot_count());
    schedule_ = std::move(schedule);
  }
  Schedule& sc = *schedule_;
  while (sc.scratch.size() < workers) {
    sc.scratch.push_back(std::make_unique<ScratchArena>());
    sc.scratch.back()->set_budget(budget_);
  }
  sc.ready.clear();
  sc.waiting.clear();
  for (size_t k = 0; k < steps.size(); ++k) {
    sc.waiting.push_back(steps[k].producers);
    if (steps[k].producers == 0) sc.ready.push_back(k);
  }
  // The first ready steps are taken last from the back: start with the plan's first.
  std::reverse(sc.ready.begin(), sc.ready.end());
  const std::vector<int>& counts = plan_.reading_counts();
  for (size_t s = 0; s < counts.size(); ++s) sc.left[s].store(counts[s], std::memory_order_relaxed);
  sc.done = 0;
  sc.failed = false;
  sc.error = nullptr;
  if (steps.empty()) return;
  pool.ParallelFor(workers, 1, [&](size_t begin, size_t end) {
    for (size_t w = begin; w < end; ++w) ParallelWorker(w);
  });
  if (sc.error) std::rethrow_exception(sc.error);
}

void Frame::ParallelWorker(size_t worker) noexcept {
  Schedule& sc = *schedule_;
  const std::vector<GraphPlan::Step>& steps = plan_.steps();
  std::unique_lock<std::mutex> lock(sc.mu);
  for (;;) {
    sc.ready_cv.wait(lock,
                     [&] { return !sc.ready.empty() || sc.failed || sc.done == steps.size(); });
    if (sc.failed || sc.ready.empty()) return;
    const size_t k = sc.ready.back();
    sc.ready.pop_back();
    lock.unlock();
    std::exception_ptr error;
    try {
      RunStep(steps[k], *sc.scratch[worker]);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    ++sc.done;
    size_t woken = 0;
    if (error) {
      if (!sc.failed) sc.error = error;
      sc.failed = true;
    } else {
      for (size_t n : steps[k].next) {
        if (--sc.waiting[n] == 0) {
          sc.ready.push_back(n);  // capacity reserved: cannot throw
          ++woken;
        }
      }
    }
    // This thread takes one ready step itself; the others are for sleeping threads.
    if (sc.failed || sc.done == steps.size()) {
      sc.ready_cv.notify_all();
    } else if (woken > 1) {
      for (size_t i = 1; i < woken; ++i) sc.ready_cv.notify_one();
    }
  }
}

std::shared_ptr<Tensor> Frame::TakeTensorOutput(size_t i) {
  const int s = plan_.output_slots().at(i);
  const Value& v = Output(i);
  if (v.kind() != Value::Kind::kTensor) {
    throw Error(ErrorCode::kEngineError,
                "graph output " + std::to_string(i) + " is a " + v.TypeText() + ", not a tensor");
  }
  // Held only by owned_ and slots_ (not the arena, not a constant): hand it over. An output
  // listed twice is copied the second time.
  if (owned_[s] != nullptr && owned_[s].use_count() == 2) return std::move(owned_[s]);
  return CopyTensor(*v.tensor(), run_->allocator);
}

std::vector<Value> Frame::RunSubgraph(const GraphPlan::Step& step, const ir::Graph& graph,
                                      const std::vector<Value>& inputs) {
  const GraphPlan& sub = plan_.Subplan(graph);
  if (inputs.size() != sub.input_slots().size()) {
    throw Error(ErrorCode::kInvalidGraph, step.node->Describe() + ": its subgraph takes " +
                                              std::to_string(sub.input_slots().size()) +
                                              " inputs, given " + std::to_string(inputs.size()));
  }
  std::unique_ptr<Frame> taken = TakeChild(sub);
  // Given back cleared however this ends: the outputs below are copies or handed over, so
  // nothing the caller keeps lies in the child's arena.
  struct GiveBack {
    Frame& parent;
    std::unique_ptr<Frame>& child;
    ~GiveBack() {
      child->Clear();
      parent.PutChild(std::move(child));
    }
  } give_back{*this, taken};
  Frame& child = *taken;
  for (size_t i = 0; i < inputs.size(); ++i) child.SetInput(i, inputs[i]);
  child.Execute();
  std::vector<Value> outputs;
  outputs.reserve(sub.output_slots().size());
  for (size_t i = 0; i < sub.output_slots().size(); ++i) {
    const Value& v = child.Output(i);
    outputs.push_back(v.kind() == Value::Kind::kTensor ? Value(child.TakeTensorOutput(i)) : v);
  }
  return outputs;
}

std::unique_ptr<Frame> Frame::TakeChild(const GraphPlan& sub) {
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    auto it = children_.find(&sub);
    if (it != children_.end() && !it->second.empty()) {
      std::unique_ptr<Frame> child = std::move(it->second.back());
      it->second.pop_back();
      child->Reset(*run_);  // this run's context, the constants and captured values
      return child;
    }
  }
  return std::make_unique<Frame>(sub, this, *run_);
}

void Frame::PutChild(std::unique_ptr<Frame> child) noexcept {
  std::lock_guard<std::mutex> lock(children_mu_);
  try {
    children_[&child->plan_].push_back(std::move(child));
  } catch (...) {
    // Not kept (no memory for the list): the next entry makes a new one.
  }
}

CachingAllocator::~CachingAllocator() {
  Trim();
}

void CachingAllocator::Trim() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  size_t bytes = 0;
  for (const Block& b : free_) {
    CpuAlignedFree(b.p);
    bytes += b.bytes;
  }
  free_.clear();
  if (budget_ != nullptr) budget_->Release(bytes);
}

void CachingAllocator::Disown(const void* p) noexcept {
  if (budget_ == nullptr || p == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(live_.begin(), live_.end(), [&](const Block& b) { return b.p == p; });
  if (it == live_.end() || !it->counted) return;
  it->counted = false;
  budget_->Release(it->bytes);
}

size_t CachingAllocator::KeptBytes() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  size_t bytes = 0;
  for (const Block& b : free_) bytes += b.bytes;
  return bytes;
}

void* CachingAllocator::Alloc(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::lower_bound(free_.begin(), free_.end(), bytes,
                               [](const Block& b, size_t n) { return b.bytes < n; });
    if (it != free_.end() && (it->bytes <= 2 * bytes || it->bytes <= 4096)) {
      Block b = *it;
      live_.push_back(b);  // may throw before anything changed
      free_.erase(it);
      return b.p;
    }
  }
  // Counted before it is allocated (reclaiming idle memory when there is no room: see Session).
  if (budget_ != nullptr) budget_->Reserve(bytes, "activations");
  void* p = CpuAlignedAlloc(bytes);
  try {
    if (p == nullptr) throw std::bad_alloc();
    std::lock_guard<std::mutex> lock(mu_);
    live_.push_back({p, bytes});
  } catch (...) {
    CpuAlignedFree(p);
    if (budget_ != nullptr) budget_->Release(bytes);
    return nullptr;
  }
  return p;
}

void CachingAllocator::Free(void* p) noexcept {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(live_.begin(), live_.end(), [&](const Block& b) { return b.p == p; });
  if (it == live_.end()) return;  // not ours: cannot happen through Tensor
  const Block b = *it;
  *it = live_.back();
  live_.pop_back();
  if (!b.counted || !keep_) {
    CpuAlignedFree(b.p);
    if (b.counted && budget_ != nullptr) budget_->Release(b.bytes);
    return;
  }
  try {
    free_.insert(std::lower_bound(free_.begin(), free_.end(), b.bytes,
                                  [](const Block& x, size_t n) { return x.bytes < n; }),
                 b);
  } catch (...) {
    CpuAlignedFree(b.p);  // no room to remember it: give it back
    if (budget_ != nullptr) budget_->Release(b.bytes);
  }
}

const MemoryInfo& CachingAllocator::Info() const noexcept {
  static constexpr MemoryInfo kInfo{"Cpu", 0, MemType::kDefault, AllocatorType::kArena};
  return keep_ ? kInfo : kCpuMemoryInfo;
}

}  // namespace kiln::runtime
