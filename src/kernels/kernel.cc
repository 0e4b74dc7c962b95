#include "kernels/kernel.h"

#include <utility>

#include "ir/graph.h"

namespace kiln {
namespace {

const ir::Attribute* Typed(const KernelInfo& info, const char* name, ir::AttrType want) {
  const ir::Attribute* a = info.node().FindAttribute(name);
  if (a != nullptr && a->type != want) {
    info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' must be " +
                                            ir::AttrTypeName(want) + ", not " +
                                            ir::AttrTypeName(a->type));
  }
  return a;
}

}  // namespace

const std::string& KernelInfo::name() const noexcept {
  return node_.name();
}
const std::string& KernelInfo::op_type() const noexcept {
  return node_.op_type();
}
const std::string& KernelInfo::domain() const noexcept {
  return node_.domain();
}
int64_t KernelInfo::opset() const noexcept {
  return node_.opset();
}
size_t KernelInfo::input_count() const noexcept {
  return node_.inputs().size();
}
size_t KernelInfo::output_count() const noexcept {
  return node_.outputs().size();
}

bool KernelInfo::HasInput(size_t i) const noexcept {
  return i < node_.inputs().size() && node_.inputs()[i] != nullptr;
}

bool KernelInfo::HasOutput(size_t i) const noexcept {
  return i < node_.outputs().size() && node_.outputs()[i] != nullptr;
}

const Tensor* KernelInfo::ConstantInput(size_t i) const noexcept {
  if (!HasInput(i)) return nullptr;
  return node_.inputs()[i]->initializer().get();
}

DataType KernelInfo::InputType(size_t i) const noexcept {
  if (!HasInput(i)) return DataType::kUndefined;
  return node_.inputs()[i]->type().elem;
}

bool KernelInfo::HasAttribute(const char* name) const noexcept {
  return node_.FindAttribute(name) != nullptr;
}

int64_t KernelInfo::GetInt(const char* name, int64_t fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kInt);
  return a == nullptr ? fallback : a->i;
}

float KernelInfo::GetFloat(const char* name, float fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kFloat);
  return a == nullptr ? fallback : a->f;
}

std::string KernelInfo::GetString(const char* name, const std::string& fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kString);
  return a == nullptr ? fallback : a->s;
}

std::vector<int64_t> KernelInfo::GetInts(const char* name, std::vector<int64_t> fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kInts);
  if (a == nullptr) return fallback;
  return a->ints;
}

std::vector<float> KernelInfo::GetFloats(const char* name, std::vector<float> fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kFloats);
  if (a == nullptr) return fallback;
  return a->floats;
}

std::vector<std::string> KernelInfo::GetStrings(const char* name,
                                                std::vector<std::string> fallback) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kStrings);
  if (a == nullptr) return fallback;
  return a->strings;
}

std::shared_ptr<const Tensor> KernelInfo::GetTensor(const char* name) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kTensor);
  return a == nullptr ? nullptr : a->t;
}

std::shared_ptr<const ir::Graph> KernelInfo::GetGraph(const char* name) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kGraph);
  return a == nullptr ? nullptr : a->g;
}

int64_t KernelInfo::RequireInt(const char* name) const {
  const ir::Attribute* a = Typed(*this, name, ir::AttrType::kInt);
  if (a == nullptr) {
    Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is required");
  }
  return a->i;
}

void KernelInfo::Fail(ErrorCode code, const std::string& what) const {
  throw Error(code, node_.Describe() + ": " + what);
}

const Tensor& KernelContext::Input(size_t i) const {
  const Tensor* t = OptionalInput(i);
  if (t == nullptr) {
    const Value* v = InputValue(i);
    if (v != nullptr && !v->empty()) {
      info_.Fail(ErrorCode::kInvalidArgument,
                 "input " + std::to_string(i) + " is a " + v->TypeText() + ", not a tensor");
    }
    info_.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is required");
  }
  return *t;
}

void KernelContext::SetOutputValue(size_t i, Value value) {
  if (i >= outputs_.size()) {
    info_.Fail(ErrorCode::kInvalidGraph, "output " + std::to_string(i) + " does not exist");
  }
  if (outputs_[i] != nullptr) {
    info_.Fail(ErrorCode::kEngineError, "output " + std::to_string(i) + " set twice");
  }
  allocator_.SetValue(i, std::move(value));
}

Tensor& KernelContext::Output(size_t i, DataType type, std::span<const int64_t> dims) {
  return MakeOutput(i, type, dims, true);
}

Tensor& KernelContext::OutputForOverwrite(size_t i, DataType type, std::span<const int64_t> dims) {
  return MakeOutput(i, type, dims, false);
}

Tensor& KernelContext::MakeOutput(size_t i, DataType type, std::span<const int64_t> dims,
                                  bool zero) {
  if (i >= outputs_.size()) {
    info_.Fail(ErrorCode::kInvalidGraph, "output " + std::to_string(i) + " does not exist");
  }
  if (outputs_[i] != nullptr) {
    info_.Fail(ErrorCode::kEngineError, "output " + std::to_string(i) + " allocated twice");
  }
  Tensor& t = allocator_.Allocate(i, type, dims, zero);
  outputs_[i] = &t;
  return t;
}

SubgraphRunner& KernelContext::subgraphs() const {
  if (subgraphs_ == nullptr) info_.Fail(ErrorCode::kNotImplemented, "subgraphs cannot run here");
  return *subgraphs_;
}

}  // namespace kiln

namespace kiln {

HeapScratch::~HeapScratch() {
  for (void* p : blocks_) CpuAlignedFree(p);
}

void* HeapScratch::Get(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  blocks_.reserve(blocks_.size() + 1);
  void* p = CpuAlignedAlloc(bytes);
  if (p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory,
                "cannot allocate " + std::to_string(bytes) + " bytes of scratch memory");
  }
  blocks_.push_back(p);
  return p;
}

}  // namespace kiln
