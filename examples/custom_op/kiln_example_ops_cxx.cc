// An example custom-operator library for Kiln, in C++17: one op in the domain
// "ai.kiln.example_cxx", opset 1.
//
//   Bucketize(X) -> Y   Y[i] = how many of `boundaries` are <= X[i]: the index of the bucket X[i]
//                       falls in, as numpy.searchsorted(boundaries, X, side="right") (TensorFlow's
//                       Bucketize). X: tensor(T), T float or double, any shape. Y: tensor(int64),
//                       X's shape. FLOATS attribute `boundaries` (required): ascending, no NaN;
//                       it is checked once, when the session is created. A NaN falls in the last
//                       bucket, as numpy puts it.
//
// What a C++ library does differently from a C one (kiln_example_ops.c):
// - Kiln's callbacks are C functions: no exception may leave one. Every callback body runs inside
//   Guard, which turns an exception into a KilnStatus (Error keeps its code; std::bad_alloc is
//   KILN_OUT_OF_MEMORY; anything else KILN_FAIL). Inside, a failed Kiln call is thrown (Check).
// - Kiln's objects are owned RAII-style (TypeInfoPtr, StatusPtr); the kernel is a C++ object
//   made (std::make_unique) in CreateKernel and deleted in DestroyKernel.
// - It is built with -fno-gnu-unique (GCC; see examples/custom_op/CMakeLists.txt). GCC gives the
//   static objects of inline functions and templates the binding STB_GNU_UNIQUE when they have
//   default visibility, and libstdc++ declares namespace std with default visibility, so
//   -fvisibility=hidden does not cover them: without the flag this very file gets two, the digit
//   tables of std::to_string (std::__detail::__to_chars_10_impl<...>::__digits);
//   std::make_shared's _Sp_make_shared_tag::_S_ti()::__tag is another common one. glibc marks a
//   library NODELETE when it is the first in the process to define such a symbol, and dlclose
//   then silently leaves it mapped: Kiln's closing the library after its last session does
//   nothing, and a rebuilt library is not picked up again by that process. (In a Kiln process
//   this file's two are already defined by libdnnl, so whether a library stays would depend on
//   what the host happened to load first.) The flag makes them plain weak symbols; the
//   example_custom_op_readelf test checks that none is left.
// The manual (docs/manual) shows the parts between the marker comments that name them.
#include <kiln/kiln_c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The table, set by KilnRegisterCustomOps before Kiln calls any callback.
const KilnApi* api = nullptr;

constexpr char kDomain[] = "ai.kiln.example_cxx";
constexpr char kOpName[] = "Bucketize";

// ---- Errors across the C boundary ------------------------------------------------------------

// A failure with the code Kiln should report.
class Error : public std::runtime_error {
 public:
  Error(KilnErrorCode code, const std::string& message)
      : std::runtime_error(std::string(kOpName) + ": " + message), code_(code) {}
  KilnErrorCode code() const noexcept { return code_; }

 private:
  KilnErrorCode code_;
};

struct StatusDeleter {
  void operator()(KilnStatus* s) const noexcept { api->ReleaseStatus(s); }
};
using StatusPtr = std::unique_ptr<KilnStatus, StatusDeleter>;

struct TypeInfoDeleter {
  void operator()(KilnTensorTypeAndShapeInfo* p) const noexcept {
    api->ReleaseTensorTypeAndShapeInfo(p);
  }
};
using TypeInfoPtr = std::unique_ptr<KilnTensorTypeAndShapeInfo, TypeInfoDeleter>;

// Throws a failed Kiln call's status as an Error (the status itself is released).
void Check(KilnStatus* status) {
  if (status == nullptr) return;
  const StatusPtr owned(status);
  throw Error(api->GetErrorCode(owned.get()), api->GetErrorMessage(owned.get()));
}

// [guard]
// Runs a callback's body: NULL when it returns, a status when it throws. Never throws itself.
template <class Body>
KilnStatus* Guard(const char* callback, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return api->CreateStatus(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    char message[128];
    std::snprintf(message, sizeof message, "%s: %s: out of memory", kOpName, callback);
    return api->CreateStatus(KILN_OUT_OF_MEMORY, message);
  } catch (const std::exception& e) {
    char message[512];
    std::snprintf(message, sizeof message, "%s: %s: %s", kOpName, callback, e.what());
    return api->CreateStatus(KILN_FAIL, message);
  } catch (...) {
    char message[128];
    std::snprintf(message, sizeof message, "%s: %s: an unknown exception", kOpName, callback);
    return api->CreateStatus(KILN_FAIL, message);
  }
}
// [guard]

// ---- Tensors ---------------------------------------------------------------------------------

struct TensorShape {
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  std::vector<int64_t> dims;  // -1 where not known (shape inference only)
};

