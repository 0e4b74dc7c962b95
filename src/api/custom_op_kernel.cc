// A custom op's kernel (CustomKernel): the node checked against the op's description at
// creation (arities, attributes, static types), the library's callbacks called with the
// transient handles of api/custom_op.h, and what they return checked (types, shapes, outputs
// made). Also the entries those handles serve (slots 107-126).
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "api/custom_op.h"
#include "api/entries.h"
#include "api/status.h"
#include "core/logging.h"
#include "infer/infer.h"

namespace kiln::api {

class CustomKernel final : public Kernel {
 public:
  CustomKernel(std::shared_ptr<const CustomOpAdapter> op, const KernelInfo& info);
  ~CustomKernel() override;
  void Compute(KernelContext& ctx) const override;
  bool InferOutputs(infer::InferenceContext& ctx) const override;
  bool EvaluableAtLoad() const override { return false; }

  const CustomOpAdapter& op() const noexcept { return *op_; }
  const std::string& node_name() const noexcept { return node_name_; }
  // The element type output i gets in a run whose type parameters are `bound`; throws naming
  // the output when nothing decides it.
  DataType OutputType(size_t i, const std::vector<DataType>& bound) const;
  // Throws unless `dims` fits what inference said of output i.
  void CheckOutputShape(size_t i, std::span<const int64_t> dims) const;
  std::string Where(const char* callback) const { return op_->Describe() + ": " + callback; }

 private:
  void CheckArity(const KernelInfo& info) const;
  void ResolveAttributes(const KernelInfo& info);
  // Binds the type parameters from input types (kUndefined where unknown); throws naming the
  // input whose type the description does not allow. `prefix` starts each message.
  std::vector<DataType> Bind(std::span<const DataType> types, const std::string& prefix) const;

