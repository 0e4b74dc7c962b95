// CustomOpAdapter: a library's KilnCustomOp description read field by field as far as both
// sides know it (struct_size), checked and copied.
#include "api/custom_op.h"

#include <climits>
#include <cstddef>
#include <cstring>
#include <set>

#include "api/entries.h"
#include "api/status.h"
#include "kernels/registry.h"

namespace kiln::api {
namespace {

// Limits that keep a garbage count from turning into a huge allocation or read.
constexpr size_t kMaxStructSize = 4096;
constexpr size_t kMaxArgs = 1024;
constexpr size_t kMaxTypeParams = 64;
constexpr size_t kMaxAllowedTypes = 64;
constexpr size_t kMaxListDefault = size_t{1} << 20;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

// The sizes a struct may have up to Kiln's own: where each of its fields ends, from the last one
// without which it means nothing (a shorter struct, an older library's, lacks the fields after
// it), each as it is and rounded up to the struct's alignment (as sizeof an older struct ending
// there would be).
struct Layout {
  std::vector<size_t> ends;
  size_t align;

  bool Allows(size_t size) const {
    for (size_t e : ends) {
      if (size == e || size == (e + align - 1) / align * align) return true;
    }
    return false;
  }
};

#define KILN_FIELD_END(T, f) (offsetof(T, f) + sizeof(T::f))

// A struct the library filled, `declared` (its struct_size) bytes long: the first
// min(declared, sizeof(T)) bytes copied over a zeroed T, so fields an older library lacks read as
// zero ("absent"). Up to sizeof(T) it must end where one of its fields does (`layout`); past it
// (a newer library's) the bytes Kiln does not know must be zero: a field set there is a feature
// this Kiln cannot honour.
template <class T>
T ReadVersioned(const void* p, const Layout& layout, const std::string& what) {
  size_t declared = 0;
  std::memcpy(&declared, p, sizeof declared);
  if ((declared <= sizeof(T) && !layout.Allows(declared)) || declared > kMaxStructSize) {
    Bad(what + ": struct_size " + std::to_string(declared) +
        " is not a size this Kiln reads (one that ends at a field, from " +
        std::to_string(layout.ends.front()) + " to this Kiln's " + std::to_string(sizeof(T)) +
        ", or larger up to " + std::to_string(kMaxStructSize) + ")");
  }
  T out;
  std::memset(static_cast<void*>(&out), 0, sizeof out);
  std::memcpy(static_cast<void*>(&out), p, declared < sizeof(T) ? declared : sizeof(T));
  const auto* bytes = static_cast<const unsigned char*>(p);
  for (size_t i = sizeof(T); i < declared; ++i) {
    if (bytes[i] != 0) {
      throw Error(ErrorCode::kNotImplemented,
                  what + ": the field at byte " + std::to_string(i) + " (past the " +
                      std::to_string(sizeof(T)) + " bytes this Kiln knows; struct_size " +
                      std::to_string(declared) +
                      ") is set: the library uses a feature of a newer Kiln");
    }
  }
  return out;
}

// Element k of an array of library structs: each as long as the first says it is.
template <class T>
T ReadElement(const void* array, size_t k, const Layout& layout, const std::string& what) {
  size_t stride = 0;
  std::memcpy(&stride, array, sizeof stride);
  const void* p = static_cast<const char*>(array) + k * stride;
  size_t own = 0;
  std::memcpy(&own, p, sizeof own);
  if (own != stride) {
    Bad(what + ": struct_size " + std::to_string(own) + " differs from the first element's " +
        std::to_string(stride) + " (every element of an array must have one size)");
  }
  return ReadVersioned<T>(p, layout, what);
}

// Each struct's layout: the fields through which it means something, then the later ones.
const Layout& OpLayout() {
  static const Layout kLayout{
      {KILN_FIELD_END(KilnCustomOp, Compute), KILN_FIELD_END(KilnCustomOp, DestroyKernel),
       KILN_FIELD_END(KilnCustomOp, ReleaseOpState)},
      alignof(KilnCustomOp)};
  return kLayout;
}

const Layout& TypeParamLayout() {
  static const Layout kLayout{{KILN_FIELD_END(KilnCustomOpTypeParam, allowed_type_count)},
                              alignof(KilnCustomOpTypeParam)};
  return kLayout;
}

const Layout& ArgLayout() {
  static const Layout kLayout{
      {KILN_FIELD_END(KilnCustomOpArg, type_param), KILN_FIELD_END(KilnCustomOpArg, element_type),
       KILN_FIELD_END(KilnCustomOpArg, kind)},
      alignof(KilnCustomOpArg)};
  return kLayout;
}

const Layout& AttributeLayout() {
  static const Layout kLayout{
      {KILN_FIELD_END(KilnCustomOpAttribute, type), KILN_FIELD_END(KilnCustomOpAttribute, required),
       KILN_FIELD_END(KilnCustomOpAttribute, default_int),
       KILN_FIELD_END(KilnCustomOpAttribute, default_float),
       KILN_FIELD_END(KilnCustomOpAttribute, default_string),
       KILN_FIELD_END(KilnCustomOpAttribute, default_ints),
       KILN_FIELD_END(KilnCustomOpAttribute, default_floats),
       KILN_FIELD_END(KilnCustomOpAttribute, default_strings),
       KILN_FIELD_END(KilnCustomOpAttribute, default_count)},
      alignof(KilnCustomOpAttribute)};
  return kLayout;
}

template <class Enum>
int IntOf(const Enum& e) noexcept {
  return EnumValue(e);
}

std::string Text(const char* s, const std::string& what, bool allow_empty = false) {
  if (s == nullptr) Bad(what + " is NULL");
  std::string t(s);
  if (t.empty() && !allow_empty) Bad(what + " is empty");
  return t;
}

DataType ElementType(int v, const std::string& what) {
  if (v < 1 || v > kMaxDataType) {
    Bad(what + " " + std::to_string(v) + " is not a KilnElementType (1 to " +
        std::to_string(kMaxDataType) + ")");
  }
  return static_cast<DataType>(v);
}

void CheckCount(const void* array, size_t count, size_t max, const std::string& what) {
  if (count > max) {
    Bad(what + "_count " + std::to_string(count) + " exceeds this Kiln's limit of " +
        std::to_string(max));
  }
  if (count > 0 && array == nullptr) Bad(what + " is NULL but " + what + "_count is not 0");
}

// "<at> ('<name>'): <what>", for messages about one argument.
std::string ArgText(const std::string& at, const std::string& name, const std::string& what) {
  return at + " ('" + name + "'): " + what;
}

std::vector<CustomArg> ReadArgs(const KilnCustomOpArg* array, size_t count,
                                const std::vector<CustomTypeParam>& params,
                                const std::string& what) {
  CheckCount(array, count, kMaxArgs, what);
  std::vector<CustomArg> args;
  for (size_t k = 0; k < count; ++k) {
    const std::string at = what + "[" + std::to_string(k) + "]";
    const auto a = ReadElement<KilnCustomOpArg>(array, k, ArgLayout(), at);
    CustomArg arg;
    arg.name = Text(a.name, at + ".name");
    if (a.type_param != nullptr) {
      const std::string p(a.type_param);
      for (size_t i = 0; i < params.size() && arg.type_param < 0; ++i) {
        if (params[i].name == p) arg.type_param = static_cast<int>(i);
      }
      if (arg.type_param < 0) {
        Bad(ArgText(at, arg.name, "type_param '" + p + "' is not a type parameter of the op"));
      }
    } else {
      arg.fixed = ElementType(IntOf(a.element_type),
                              ArgText(at, arg.name, "with no type_param, element_type"));
    }
    const int kind = IntOf(a.kind);
    if (kind < KILN_CUSTOM_OP_ARG_REQUIRED || kind > KILN_CUSTOM_OP_ARG_VARIADIC) {
      Bad(at + " ('" + arg.name + "'): kind " + std::to_string(kind) +
          " is not a KilnCustomOpArgKind");
    }
    arg.kind = static_cast<KilnCustomOpArgKind>(kind);
    if (arg.kind == KILN_CUSTOM_OP_ARG_VARIADIC && k + 1 != count) {
      Bad(at + " ('" + arg.name + "'): only the last argument may be variadic");
    }
    args.push_back(std::move(arg));
  }
  return args;
}

CustomAttr ReadAttribute(const KilnCustomOpAttribute& a, const std::string& at) {
  CustomAttr attr;
  ir::Attribute& v = attr.value;
  v.name = Text(a.name, at + ".name");
  attr.required = a.required != 0;
  const int type = IntOf(a.type);
  const std::string named = at + " ('" + v.name + "')";
  auto list = [&](const void* values) {
    if (a.default_count > kMaxListDefault) {
      Bad(named + ": default_count " + std::to_string(a.default_count) + " exceeds the limit of " +
          std::to_string(kMaxListDefault));
    }
    if (a.default_count > 0 && values == nullptr) {
      Bad(named + ": default_count is " + std::to_string(a.default_count) +
          " but its default list is NULL");
    }
  };
  switch (type) {
    case KILN_ATTRIBUTE_FLOAT:
      v.type = ir::AttrType::kFloat;
      v.f = a.default_float;
      break;
    case KILN_ATTRIBUTE_INT:
      v.type = ir::AttrType::kInt;
      v.i = a.default_int;
      break;
    case KILN_ATTRIBUTE_STRING:
      v.type = ir::AttrType::kString;
      if (a.default_string != nullptr) v.s = a.default_string;
      break;
    case KILN_ATTRIBUTE_FLOATS:
      v.type = ir::AttrType::kFloats;
      list(a.default_floats);
      if (a.default_count > 0)
        v.floats.assign(a.default_floats, a.default_floats + a.default_count);
      break;
    case KILN_ATTRIBUTE_INTS:
      v.type = ir::AttrType::kInts;
      list(a.default_ints);
      if (a.default_count > 0) v.ints.assign(a.default_ints, a.default_ints + a.default_count);
      break;
    case KILN_ATTRIBUTE_STRINGS:
      v.type = ir::AttrType::kStrings;
      list(a.default_strings);
      for (size_t i = 0; i < a.default_count; ++i) {
        v.strings.push_back(Text(a.default_strings[i],
                                 named + ": default_strings[" + std::to_string(i) + "]", true));
      }
      break;
    default:
      Bad(named + ": type " + std::to_string(type) +
          " is not a KilnAttributeType (FLOAT, INT, STRING, FLOATS, INTS or STRINGS)");
  }
  return attr;
}

}  // namespace

std::shared_ptr<CustomOpAdapter> CustomOpAdapter::FromDescription(
    const KilnCustomOp* desc, std::shared_ptr<runtime::SharedLibrary> library, std::string origin) {
  if (desc == nullptr) ThrowInvalidArgument("op", "is NULL");
  std::shared_ptr<CustomOpAdapter> op(new CustomOpAdapter());
  op->origin_ = std::move(origin);
  // The fields through Compute are the least a description can have.
  // The op's name, for the size checks' messages, when the struct reaches it.
  std::string what = "KilnCustomOp";
  size_t declared = 0;
  std::memcpy(&declared, desc, sizeof declared);
  if (declared >= KILN_FIELD_END(KilnCustomOp, name) && declared <= kMaxStructSize) {
    const char* name = nullptr;
    std::memcpy(static_cast<void*>(&name),
                reinterpret_cast<const char*>(desc) + offsetof(KilnCustomOp, name), sizeof name);
    if (name != nullptr) what += " '" + std::string(name) + "'";
  }
  const auto d = ReadVersioned<KilnCustomOp>(desc, OpLayout(), what);
  what = "KilnCustomOp";
  if (d.abi_version < 1) {
    Bad(what + ": abi_version " + std::to_string(d.abi_version) +
        " is not a version (KILN_CUSTOM_OP_ABI_VERSION: 1 and up)");
  }
  op->domain_ = Text(d.domain, what + ".domain", true);
  if (op->domain_ == "ai.onnx") op->domain_.clear();
  op->name_ = Text(d.name, what + ".name");
  const std::string named = what + " '" + op->name_ + "'";
  if (d.since_version < 0 || d.until_version < 0) {
    Bad(named + ": since_version and until_version must not be negative");
  }
  op->since_ = d.since_version == 0 ? 1 : d.since_version;
  op->until_ = d.until_version == 0 ? INT_MAX : d.until_version;
  if (op->since_ > op->until_) {
    Bad(named + ": since_version " + std::to_string(op->since_) + " is past until_version " +
        std::to_string(op->until_));
  }
  op->overrides_ = d.overrides_builtin != 0;
  if (op->domain_ == "ai.kiln" || op->domain_.rfind("ai.kiln.override.", 0) == 0) {
    Bad(named + ": domain '" + op->domain_ +
        "' is Kiln's own (its internal ops, which the optimizer makes); choose another");
  }
  if (!op->overrides_ && CpuKernels().Knows(op->domain_, op->name_)) {
    Bad(named + ": op '" + op->name_ + "' of domain '" +
        (op->domain_.empty() ? std::string("ai.onnx") : op->domain_) +
        "' is one of Kiln's own; set overrides_builtin to replace it");
  }

  CheckCount(d.type_params, d.type_param_count, kMaxTypeParams, named + ": type_param");
  for (size_t k = 0; k < d.type_param_count; ++k) {
    const std::string at = named + ": type_params[" + std::to_string(k) + "]";
    const auto t = ReadElement<KilnCustomOpTypeParam>(d.type_params, k, TypeParamLayout(), at);
    CustomTypeParam p;
    p.name = Text(t.name, at + ".name");
    for (const auto& other : op->type_params_) {
      if (other.name == p.name) Bad(at + ": the name '" + p.name + "' is used twice");
    }
    if (t.allowed_type_count == 0) Bad(at + " ('" + p.name + "'): allowed_type_count is 0");
    CheckCount(t.allowed_types, t.allowed_type_count, kMaxAllowedTypes,
               at + " ('" + p.name + "'): allowed_type");
    for (size_t i = 0; i < t.allowed_type_count; ++i) {
      p.allowed.push_back(
          ElementType(IntOf(t.allowed_types[i]),
                      at + " ('" + p.name + "'): allowed_types[" + std::to_string(i) + "]"));
    }
    op->type_params_.push_back(std::move(p));
  }
  op->inputs_ = ReadArgs(d.inputs, d.input_count, op->type_params_, named + ": input");
  if (d.output_count == 0) Bad(named + ": output_count is 0 (an op has at least one output)");
  op->outputs_ = ReadArgs(d.outputs, d.output_count, op->type_params_, named + ": output");
  for (size_t i = 0; i < op->type_params_.size(); ++i) {
    bool used = false;
    for (const auto* args : {&op->inputs_, &op->outputs_}) {
      for (const CustomArg& a : *args) used = used || a.type_param == static_cast<int>(i);
    }
    if (!used) {
      Bad(named + ": type parameter '" + op->type_params_[i].name + "' is bound to no argument");
    }
  }
  CheckCount(d.attributes, d.attribute_count, kMaxArgs, named + ": attribute");
  std::set<std::string> attribute_names;
  for (size_t k = 0; k < d.attribute_count; ++k) {
    const std::string at = named + ": attributes[" + std::to_string(k) + "]";
    const auto a = ReadElement<KilnCustomOpAttribute>(d.attributes, k, AttributeLayout(), at);
    CustomAttr attr = ReadAttribute(a, at);
    if (!attribute_names.insert(attr.value.name).second) {
      Bad(at + ": the name '" + attr.value.name + "' is used twice");
    }
    op->attributes_.push_back(std::move(attr));
  }
  if (d.Compute == nullptr) Bad(named + ": Compute is NULL (it is required)");
  op->callbacks_ = {d.op_state, d.InferShapes,   d.CreateKernel,
                    d.Compute,  d.DestroyKernel, d.ReleaseOpState};
  op->library_ = std::move(library);  // only now: a failure above releases nothing of the op's
  return op;
}

CustomOpAdapter::~CustomOpAdapter() {
  if (callbacks_.release == nullptr) return;
  try {
    CallLibrary([&] { return Describe() + ": ReleaseOpState"; },
                [&] { return callbacks_.release(callbacks_.op_state); });
  } catch (const std::exception& e) {
    LogProcess(LogLevel::kError, "kiln.custom_op", KILN_LOCATION, e.what());
  }
}

std::string CustomOpAdapter::Describe() const {
  return origin_ + ": op '" + name_ + "' of domain '" +
         (domain_.empty() ? std::string("ai.onnx") : domain_) + "'";
}

const CustomArg* CustomOpAdapter::InputArg(size_t i) const noexcept {
  if (i < inputs_.size()) return &inputs_[i];
  if (!inputs_.empty() && inputs_.back().kind == KILN_CUSTOM_OP_ARG_VARIADIC)
    return &inputs_.back();
  return nullptr;
}

const CustomArg* CustomOpAdapter::OutputArg(size_t i) const noexcept {
  if (i < outputs_.size()) return &outputs_[i];
  if (outputs_.back().kind == KILN_CUSTOM_OP_ARG_VARIADIC) return &outputs_.back();
  return nullptr;
}

void ThrowIfFailed(KilnStatus* status, const std::string& what) {
  if (status == nullptr) return;
  if (status != OutOfMemoryStatus() && registry::Find(status) != HandleKind::kStatus) {
    throw Error(ErrorCode::kFail,
                what +
                    " returned a pointer that is not a KilnStatus (statuses are made with "
                    "KilnApi::CreateStatus)");
  }
  int code = status->code;
  if (code <= KILN_OK || code > KILN_TERMINATED) code = KILN_FAIL;
  struct Release {
    KilnStatus* s;
    ~Release() { ReleaseStatus(s); }
  } release{status};
  throw Error(static_cast<ErrorCode>(code),
              what + " failed: " + (status->message != nullptr ? status->message : ""));
}

}  // namespace kiln::api