TensorShape Describe(const KilnTensorTypeAndShapeInfo* info) {
  TensorShape s;
  size_t rank = 0;
  Check(api->GetTensorElementType(info, &s.type));
  Check(api->GetDimensionsCount(info, &rank));
  s.dims.resize(rank);
  Check(api->GetDimensions(info, s.dims.data(), rank));
  return s;
}

// Runs body(begin, end) over [0, total) on the session's threads. The body may throw: each share
// is guarded, and ParallelFor's failure (the first share's) is thrown here.
template <class Body>
void ParallelFor(KilnKernelContext* ctx, size_t total, size_t grain, const Body& body) {
  const KilnParallelForFn share = [](void* data, size_t begin, size_t end) -> KilnStatus* {
    return Guard("Compute", [&] { (*static_cast<const Body*>(data))(begin, end); });
  };
  Check(api->KernelContextParallelFor(ctx, share, const_cast<Body*>(&body), total, grain));
}

// ---- Bucketize -------------------------------------------------------------------------------

class BucketizeKernel {
 public:
  // Reads and checks `boundaries` once, for every run of the node.
  explicit BucketizeKernel(const KilnKernelInfo* info) {
    const float* values = nullptr;
    size_t count = 0;
    Check(api->KernelInfoGetAttributeFloats(info, "boundaries", &values, &count));
    boundaries_.assign(values, values + count);
    for (size_t i = 0; i < count; ++i) {
      if (std::isnan(boundaries_[i])) {
        throw Error(KILN_INVALID_ARGUMENT, "boundaries[" + std::to_string(i) + "] is NaN");
      }
      if (i > 0 && boundaries_[i] < boundaries_[i - 1]) {
        throw Error(KILN_INVALID_ARGUMENT,
                    "boundaries must be ascending, but boundaries[" + std::to_string(i) +
                        "] = " + std::to_string(boundaries_[i]) + " is below boundaries[" +
                        std::to_string(i - 1) + "] = " + std::to_string(boundaries_[i - 1]));
      }
    }
    boundaries_double_.assign(boundaries_.begin(), boundaries_.end());
  }

  void Compute(KilnKernelContext* ctx) const {
    const KilnValue* x = nullptr;
    Check(api->KernelContextGetInput(ctx, 0, &x));
    if (x == nullptr) throw Error(KILN_INVALID_ARGUMENT, "input 0 'X' is missing");
    KilnTensorTypeAndShapeInfo* raw = nullptr;
    Check(api->GetTensorTypeAndShape(x, &raw));
    const TypeInfoPtr info(raw);
    const TensorShape shape = Describe(info.get());
    size_t count = 0;
    Check(api->GetTensorShapeElementCount(info.get(), &count));

    KilnValue* y = nullptr;
    Check(api->KernelContextGetOutput(ctx, 0, shape.dims.data(), shape.dims.size(), &y));
    if (count == 0) return;
    void* in = nullptr;
    void* out = nullptr;
    // The input is only read: the cast drops the const the entry's signature lacks.
    Check(api->GetTensorMutableData(const_cast<KilnValue*>(x), &in));
    Check(api->GetTensorMutableData(y, &out));
    switch (shape.type) {
      case KILN_ELEMENT_TYPE_FLOAT:
        Run(ctx, static_cast<const float*>(in), boundaries_, static_cast<int64_t*>(out), count);
        return;
      case KILN_ELEMENT_TYPE_DOUBLE:
        Run(ctx, static_cast<const double*>(in), boundaries_double_, static_cast<int64_t*>(out),
            count);
        return;
      default:
        throw Error(KILN_INVALID_ARGUMENT, "input 0 'X' has element type " +
                                               std::to_string(static_cast<int>(shape.type)) +
                                               ", neither float nor double");
    }
  }

 private:
  // Elements per check of the terminate flag inside a share, and the least per share.
  static constexpr size_t kBlock = size_t{1} << 16;
  static constexpr size_t kGrain = size_t{1} << 12;

  template <class T>
  static void Run(KilnKernelContext* ctx, const T* x, const std::vector<T>& bounds, int64_t* y,
                  size_t count) {
    ParallelFor(ctx, count, kGrain, [&](size_t begin, size_t end) {
      while (begin < end) {
        int terminated = 0;
        Check(api->KernelContextIsTerminated(ctx, &terminated));
        if (terminated) throw Error(KILN_TERMINATED, "the run was asked to stop");
        const size_t stop = std::min(end, begin + kBlock);
        for (size_t i = begin; i < stop; ++i) {
          // upper_bound: the first boundary above x (none is above a NaN: the last bucket).
          y[i] = std::upper_bound(bounds.begin(), bounds.end(), x[i]) - bounds.begin();
        }
        begin = stop;
      }
    });
  }