  std::shared_ptr<const CustomOpAdapter> op_;
  std::string node_name_;
  std::vector<ResolvedAttribute> attributes_;
  void* kernel_ = nullptr;
  bool made_ = false;
  // What inference found of each output, at load (written only then).
  mutable std::vector<infer::TensorFacts> inferred_;
};

namespace {

std::string ArgText(const char* what, size_t i, const CustomArg* arg) {
  return std::string(what) + " " + std::to_string(i) +
         (arg != nullptr ? " '" + arg->name + "'" : std::string());
}

bool IsKnownDim(int64_t d) {
  return d >= 0;
}

// Lends a value handle over `tensor` in `slot` until the Compute call ends (registered as
// permanent, so a library's ReleaseValue cannot free it; Compute's end removes it).
KilnValue* Lend(std::unique_ptr<KilnValue>& slot, std::shared_ptr<Tensor> tensor) {
  auto v = std::make_unique<KilnValue>();
  v->tensor = std::move(tensor);
  v->lent = true;
  registry::Add(v.get(), HandleKind::kValue, /*permanent=*/true);
  slot = std::move(v);
  return slot.get();
}

// Throws unless called on Compute's own thread.
void CheckComputeThread(const KilnKernelContext& c) {
  if (std::this_thread::get_id() != c.thread) {
    ThrowInvalidArgument("ctx",
                         "is used from another thread than its Compute call's (a "
                         "ParallelFor share may only read inputs and write outputs "
                         "already made)");
  }
}

}  // namespace

CustomKernel::CustomKernel(std::shared_ptr<const CustomOpAdapter> op, const KernelInfo& info)
    : op_(std::move(op)), node_name_(info.name()) {
  CheckArity(info);
  ResolveAttributes(info);
  // (Input types are checked where they are known for sure: by inference at load, and in each
  // run; not from the model's value_info, an exporter's claim.)
  const CustomCallbacks& cb = op_->callbacks();
  if (cb.create == nullptr) {
    kernel_ = cb.op_state;
  } else {
    KilnKernelInfo handle{op_.get(), &info, &attributes_};
    ScopedHandle live(&handle);
    void* made = nullptr;
    CallLibrary([&] { return Where("CreateKernel"); },
                [&] { return cb.create(cb.op_state, &handle, &made); });
    kernel_ = made;
    made_ = true;
  }
}

CustomKernel::~CustomKernel() {
  const CustomCallbacks& cb = op_->callbacks();
  if (!made_ || cb.destroy == nullptr) return;
  try {
    CallLibrary([&] { return Where("DestroyKernel") + " of node '" + node_name_ + "'"; },
                [&] { return cb.destroy(kernel_); });
  } catch (const std::exception& e) {
    LogProcess(LogLevel::kError, "kiln.custom_op", KILN_LOCATION, e.what());
  }
}

void CustomKernel::CheckArity(const KernelInfo& info) const {
  auto check = [&](const std::vector<CustomArg>& args, size_t count, const char* what,
                   bool (KernelInfo::*has)(size_t) const noexcept) {
    const bool variadic = !args.empty() && args.back().kind == KILN_CUSTOM_OP_ARG_VARIADIC;
    if (count > args.size() && !variadic) {
      info.Fail(ErrorCode::kInvalidGraph, "has " + std::to_string(count) + " " + what + "s but " +
                                              op_->Describe() + " takes at most " +
                                              std::to_string(args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const bool needed = args[i].kind != KILN_CUSTOM_OP_ARG_OPTIONAL;
      if (needed && !(info.*has)(i)) {
        info.Fail(ErrorCode::kInvalidGraph, "lacks " + ArgText(what, i, &args[i]) + ", which " +
                                                op_->Describe() + " requires");
      }
    }
  };
  check(op_->inputs(), info.input_count(), "input", &KernelInfo::HasInput);
  check(op_->outputs(), info.output_count(), "output", &KernelInfo::HasOutput);
}

void CustomKernel::ResolveAttributes(const KernelInfo& info) {
  for (const ir::Attribute& a : info.node().attributes()) {
    const auto& declared = op_->attributes();
    auto it = std::find_if(declared.begin(), declared.end(),
                           [&](const CustomAttr& d) { return d.value.name == a.name; });
    if (it == declared.end()) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute '" + a.name + "' is not one " + op_->Describe() + " declares");
    }
    if (a.type != it->value.type) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute '" + a.name + "' is " +
                                              std::string(ir::AttrTypeName(a.type)) + " but " +
                                              op_->Describe() + " declares it " +
                                              std::string(ir::AttrTypeName(it->value.type)));
    }
  }
  for (const CustomAttr& d : op_->attributes()) {
    const ir::Attribute* given = info.node().FindAttribute(d.value.name);
    if (given == nullptr && d.required) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute '" + d.value.name + "' is required by " +
                                              op_->Describe() + " and missing");
    }
    ResolvedAttribute r;
    r.value = given != nullptr ? given : &d.value;
    for (const std::string& s : r.value->strings) r.strings.push_back(s.c_str());
    attributes_.push_back(std::move(r));
  }
}

std::vector<DataType> CustomKernel::Bind(std::span<const DataType> types,
                                         const std::string& prefix) const {
  std::vector<DataType> bound(op_->type_params().size(), DataType::kUndefined);
  std::vector<size_t> binder(bound.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    const CustomArg* arg = op_->InputArg(i);
    const DataType t = types[i];
    if (arg == nullptr || t == DataType::kUndefined) continue;
    const std::string at = prefix + ArgText("input", i, arg) + " is " + DataTypeName(t);
    if (arg->type_param < 0) {
      if (t != arg->fixed) {
        throw Error(ErrorCode::kInvalidArgument,
                    at + " but " + op_->Describe() + " takes " + DataTypeName(arg->fixed));
      }
      continue;
    }
    const auto p = static_cast<size_t>(arg->type_param);
    const CustomTypeParam& param = op_->type_params()[p];
    if (!param.Allows(t)) {
      throw Error(ErrorCode::kInvalidArgument, at + ", which type parameter '" + param.name +
                                                   "' of " + op_->Describe() + " does not allow");
    }
    if (bound[p] != DataType::kUndefined && bound[p] != t) {
      throw Error(ErrorCode::kInvalidArgument, at + " but input " + std::to_string(binder[p]) +
                                                   " bound type parameter '" + param.name +
                                                   "' to " + DataTypeName(bound[p]));
    }
    bound[p] = t;
    binder[p] = i;
  }
  return bound;
}

