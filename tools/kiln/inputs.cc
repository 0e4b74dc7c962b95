#include "inputs.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "args.h"
#include "elements.h"
#include "model_stats.h"
#include "tensor_file.h"

namespace kiln::cli {
namespace {

// SplitMix64: a small generator whose output is fixed by its definition, unlike the standard
// library's distributions, so a seed gives the same tensor everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) on a grid of 2^(bits-1) steps per unit, so that every value is exact in a
  // floating-point type with at least bits-1 mantissa bits.
  double Signed(int bits) {
    const double u = static_cast<double>(Next() >> (64 - bits)) / static_cast<double>(1ull << bits);
    return 2.0 * u - 1.0;
  }
  uint64_t Below10() { return ((Next() >> 32) * 10) >> 32; }

 private:
  uint64_t state_;
};

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

template <typename T, typename F>
void Fill(kiln::Value& value, size_t count, F&& make) {
  if (count == 0) return;
  T* data = value.data<T>();
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<T>(make());
}

}  // namespace

std::vector<InputSpec> ParseInputSpecs(const std::vector<std::string>& raw) {
  std::vector<InputSpec> specs;
  for (const std::string& r : raw) {
    const size_t eq = r.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == r.size()) {
      throw UsageError("--input '" + r + "' is not NAME=FILE");
    }
    InputSpec spec{r.substr(0, eq), r.substr(eq + 1)};
    for (const InputSpec& earlier : specs) {
      if (earlier.name == spec.name) {
        throw UsageError("--input '" + spec.name + "' is given more than once ('" + earlier.path +
                         "' and '" + spec.path + "')");
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

kiln::Value RandomTensor(KilnElementType type, std::vector<int64_t> dims, uint64_t seed,
                         const std::string& name) {
  for (int64_t& d : dims) {
    if (d < 0) d = 1;
  }
  kiln::Value value = kiln::Value::CreateTensor(kiln::Allocator::Default(), dims, type);
  const size_t n = value.type_and_shape().element_count();
  Random r(seed ^ Fnv1a(name));
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
      Fill<float>(value, n, [&] { return static_cast<float>(r.Signed(24)); });
      break;
    case KILN_ELEMENT_TYPE_DOUBLE:
      Fill<double>(value, n, [&] { return r.Signed(53); });
      break;
    case KILN_ELEMENT_TYPE_FLOAT16:
      Fill<uint16_t>(value, n, [&] { return FloatToHalf(static_cast<float>(r.Signed(11))); });
      break;
    case KILN_ELEMENT_TYPE_BFLOAT16:
      Fill<uint16_t>(value, n, [&] { return FloatToBFloat16(static_cast<float>(r.Signed(8))); });
      break;
    case KILN_ELEMENT_TYPE_INT8:
      Fill<int8_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_INT16:
      Fill<int16_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_INT32:
      Fill<int32_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_INT64:
      Fill<int64_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_UINT8:
      Fill<uint8_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_UINT16:
      Fill<uint16_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_UINT32:
      Fill<uint32_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_UINT64:
      Fill<uint64_t>(value, n, [&] { return r.Below10(); });
      break;
    case KILN_ELEMENT_TYPE_BOOL:
      Fill<uint8_t>(value, n, [&] { return r.Next() >> 63; });
      break;
    case KILN_ELEMENT_TYPE_STRING: {
      std::vector<std::string> strings(n);
      for (std::string& s : strings) s = std::to_string(r.Below10());
      value.fill_strings(strings);
      break;
    }
    default:
      throw Error("cannot make random " + ElementTypeName(type) + " values for input '" + name +
                  "': give it with --input " + name + "=FILE");
  }
  return value;
}

namespace {

bool HasNonTensorValues(const kiln::Session& session) {
  for (size_t i = 0; i < session.input_count(); ++i) {
    const KilnValueType kind = session.input_value_type(i);
    if (kind == KILN_VALUE_TYPE_SEQUENCE || kind == KILN_VALUE_TYPE_OPTIONAL) return true;
  }
  for (size_t i = 0; i < session.output_count(); ++i) {
    const KilnValueType kind = session.output_value_type(i);
    if (kind == KILN_VALUE_TYPE_SEQUENCE || kind == KILN_VALUE_TYPE_OPTIONAL) return true;
  }
  return false;
}

// Throws Error when a tensor read from `path` for input `name` has a shape the input's declared
// one does not allow: another rank, or another size where a dimension is fixed. (A declared
// scalar is left to Run: the C ABI reports an unknown rank as rank 0 too.)
void CheckShape(const std::string& name, const kiln::TensorTypeAndShapeInfo& declared,
                const kiln::Value& value, const std::string& path) {
  const std::vector<int64_t> want = declared.shape();
  if (want.empty()) return;
  const std::vector<int64_t> got = value.type_and_shape().shape();
  bool fits = got.size() == want.size();
  for (size_t d = 0; fits && d < want.size(); ++d) fits = want[d] < 0 || want[d] == got[d];
  if (!fits) {
    throw Error("input '" + name + "' expects shape " + ShapeText(want, declared.symbolic_shape()) +
                " but '" + path + "' holds " + ShapeText(got, {}));
  }
}

// The value of one input read from `path`, checked against what the model declares.
kiln::Value LoadInput(const std::string& name, KilnValueType kind,
                      const kiln::TensorTypeAndShapeInfo& info, const std::string& path,
                      const onnx::ModelProto* model) {
  const KilnElementType declared = info.element_type();
  if (kind == KILN_VALUE_TYPE_SEQUENCE || kind == KILN_VALUE_TYPE_OPTIONAL) {
    try {
      if (kind == KILN_VALUE_TYPE_SEQUENCE) return LoadSequenceFile(path, declared);
      return LoadOptionalFile(path, DeclaresOptionalSequence(*model, name, false), declared);
    } catch (const Error& e) {
      throw Error("input '" + name + "': " + e.what());
    }
  }
  kiln::Value value;
  try {
    value = LoadTensorFile(path);
  } catch (const Error& e) {
    throw Error("input '" + name + "': " + e.what());
  }
  const KilnElementType type = value.type_and_shape().element_type();
  if (declared != KILN_ELEMENT_TYPE_UNDEFINED && type != declared) {
    throw Error("input '" + name + "' is " + ElementTypeName(declared) + " but '" + path +
                "' holds " + ElementTypeName(type));
  }
  if (kind == KILN_VALUE_TYPE_TENSOR) CheckShape(name, info, value, path);
  return value;
}

}  // namespace

std::optional<onnx::ModelProto> DeclarationsIfNeeded(const kiln::Session& session,
                                                     const std::string& path) {
  if (!HasNonTensorValues(session)) return std::nullopt;
  return LoadModelProto(path);
}

Inputs PrepareInputs(const kiln::Session& session, const std::vector<InputSpec>& specs,
                     uint64_t seed, const onnx::ModelProto* model) {
  const std::vector<std::string> names = session.input_names();
  std::vector<const InputSpec*> given(names.size(), nullptr);
  for (const InputSpec& spec : specs) {
    size_t k = 0;
    while (k < names.size() && names[k] != spec.name) ++k;
    if (k == names.size()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw Error("--input '" + spec.name + "': the model has no input of that name (its inputs: " +
                  (list.empty() ? "none" : list) + ")");
    }
    if (given[k] != nullptr) throw Error("--input '" + spec.name + "' is given more than once");
    given[k] = &spec;
  }
  Inputs in;
  for (size_t i = 0; i < names.size(); ++i) {
    const KilnValueType kind = session.input_value_type(i);
    if (kind == KILN_VALUE_TYPE_MAP) {
      throw Error("input '" + names[i] + "' is a map: map inputs are not supported");
    }
    if (kind != KILN_VALUE_TYPE_TENSOR && kind != KILN_VALUE_TYPE_UNKNOWN && model == nullptr) {
      throw Error("input '" + names[i] + "': the model file is needed for a non-tensor input");
    }
    // For a sequence or an optional, the element type and shape of the tensors in it.
    const kiln::TensorTypeAndShapeInfo info = session.input_tensor_info(i);
    const KilnElementType declared = info.element_type();
    if (given[i] != nullptr) {
      in.values.push_back(LoadInput(names[i], kind, info, given[i]->path, model));
      in.sources.push_back(given[i]->path);
      in.names.push_back(names[i]);
      continue;
    }
    if (declared == KILN_ELEMENT_TYPE_UNDEFINED) {
      throw Error("input '" + names[i] + "' declares no element type, so no random values can " +
                  "be made for it: give it with --input " + names[i] + "=FILE");
    }
    if (kind == KILN_VALUE_TYPE_OPTIONAL) {
      const bool holds_sequence = DeclaresOptionalSequence(*model, names[i], false);
      in.values.push_back(kiln::Value::CreateOptional(
          holds_sequence ? KILN_VALUE_TYPE_SEQUENCE : KILN_VALUE_TYPE_TENSOR, declared));
      in.sources.push_back("empty (not given)");
    } else if (kind == KILN_VALUE_TYPE_SEQUENCE) {
      std::vector<int64_t> dims = info.shape();
      if (dims.empty() && !ValueDeclaresRank(*model, names[i], false)) dims = {1};
      std::vector<kiln::Value> one;
      one.push_back(RandomTensor(declared, dims, seed, names[i]));
      in.values.push_back(kiln::Value::CreateSequence(one, declared));
      in.sources.push_back("random (seed " + std::to_string(seed) + ")");
    } else {
      in.values.push_back(RandomTensor(declared, info.shape(), seed, names[i]));
      in.sources.push_back("random (seed " + std::to_string(seed) + ")");
    }
    in.names.push_back(names[i]);
  }
  return in;
}

}  // namespace kiln::cli