  std::vector<float> boundaries_;
  std::vector<double> boundaries_double_;
};

// Y: int64 of X's shape. Y's type is fixed by the description; the shape is set when X's rank
// is known (the context reports an unknown rank as 0, which cannot be told from a scalar, so
// rank 0 leaves the shape to the run).
KilnStatus* KILN_API_CALL BucketizeInferShapes(void* /*op_state*/, KilnShapeInferContext* ctx) {
  return Guard("InferShapes", [&] {
    KilnTensorTypeAndShapeInfo* raw = nullptr;
    Check(api->ShapeInferContextGetInputTypeInfo(ctx, 0, &raw));
    if (raw == nullptr) throw Error(KILN_INVALID_ARGUMENT, "input 0 'X' is missing");
    const TypeInfoPtr info(raw);
    const TensorShape shape = Describe(info.get());
    if (shape.dims.empty()) return;
    Check(api->ShapeInferContextSetOutputTypeInfo(ctx, 0, KILN_ELEMENT_TYPE_INT64,
                                                  shape.dims.data(), shape.dims.size()));
  });
}

KilnStatus* KILN_API_CALL BucketizeCreateKernel(void* /*op_state*/, const KilnKernelInfo* info,
                                                void** kernel) {
  return Guard("CreateKernel", [&] {
    auto made = std::make_unique<BucketizeKernel>(info);
    *kernel = made.release();
  });
}

KilnStatus* KILN_API_CALL BucketizeCompute(void* kernel, KilnKernelContext* ctx) {
  return Guard("Compute", [&] { static_cast<const BucketizeKernel*>(kernel)->Compute(ctx); });
}

KilnStatus* KILN_API_CALL BucketizeDestroyKernel(void* kernel) {
  delete static_cast<BucketizeKernel*>(kernel);
  return nullptr;
}

// ---- The description -------------------------------------------------------------------------

constexpr KilnElementType kRealTypes[] = {KILN_ELEMENT_TYPE_FLOAT, KILN_ELEMENT_TYPE_DOUBLE};

KilnCustomOpTypeParam TypeParam(const char* name, const KilnElementType* types, size_t count) {
  KilnCustomOpTypeParam p{};
  p.struct_size = sizeof p;
  p.name = name;
  p.allowed_types = types;
  p.allowed_type_count = count;
  return p;
}

KilnCustomOpArg Arg(const char* name, const char* type_param, KilnElementType fixed) {
  KilnCustomOpArg a{};
  a.struct_size = sizeof a;
  a.name = name;
  a.type_param = type_param;
  a.element_type = fixed;
  a.kind = KILN_CUSTOM_OP_ARG_REQUIRED;
  return a;
}

KilnCustomOpAttribute RequiredAttribute(const char* name, KilnAttributeType type) {
  KilnCustomOpAttribute a{};
  a.struct_size = sizeof a;
  a.name = name;
  a.type = type;
  a.required = 1;
  return a;
}

}  // namespace

extern "C" KILN_EXPORT KilnStatus* KILN_API_CALL
KilnRegisterCustomOps(KilnCustomOpRegistry* registry, const KilnApiBase* api_base) {
  if (api_base == nullptr) return nullptr;
  api = api_base->GetApi(KILN_API_VERSION);
  // A Kiln too old for this header's table has logged why; with no table there is no way to
  // make a status, and registering nothing fails the registration.
  if (api == nullptr) return nullptr;
  return Guard("KilnRegisterCustomOps", [&] {
    // Kiln copies the description during CustomOpRegistryAdd: locals do.
    const KilnCustomOpTypeParam type_params[] = {
        TypeParam("T", kRealTypes, sizeof kRealTypes / sizeof kRealTypes[0])};
    const KilnCustomOpArg inputs[] = {Arg("X", "T", KILN_ELEMENT_TYPE_UNDEFINED)};
    const KilnCustomOpArg outputs[] = {Arg("Y", nullptr, KILN_ELEMENT_TYPE_INT64)};
    const KilnCustomOpAttribute attributes[] = {
        RequiredAttribute("boundaries", KILN_ATTRIBUTE_FLOATS)};
    KilnCustomOp op{};
    op.struct_size = sizeof op;
    op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
    op.domain = kDomain;
    op.name = kOpName;
    op.since_version = 1;
    op.type_params = type_params;
    op.type_param_count = 1;
    op.inputs = inputs;
    op.input_count = 1;
    op.outputs = outputs;
    op.output_count = 1;
    op.attributes = attributes;
    op.attribute_count = 1;
    op.InferShapes = BucketizeInferShapes;
    op.CreateKernel = BucketizeCreateKernel;
    op.Compute = BucketizeCompute;
    op.DestroyKernel = BucketizeDestroyKernel;
    Check(api->CustomOpRegistryAdd(registry, &op));
  });
}