DataType CustomKernel::OutputType(size_t i, const std::vector<DataType>& bound) const {
  const CustomArg* arg = op_->OutputArg(i);
  if (arg == nullptr) {
    throw Error(ErrorCode::kInvalidArgument, "output " + std::to_string(i) + " is past the " +
                                                 std::to_string(op_->outputs().size()) +
                                                 " outputs " + op_->Describe() + " has");
  }
  if (arg->type_param < 0) return arg->fixed;
  const DataType b = bound[static_cast<size_t>(arg->type_param)];
  if (b != DataType::kUndefined) return b;
  if (i < inferred_.size() && inferred_[i].type != DataType::kUndefined) return inferred_[i].type;
  throw Error(ErrorCode::kInvalidArgument,
              ArgText("output", i, arg) + ": its type parameter '" +
                  op_->type_params()[static_cast<size_t>(arg->type_param)].name +
                  "' is bound by no input; InferShapes must set its type");
}

void CustomKernel::CheckOutputShape(size_t i, std::span<const int64_t> dims) const {
  for (int64_t d : dims) {
    if (d < 0) {
      throw Error(ErrorCode::kInvalidArgument, "output " + std::to_string(i) + ": dimension " +
                                                   std::to_string(d) + " is negative");
    }
  }
  if (i >= inferred_.size() || !inferred_[i].shape) return;
  const std::vector<int64_t>& want = inferred_[i].shape->dims();
  bool fits = want.size() == dims.size();
  for (size_t k = 0; fits && k < dims.size(); ++k) {
    fits = !IsKnownDim(want[k]) || want[k] == dims[k];
  }
  if (!fits) {
    throw Error(ErrorCode::kInvalidArgument,
                "output " + std::to_string(i) + " is allocated with shape " +
                    Shape(std::vector<int64_t>(dims.begin(), dims.end())).ToString() +
                    " but InferShapes said " + inferred_[i].shape->ToString());
  }
}

bool CustomKernel::InferOutputs(infer::InferenceContext& ctx) const {
  const KernelInfo& info = ctx.info();
  std::vector<DataType> types;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    const infer::TensorFacts* f = ctx.Input(i);
    types.push_back(f != nullptr ? f->type : DataType::kUndefined);
  }
  const std::string prefix = "node '" + info.name() + "' (" + info.op_type() + "): ";
  std::vector<DataType> bound;
  try {
    bound = Bind(types, prefix);
  } catch (const Error& e) {
    throw Error(ErrorCode::kInvalidGraph, e.what());
  }
  const CustomCallbacks& cb = op_->callbacks();
  KilnKernelInfo info_handle{op_.get(), &info, &attributes_};
  KilnShapeInferContext handle{&info_handle, &ctx, bound,
                               std::vector<bool>(ctx.output_count(), false),
                               std::vector<infer::TensorFacts>(ctx.output_count())};
  if (cb.infer != nullptr) {
    ScopedHandle live_info(&info_handle);
    ScopedHandle live(&handle);
    try {
      CallLibrary([&] { return Where("InferShapes"); },
                  [&] { return cb.infer(cb.op_state, &handle); });
    } catch (const Error& e) {
      throw Error(e.code() == ErrorCode::kOutOfMemory ? e.code() : ErrorCode::kInvalidGraph,
                  prefix + e.what());
    }
  }
  // What the description decides for the outputs the callback left alone.
  for (size_t i = 0; i < ctx.output_count(); ++i) {
    if (handle.set[i]) continue;
    const CustomArg* arg = op_->OutputArg(i);
    if (arg == nullptr) continue;
    const DataType t =
        arg->type_param < 0 ? arg->fixed : handle.bound[static_cast<size_t>(arg->type_param)];
    if (t == DataType::kUndefined) continue;
    ctx.SetOutput(i, t, std::nullopt);
    handle.outputs[i].type = t;
  }
  inferred_ = std::move(handle.outputs);
  return true;
}

