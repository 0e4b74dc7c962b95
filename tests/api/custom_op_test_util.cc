#include "custom_op_test_util.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace kiln_test {

void KILN_API_CALL CapturedLog::Sink(void* self, KilnLoggingLevel severity, const char* category,
                                     const char*, const char*, const char* message) {
  auto* log = static_cast<CapturedLog*>(self);
  std::lock_guard<std::mutex> lock(log->mutex_);
  log->entries_.push_back({severity, category, message});
}

std::vector<CapturedLog::Entry> CapturedLog::Entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

std::vector<std::string> CapturedLog::Containing(const std::string& text) const {
  std::vector<std::string> found;
  for (const Entry& e : Entries()) {
    if (e.message.find(text) != std::string::npos) found.push_back(e.message);
  }
  return found;
}

std::string CapturedLog::All() const {
  std::string all = "logged:\n";
  for (const Entry& e : Entries()) all += "  [" + e.category + "] " + e.message + "\n";
  return all;
}

TestEnv::TestEnv(CapturedLog* log) {
  if (log == nullptr) {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "custom-op-test", &env_));
  } else {
    ExpectOk(api().CreateEnvWithCustomLogger(&CapturedLog::Sink, log, KILN_LOGGING_LEVEL_VERBOSE,
                                             "custom-op-test", &env_));
  }
}

TestEnv::~TestEnv() {
  api().ReleaseEnv(env_);
}

Options::Options() {
  ExpectOk(api().CreateSessionOptions(&options_));
}

Options::~Options() {
  api().ReleaseSessionOptions(options_);
}

KilnStatus* MakeSession(KilnEnv* env, const std::string& model, KilnSessionOptions* options,
                        KilnSession** out) {
  return api().CreateSessionFromArray(env, model.data(), model.size(), options, out);
}

Ran RunX(KilnSession* session, const std::vector<int64_t>& dims, const std::vector<float>& x,
         const KilnRunOptions* run_options) {
  Ran r;
  KilnAllocator* allocator = nullptr;
  KilnValue* in = nullptr;
  KilnValue* out = nullptr;
  KilnTensorTypeAndShapeInfo* info = nullptr;
  void* data = nullptr;
  r.status = api().GetAllocatorWithDefaultOptions(&allocator);
  if (r.status == nullptr) {
    r.status = api().CreateTensorAsValue(allocator, dims.data(), dims.size(),
                                         KILN_ELEMENT_TYPE_FLOAT, &in);
  }
  if (r.status == nullptr) r.status = api().GetTensorMutableData(in, &data);
  if (r.status == nullptr) {
    if (!x.empty()) std::memcpy(data, x.data(), x.size() * sizeof(float));
    const char* in_names[] = {"x"};
    const char* out_names[] = {"y"};
    r.status = api().Run(session, run_options, in_names, &in, 1, out_names, 1, &out);
  }
  size_t rank = 0;
  size_t count = 0;
  if (r.status == nullptr) r.status = api().GetTensorTypeAndShape(out, &info);
  if (r.status == nullptr) r.status = api().GetDimensionsCount(info, &rank);
  if (r.status == nullptr) {
    r.dims.resize(rank);
    r.status = api().GetDimensions(info, r.dims.data(), rank);
  }
  if (r.status == nullptr) r.status = api().GetTensorShapeElementCount(info, &count);
  if (r.status == nullptr) r.status = api().GetTensorMutableData(out, &data);
  if (r.status == nullptr) {
    const float* y = static_cast<const float*>(data);
    r.y.assign(y, y + count);
  } else {
    r.dims.clear();
  }
  api().ReleaseTensorTypeAndShapeInfo(info);
  api().ReleaseValue(out);
  api().ReleaseValue(in);
  return r;
}

Failure Take(KilnStatus* status) {
  Failure f;
  if (status == nullptr) return f;
  f.code = api().GetErrorCode(status);
  f.message = api().GetErrorMessage(status);
  api().ReleaseStatus(status);
  return f;
}

void ExpectMentions(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "the message does not mention \"" << part << "\": " << message;
  }
}