void CustomKernel::Compute(KernelContext& ctx) const {
  std::vector<DataType> types;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    const Value* v = ctx.InputValue(i);
    const Tensor* t = ctx.OptionalInput(i);
    if (v != nullptr && !v->empty() && t == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, ArgText("input", i, op_->InputArg(i)) +
                                                   " is not a tensor (custom ops take "
                                                   "tensors only)");
    }
    types.push_back(t != nullptr ? t->type() : DataType::kUndefined);
  }
  KilnKernelInfo info_handle{op_.get(), &ctx.info(), &attributes_};
  KilnKernelContext handle{
      this, &ctx, &info_handle, Bind(types, ""), {}, {}, std::this_thread::get_id()};
  // Declared inputs past the node's (optional ones it leaves out) read as left out too.
  handle.inputs.resize(std::max(ctx.input_count(), op_->inputs().size()));
  handle.outputs.resize(ctx.output_count());
  struct Unregister {
    KilnKernelContext& h;
    ~Unregister() {
      for (auto* list : {&h.inputs, &h.outputs}) {
        for (auto& v : *list) {
          if (v != nullptr) registry::RemoveLent(v.get(), HandleKind::kValue);
        }
      }
    }
  } unregister{handle};
  // Every input's value is made before Compute, so that KernelContextGetInput only reads (it may
  // be called from ParallelFor's shares). The library may read an input only (the header says
  // so; the handle's type has no const). A value shares the tensor where the executor gave it as
  // one, else it borrows it (valid while the Compute call lasts, as the handle is).
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    const Tensor* t = ctx.OptionalInput(i);
    if (t == nullptr) continue;
    const Value* v = ctx.InputValue(i);
    Lend(handle.inputs[i],
         v != nullptr && v->tensor().get() == t
             ? std::const_pointer_cast<Tensor>(v->tensor())
             : std::shared_ptr<Tensor>(std::shared_ptr<Tensor>(), const_cast<Tensor*>(t)));
  }
  {
    ScopedHandle live_info(&info_handle);
    ScopedHandle live(&handle);
    const CustomCallbacks& cb = op_->callbacks();
    CallLibrary([&] { return Where("Compute"); }, [&] { return cb.compute(kernel_, &handle); });
  }
  for (size_t i = 0; i < ctx.output_count(); ++i) {
    if (ctx.WantsOutput(i) && handle.outputs[i] == nullptr) {
      throw Error(ErrorCode::kFail, Where("Compute") + " returned without allocating " +
                                        ArgText("output", i, op_->OutputArg(i)) +
                                        " (KernelContextGetOutput)");
    }
  }
}

std::unique_ptr<Kernel> CustomOpAdapter::CreateKernel(const KernelInfo& info) const {
  return std::make_unique<CustomKernel>(shared_from_this(), info);
}

// ---- Kernel info entries ---------------------------------------------------------------------

namespace {

const ResolvedAttribute& Attribute(const KilnKernelInfo& info, const char* name,
                                   ir::AttrType type) {
  if (name == nullptr) ThrowInvalidArgument("name", "is NULL");
  const auto& declared = info.op->attributes();
  for (size_t k = 0; k < declared.size(); ++k) {
    if (declared[k].value.name != name) continue;
    if (declared[k].value.type != type) {
      ThrowInvalidArgument("name", "attribute '" + std::string(name) + "' of " +
                                       info.op->Describe() + " is declared " +
                                       std::string(ir::AttrTypeName(declared[k].value.type)) +
                                       ", not " + std::string(ir::AttrTypeName(type)));
    }
    return (*info.attributes)[k];
  }
  ThrowInvalidArgument("name", "'" + std::string(name) + "' is not an attribute " +
                                   info.op->Describe() + " declares");
}

}  // namespace

KilnStatus* KILN_API_CALL KernelInfoGetNodeName(const KilnKernelInfo* info, const char** out) {
  return Guard("KernelInfoGetNodeName", [&] {
    const KilnKernelInfo& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = i.node->name().c_str();
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetInputCount(const KilnKernelInfo* info, size_t* out) {
  return Guard("KernelInfoGetInputCount", [&] {
    const KilnKernelInfo& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = std::max(i.node->input_count(), i.op->inputs().size());
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetOutputCount(const KilnKernelInfo* info, size_t* out) {
  return Guard("KernelInfoGetOutputCount", [&] {
    const KilnKernelInfo& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = i.node->output_count();
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeInt(const KilnKernelInfo* info, const char* name,
                                                    int64_t* out) {
  return Guard("KernelInfoGetAttributeInt", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kInt);
    CheckOut(out, "out");
    *out = a.value->i;
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeFloat(const KilnKernelInfo* info, const char* name,
                                                      float* out) {
  return Guard("KernelInfoGetAttributeFloat", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kFloat);
    CheckOut(out, "out");
    *out = a.value->f;
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeString(const KilnKernelInfo* info, const char* name,
                                                       const char** out) {
  return Guard("KernelInfoGetAttributeString", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kString);
    CheckOut(out, "out");
    *out = a.value->s.c_str();
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeInts(const KilnKernelInfo* info, const char* name,
                                                     const int64_t** values, size_t* count) {
  return Guard("KernelInfoGetAttributeInts", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kInts);
    CheckOut(values, "values");
    CheckOut(count, "count");
    *values = a.value->ints.empty() ? nullptr : a.value->ints.data();
    *count = a.value->ints.size();
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeFloats(const KilnKernelInfo* info, const char* name,
                                                       const float** values, size_t* count) {
  return Guard("KernelInfoGetAttributeFloats", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kFloats);
    CheckOut(values, "values");
    CheckOut(count, "count");
    *values = a.value->floats.empty() ? nullptr : a.value->floats.data();
    *count = a.value->floats.size();
  });
}

KilnStatus* KILN_API_CALL KernelInfoGetAttributeStrings(const KilnKernelInfo* info,
                                                        const char* name,
                                                        const char* const** values, size_t* count) {
  return Guard("KernelInfoGetAttributeStrings", [&] {
    const ResolvedAttribute& a = Attribute(Unwrap(info, "info"), name, ir::AttrType::kStrings);
    CheckOut(values, "values");
    CheckOut(count, "count");
    *values = a.strings.empty() ? nullptr : a.strings.data();
    *count = a.strings.size();
  });
}

// ---- Kernel context entries ------------------------------------------------------------------

namespace {

void CheckIndex(size_t index, size_t count, const char* what) {
  if (index >= count) {
    ThrowInvalidArgument("index", std::to_string(index) + " is out of range: the node has " +
                                      std::to_string(count) + " " + what);
  }
}

}  // namespace

KilnStatus* KILN_API_CALL KernelContextGetInputCount(const KilnKernelContext* ctx, size_t* out) {
  return Guard("KernelContextGetInputCount", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckOut(out, "out");
    *out = c.inputs.size();
  });
}

KilnStatus* KILN_API_CALL KernelContextGetOutputCount(const KilnKernelContext* ctx, size_t* out) {
  return Guard("KernelContextGetOutputCount", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckOut(out, "out");
    *out = c.ctx->output_count();
  });
}

KilnStatus* KILN_API_CALL KernelContextGetInput(const KilnKernelContext* ctx, size_t index,
                                                const KilnValue** out) {
  return Guard("KernelContextGetInput", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckIndex(index, c.inputs.size(), "inputs");
    CheckOut(out, "out");
    *out = c.inputs[index].get();
  });
}

KilnStatus* KILN_API_CALL KernelContextGetOutput(KilnKernelContext* ctx, size_t index,
                                                 const int64_t* dims, size_t dim_count,
                                                 KilnValue** out) {
  return Guard("KernelContextGetOutput", [&] {
    KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckIndex(index, c.ctx->output_count(), "outputs");
    if (dims == nullptr && dim_count > 0) ThrowInvalidArgument("dims", "is NULL");
    CheckOut(out, "out");
    CheckComputeThread(c);
    if (c.outputs[index] != nullptr) {
      ThrowInvalidArgument("index", "output " + std::to_string(index) + " is allocated already");
    }
    const std::span<const int64_t> shape(dims, dim_count);
    try {
      c.kernel->CheckOutputShape(index, shape);
    } catch (const Error& e) {
      ThrowInvalidArgument("dims", e.what());
    }
    const DataType type = c.kernel->OutputType(index, c.bound);
    // The handle first, so that a failure leaves no output allocated.
    KilnValue* v = Lend(c.outputs[index], nullptr);
    try {
      Tensor& t = type == DataType::kString ? c.ctx->Output(index, type, shape)
                                            : c.ctx->OutputForOverwrite(index, type, shape);
      // The tensor is the step's (its buffer may be the planned arena's): a handle that does
      // not own it, valid while the Compute call lasts.
      v->tensor = std::shared_ptr<Tensor>(std::shared_ptr<Tensor>(), &t);
    } catch (...) {
      registry::RemoveLent(v, HandleKind::kValue);
      c.outputs[index].reset();
      throw;
    }
    *out = v;
  });
}

KilnStatus* KILN_API_CALL KernelContextParallelFor(KilnKernelContext* ctx, KilnParallelForFn fn,
                                                   void* data, size_t total, size_t grain) {
  return Guard("KernelContextParallelFor", [&] {
    KilnKernelContext& c = Unwrap(ctx, "ctx");
    if (fn == nullptr) ThrowInvalidArgument("fn", "is NULL");
    CheckComputeThread(c);
    std::mutex mu;
    KilnStatus* first = nullptr;
    bool threw = false;
    c.ctx->threads().ParallelFor(total, grain == 0 ? 1 : grain, [&](size_t begin, size_t end) {
      KilnStatus* s = nullptr;
      bool t = false;
      try {
        s = fn(data, begin, end);
      } catch (...) {
        t = true;
      }
      if (s == nullptr && !t) return;
      std::lock_guard<std::mutex> lock(mu);
      if (first == nullptr && !threw) {
        first = s;
        threw = t;
      } else if (s != nullptr) {
        ReleaseStatus(s);
      }
    });
    if (threw) throw Error(ErrorCode::kFail, "fn threw an exception");
    if (first != nullptr) ThrowIfFailed(first, "fn");
  });
}

KilnStatus* KILN_API_CALL KernelContextIsTerminated(const KilnKernelContext* ctx, int* out) {
  return Guard("KernelContextIsTerminated", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckOut(out, "out");
    *out = c.ctx->terminated() ? 1 : 0;
  });
}

KilnStatus* KILN_API_CALL KernelContextLog(const KilnKernelContext* ctx, KilnLoggingLevel severity,
                                           const char* message) {
  return Guard("KernelContextLog", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    const int level = EnumValue(severity);
    if (level < KILN_LOGGING_LEVEL_VERBOSE || level > KILN_LOGGING_LEVEL_FATAL) {
      ThrowInvalidArgument("severity", std::to_string(level) + " is not a KilnLoggingLevel");
    }
    if (message == nullptr) ThrowInvalidArgument("message", "is NULL");
    const std::string text = "node '" + c.kernel->node_name() + "': " + message;
    const Logger* logger = c.ctx->logger();
    if (logger != nullptr) {
      logger->Log(static_cast<LogLevel>(level), "kiln.custom_op", KILN_LOCATION, text.c_str());
    } else {
      LogProcess(static_cast<LogLevel>(level), "kiln.custom_op", KILN_LOCATION, text.c_str());
    }
  });
}

KilnStatus* KILN_API_CALL KernelContextGetKernelInfo(const KilnKernelContext* ctx,
                                                     const KilnKernelInfo** out) {
  return Guard("KernelContextGetKernelInfo", [&] {
    const KilnKernelContext& c = Unwrap(ctx, "ctx");
    CheckOut(out, "out");
    *out = c.info;
  });
}

// ---- Shape inference entries -----------------------------------------------------------------

KilnStatus* KILN_API_CALL ShapeInferContextGetKernelInfo(const KilnShapeInferContext* ctx,
                                                         const KilnKernelInfo** out) {
  return Guard("ShapeInferContextGetKernelInfo", [&] {
    const KilnShapeInferContext& c = Unwrap(ctx, "ctx");
    CheckOut(out, "out");
    *out = c.info;
  });
}

KilnStatus* KILN_API_CALL ShapeInferContextGetInputTypeInfo(const KilnShapeInferContext* ctx,
                                                            size_t index,
                                                            KilnTensorTypeAndShapeInfo** out) {
  return Guard("ShapeInferContextGetInputTypeInfo", [&] {
    const KilnShapeInferContext& c = Unwrap(ctx, "ctx");
    CheckIndex(index, std::max(c.ctx->input_count(), c.info->op->inputs().size()), "inputs");
    CheckOut(out, "out");
    const infer::TensorFacts* f = c.ctx->Input(index);  // null past the node's inputs
    if (f == nullptr) {
      *out = nullptr;
      return;
    }
    auto info = std::make_unique<KilnTensorTypeAndShapeInfo>();
    info->type = f->type;
    if (f->shape) {
      std::vector<int64_t> dims = f->shape->dims();
      for (int64_t& d : dims) d = d < 0 ? -1 : d;  // unknown, named or not
      info->shape = Shape(std::move(dims));
    }
    Publish(std::move(info), out);
  });
}

KilnStatus* KILN_API_CALL ShapeInferContextSetOutputTypeInfo(KilnShapeInferContext* ctx,
                                                             size_t index,
                                                             KilnElementType element_type,
                                                             const int64_t* dims,
                                                             size_t dim_count) {
  return Guard("ShapeInferContextSetOutputTypeInfo", [&] {
    KilnShapeInferContext& c = Unwrap(ctx, "ctx");
    CheckIndex(index, c.ctx->output_count(), "outputs");
    if (dims == nullptr && dim_count > 0) ThrowInvalidArgument("dims", "is NULL");
    if (c.set[index]) {
      ThrowInvalidArgument("index", "output " + std::to_string(index) + " is set already");
    }
    const int type = EnumValue(element_type);
    if (type < 1 || type > kMaxDataType) {
      ThrowInvalidArgument("element_type", std::to_string(type) + " is not a KilnElementType");
    }
    const CustomArg* arg = c.info->op->OutputArg(index);
    const auto t = static_cast<DataType>(type);
    bool allowed = arg != nullptr && t == arg->fixed;
    DataType* bound = nullptr;
    if (arg != nullptr && arg->type_param >= 0) {
      const auto p = static_cast<size_t>(arg->type_param);
      allowed = c.info->op->type_params()[p].Allows(t);
      bound = &c.bound[p];
    }
    if (!allowed) {
      ThrowInvalidArgument("element_type", std::string(DataTypeName(t)) + " is not a type " +
                                               ArgText("output", index, arg) + " may have");
    }
    if (bound != nullptr && *bound != DataType::kUndefined && *bound != t) {
      ThrowInvalidArgument(
          "element_type", std::string(DataTypeName(t)) + " for " + ArgText("output", index, arg) +
                              ", whose type parameter '" +
                              c.info->op->type_params()[static_cast<size_t>(arg->type_param)].name +
                              "' is " + DataTypeName(*bound) + " here");
    }
    // dims NULL (dim_count 0): not even the rank is known.
    std::optional<Shape> shape;
    if (dims != nullptr) {
      std::vector<int64_t> d(dims, dims + dim_count);
      for (int64_t v : d) {
        if (v < -1) ThrowInvalidArgument("dims", "dimension " + std::to_string(v) + " is below -1");
      }
      shape = Shape(std::move(d));
    }
    // The copy first (it may fail); nothing after it can, so a failure changes nothing.
    c.outputs[index] = {t, shape, nullptr, std::nullopt};
    c.ctx->SetOutput(index, t, std::move(shape));
    if (bound != nullptr) *bound = t;
    c.set[index] = true;
  });
}

}  // namespace kiln::api