bool Loaded(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

Counts Counts::operator-(const Counts& o) const {
  return {infer_shapes - o.infer_shapes, create_kernel - o.create_kernel, compute - o.compute,
          destroy_kernel - o.destroy_kernel, release_op_state - o.release_op_state};
}

Pin::Pin(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
  if (handle_ == nullptr) {
    ADD_FAILURE() << "cannot open " << path << ": " << dlerror();
    return;
  }
  calls_ = reinterpret_cast<long (*)(const char*)>(dlsym(handle_, "KilnTestOpsCalls"));
  EXPECT_NE(calls_, nullptr) << path << " exports no KilnTestOpsCalls";
}

Pin::~Pin() {
  if (handle_ != nullptr) dlclose(handle_);
}

Counts Pin::Calls() const {
  Counts c;
  if (calls_ == nullptr) return c;
  c.infer_shapes = calls_("InferShapes");
  c.create_kernel = calls_("CreateKernel");
  c.compute = calls_("Compute");
  c.destroy_kernel = calls_("DestroyKernel");
  c.release_op_state = calls_("ReleaseOpState");
  return c;
}

// ---- Twice, an op of the program ---------------------------------------------------------------

namespace {

std::atomic<long> g_twice_releases{0};

KilnStatus* KILN_API_CALL TwiceCompute(void*, KilnKernelContext* ctx) {
  const KilnValue* x = nullptr;
  KilnValue* y = nullptr;
  KilnTensorTypeAndShapeInfo* info = nullptr;
  int64_t dims[8];
  size_t rank = 0;
  size_t count = 0;
  void* from = nullptr;
  void* to = nullptr;
  KilnStatus* s = api().KernelContextGetInput(ctx, 0, &x);
  if (s == nullptr) s = api().GetTensorTypeAndShape(x, &info);
  if (s == nullptr) s = api().GetDimensionsCount(info, &rank);
  if (s == nullptr && rank > 8) s = api().CreateStatus(KILN_INVALID_ARGUMENT, "rank > 8");
  if (s == nullptr) s = api().GetDimensions(info, dims, rank);
  if (s == nullptr) s = api().GetTensorShapeElementCount(info, &count);
  api().ReleaseTensorTypeAndShapeInfo(info);
  if (s == nullptr) s = api().KernelContextGetOutput(ctx, 0, dims, rank, &y);
  if (s == nullptr) s = api().GetTensorMutableData(const_cast<KilnValue*>(x), &from);
  if (s == nullptr) s = api().GetTensorMutableData(y, &to);
  for (size_t i = 0; s == nullptr && i < count; ++i) {
    static_cast<float*>(to)[i] = 2.0f * static_cast<const float*>(from)[i];
  }
  return s;
}

KilnStatus* KILN_API_CALL TwiceRelease(void*) {
  ++g_twice_releases;
  return nullptr;
}

}  // namespace

KilnStatus* KILN_API_CALL RegisterTwice(KilnCustomOpRegistry* registry, const KilnApiBase* base) {
  static const KilnElementType kFloat[] = {KILN_ELEMENT_TYPE_FLOAT};
  static const KilnCustomOpTypeParam kT[] = {{sizeof(KilnCustomOpTypeParam), "T", kFloat, 1}};
  static const KilnCustomOpArg kX[] = {{sizeof(KilnCustomOpArg), "X", "T",
                                        KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
  static const KilnCustomOpArg kY[] = {{sizeof(KilnCustomOpArg), "Y", "T",
                                        KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
  KilnCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = kProgramDomain;
  op.name = "Twice";
  op.type_params = kT;
  op.type_param_count = 1;
  op.inputs = kX;
  op.input_count = 1;
  op.outputs = kY;
  op.output_count = 1;
  op.Compute = &TwiceCompute;
  op.ReleaseOpState = &TwiceRelease;
  return base->GetApi(KILN_API_VERSION)->CustomOpRegistryAdd(registry, &op);
}

long TwiceReleases() {
  return g_twice_releases.load();
}

}  // namespace kiln_test
