// libFuzzer target for the run path (issue 32, part 5): a small model and its input tensors from
// the fuzz input, through the public C ABI -- create a session, feed the inputs, run, read every
// output -- under ASan+UBSan. The model is fuzzed, and so are the inputs' element types, shapes
// and values, whether or not they match what the model declares. Every call must either succeed or
// return a status; any crash, leak, sanitizer report or huge allocation is a bug.
//
// The input (make_run_seeds.py writes the ONNX suites' cases in it):
//   u8      options: bits 0-1 the graph optimization level, bit 2 two intra-op threads, bit 3
//           run twice (the second run reuses what the first planned)
//   u32 LE  n, the model's size; then n bytes of ONNX model (fewer when the input ends first)
//   for each of the session's inputs, in SessionGetInputName order (at most 16):
//     u8    how: bit 0 the model's declared element type, else the next byte picks one
//           (kElementTypes); bit 1 the declared shape (its unknown dimensions a byte each), else
//           u8 rank (mod 7) and a byte per dimension (0-255)
//     the values: each element's bytes in order (strings: u8 length then the bytes); what the
//     input lacks is zeros
// At most 65,536 elements per input; an input beyond it is refused (-1: not kept in the corpus).
//
// Limits a service would set against hostile requests, also set here: the session's memory limit
// (kiln.memory.limit_bytes, 64 MiB), and a watchdog that terminates a run after 2 seconds
// (RunOptionsSetTerminate): a slow model is not a finding, a hang past termination is (libFuzzer's
// -timeout). Termination is seen between nodes, so one node's work must stay well under that
// timeout: at 256 MiB a legal wrap Pad writing 52 million elements took 10-16 s in the fuzz
// build (kernels at -O0, instrumented), near its 20 s.
#include <kiln/kiln_c_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/data_type.h"

namespace {

const KilnApi* api = nullptr;

constexpr size_t kMaxElements = size_t{1} << 16;
constexpr size_t kMaxInputs = 16;

constexpr KilnElementType kElementTypes[] = {
    KILN_ELEMENT_TYPE_FLOAT,        KILN_ELEMENT_TYPE_UINT8,
    KILN_ELEMENT_TYPE_INT8,         KILN_ELEMENT_TYPE_UINT16,
    KILN_ELEMENT_TYPE_INT16,        KILN_ELEMENT_TYPE_INT32,
    KILN_ELEMENT_TYPE_INT64,        KILN_ELEMENT_TYPE_STRING,
    KILN_ELEMENT_TYPE_BOOL,         KILN_ELEMENT_TYPE_FLOAT16,
    KILN_ELEMENT_TYPE_DOUBLE,       KILN_ELEMENT_TYPE_UINT32,
    KILN_ELEMENT_TYPE_UINT64,       KILN_ELEMENT_TYPE_BFLOAT16,
    KILN_ELEMENT_TYPE_FLOAT8E4M3FN, KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ,
    KILN_ELEMENT_TYPE_FLOAT8E5M2,   KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ,
    KILN_ELEMENT_TYPE_UINT4,        KILN_ELEMENT_TYPE_INT4,
    KILN_ELEMENT_TYPE_FLOAT4E2M1,   KILN_ELEMENT_TYPE_FLOAT8E8M0,
    KILN_ELEMENT_TYPE_COMPLEX64,    KILN_ELEMENT_TYPE_COMPLEX128};

// Bytes for n elements (the 4-bit types pack two to a byte), by the library's own rule (the C
// ABI's element types are its DataType values); 0 for strings.
size_t DataBytes(KilnElementType type, size_t n) {
  if (type == KILN_ELEMENT_TYPE_STRING) return 0;
  return kiln::StorageBytes(static_cast<kiln::DataType>(type), n).value_or(0);
}

// The fuzz input, read front to back; past the end it reads zeros.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(Byte()) << (8 * i);
    return v;
  }
  // Up to n bytes of the input (fewer at its end).
  std::pair<const uint8_t*, size_t> Take(size_t n) {
    const size_t got = std::min(n, size_ - pos_);
    const uint8_t* at = data_ + pos_;
    pos_ += got;
    return {at, got};
  }
  void Fill(uint8_t* out, size_t n) {
    if (n == 0) return;  // an empty tensor's data may be NULL
    auto [at, got] = Take(n);
    if (got > 0) std::memcpy(out, at, got);
    std::memset(out + got, 0, n - got);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Releases a status; true when there was none.
bool Ok(KilnStatus* status) {
  if (status == nullptr) return true;
  // The message must be readable whatever the failure.
  volatile size_t length = std::strlen(api->GetErrorMessage(status));
  (void)length;
  api->ReleaseStatus(status);
  return false;
}

template <typename T, void (*kRelease)(T*)>
struct Releaser {
  void operator()(T* p) const { kRelease(p); }
};
void ReleaseValue(KilnValue* v) {
  api->ReleaseValue(v);
}
void ReleaseSession(KilnSession* s) {
  api->ReleaseSession(s);
}
void ReleaseOptions(KilnSessionOptions* o) {
  api->ReleaseSessionOptions(o);
}
void ReleaseInfo(KilnTensorTypeAndShapeInfo* i) {
  api->ReleaseTensorTypeAndShapeInfo(i);
}
using ValuePtr = std::unique_ptr<KilnValue, Releaser<KilnValue, ReleaseValue>>;
using SessionPtr = std::unique_ptr<KilnSession, Releaser<KilnSession, ReleaseSession>>;
using OptionsPtr =
    std::unique_ptr<KilnSessionOptions, Releaser<KilnSessionOptions, ReleaseOptions>>;
using InfoPtr =
    std::unique_ptr<KilnTensorTypeAndShapeInfo, Releaser<KilnTensorTypeAndShapeInfo, ReleaseInfo>>;

// Process-wide state: the Env, the allocator, the run options and the watchdog that terminates a
// run after two seconds.
struct Globals {
  KilnEnv* env = nullptr;
  KilnAllocator* allocator = nullptr;
  KilnRunOptions* run_options = nullptr;
  std::atomic<int64_t> deadline_ns{0};  // 0: no run in progress
  std::thread watchdog;

  Globals() {
    api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
    if (api == nullptr || !Ok(api->CreateEnv(KILN_LOGGING_LEVEL_FATAL, "fuzz", &env)) ||
        !Ok(api->GetAllocatorWithDefaultOptions(&allocator)) ||
        !Ok(api->CreateRunOptions(&run_options)) ||
        !Ok(api->RunOptionsSetRunLogSeverityLevel(run_options, KILN_LOGGING_LEVEL_FATAL))) {
      std::abort();
    }
    watchdog = std::thread([this] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const int64_t deadline = deadline_ns.load();
        if (deadline != 0 && Now() > deadline) Ok(api->RunOptionsSetTerminate(run_options));
      }
    });
    watchdog.detach();
  }
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

Globals& G() {
  static Globals* globals = new Globals;  // never destroyed: the watchdog outlives every run
  return *globals;
}

// One input tensor as `how` and the input say; null when the input asks for too many elements
// or the library refuses the tensor (its status is the expected outcome then).
ValuePtr MakeInput(KilnSession* session, size_t index, Reader& in, bool* too_big) {
  const uint8_t how = in.Byte();
  KilnElementType type = KILN_ELEMENT_TYPE_FLOAT;
  std::vector<int64_t> shape;
  KilnTensorTypeAndShapeInfo* raw_info = nullptr;
  InfoPtr declared;
  if ((how & 3) != 0 && Ok(api->CreateSessionInputTensorInfo(session, index, &raw_info))) {
    declared.reset(raw_info);
  }
  if ((how & 1) != 0 && declared != nullptr) {
    Ok(api->GetTensorElementType(declared.get(), &type));
  } else {
    type = kElementTypes[in.Byte() % std::size(kElementTypes)];
  }
  size_t rank = 0;
  if ((how & 2) != 0 && declared != nullptr && Ok(api->GetDimensionsCount(declared.get(), &rank)) &&
      rank <= 8) {
    shape.resize(rank);
    if (!Ok(api->GetDimensions(declared.get(), shape.data(), rank))) shape.assign(rank, -1);
    for (int64_t& d : shape) {
      if (d < 0) d = in.Byte();
    }
  } else {
    shape.resize(in.Byte() % 7);
    for (int64_t& d : shape) d = in.Byte();
  }
  size_t elements = 1;
  for (int64_t d : shape) {
    elements *= static_cast<size_t>(d);
    if (elements > kMaxElements) {
      *too_big = true;
      return nullptr;
    }
  }
  KilnValue* value = nullptr;
  if (!Ok(api->CreateTensorAsValue(G().allocator, shape.data(), shape.size(), type, &value))) {
    return nullptr;
  }
  ValuePtr owned(value);
  if (type == KILN_ELEMENT_TYPE_STRING) {
    for (size_t i = 0; i < elements; ++i) {
      auto [at, got] = in.Take(in.Byte() % 16);
      const std::string s(reinterpret_cast<const char*>(at), got);
      // Invalid UTF-8 is refused with a status; the element stays empty.
      Ok(api->FillStringTensorElement(value, s.c_str(), i));
    }
  } else {
    void* data = nullptr;
    if (!Ok(api->GetTensorMutableData(value, &data))) return nullptr;
    in.Fill(static_cast<uint8_t*>(data), DataBytes(type, elements));
  }
  return owned;
}

// Reads every output like a caller would: its type, shape and bytes.
void Touch(const KilnValue* value) {
  KilnValueType kind = KILN_VALUE_TYPE_UNKNOWN;
  if (!Ok(api->GetValueType(value, &kind))) return;
  if (kind == KILN_VALUE_TYPE_TENSOR) {
    KilnTensorTypeAndShapeInfo* raw_info = nullptr;
    if (!Ok(api->GetTensorTypeAndShape(value, &raw_info))) return;
    InfoPtr info(raw_info);
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    size_t elements = 0;
    Ok(api->GetTensorElementType(info.get(), &type));
    Ok(api->GetTensorShapeElementCount(info.get(), &elements));
    if (type == KILN_ELEMENT_TYPE_STRING) {
      size_t length = 0;
      Ok(api->GetStringTensorDataLength(value, &length));
      return;
    }
    const void* data = nullptr;
    size_t bytes = 0;
    if (Ok(api->GetTensorData(value, &data)) && Ok(api->GetTensorSizeInBytes(value, &bytes)) &&
        data != nullptr) {
      uint8_t sum = 0;
      for (size_t i = 0; i < bytes; ++i) sum ^= static_cast<const uint8_t*>(data)[i];
      volatile uint8_t sink = sum;
      (void)sink;
    }
    return;
  }
  size_t count = 0;
  if (!Ok(api->GetValueCount(value, &count))) return;
  for (size_t i = 0; i < count && i < 64; ++i) {
    KilnValue* element = nullptr;
    if (Ok(api->GetValueElement(value, i, &element))) {
      Touch(element);
      api->ReleaseValue(element);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Globals& g = G();
  Reader in(data, size);
  const uint8_t options_byte = in.Byte();
  auto [model, model_size] = in.Take(in.U32());

  KilnSessionOptions* raw_options = nullptr;
  if (!Ok(api->CreateSessionOptions(&raw_options))) return 0;
  OptionsPtr options(raw_options);
  Ok(api->SetSessionGraphOptimizationLevel(
      options.get(), static_cast<KilnGraphOptimizationLevel>(options_byte & 3)));
  Ok(api->SetIntraOpNumThreads(options.get(), (options_byte & 4) != 0 ? 2 : 1));
  Ok(api->SetSessionLogSeverityLevel(options.get(), KILN_LOGGING_LEVEL_FATAL));
  Ok(api->AddSessionConfigEntry(options.get(), "kiln.memory.limit_bytes", "67108864"));
  KilnSession* raw_session = nullptr;
  if (!Ok(api->CreateSessionFromArray(g.env, model, model_size, options.get(), &raw_session))) {
    return 0;
  }
  SessionPtr session(raw_session);

  size_t input_count = 0;
  size_t output_count = 0;
  if (!Ok(api->SessionGetInputCount(session.get(), &input_count)) ||
      !Ok(api->SessionGetOutputCount(session.get(), &output_count))) {
    return 0;
  }
  std::vector<std::string> input_names;
  std::vector<ValuePtr> inputs;
  for (size_t i = 0; i < input_count && i < kMaxInputs; ++i) {
    char* name = nullptr;
    if (!Ok(api->SessionGetInputName(session.get(), i, g.allocator, &name))) return 0;
    input_names.emplace_back(name);
    Ok(api->AllocatorFree(g.allocator, name));
    bool too_big = false;
    ValuePtr value = MakeInput(session.get(), i, in, &too_big);
    if (too_big) return -1;
    // A refused tensor leaves the input out: Run must then name the missing input.
    if (value == nullptr) {
      input_names.pop_back();
      continue;
    }
    inputs.push_back(std::move(value));
  }
  std::vector<std::string> output_names;
  for (size_t i = 0; i < output_count; ++i) {
    char* name = nullptr;
    if (!Ok(api->SessionGetOutputName(session.get(), i, g.allocator, &name))) return 0;
    output_names.emplace_back(name);
    Ok(api->AllocatorFree(g.allocator, name));
  }
  std::vector<const char*> in_names;
  std::vector<const KilnValue*> in_values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_names.push_back(input_names[i].c_str());
    in_values.push_back(inputs[i].get());
  }
  std::vector<const char*> out_names;
  for (const std::string& n : output_names) out_names.push_back(n.c_str());

  const int runs = (options_byte & 8) != 0 ? 2 : 1;
  for (int r = 0; r < runs; ++r) {
    std::vector<KilnValue*> outputs(out_names.size(), nullptr);
    Ok(api->RunOptionsUnsetTerminate(g.run_options));
    g.deadline_ns.store(Globals::Now() + int64_t{2'000'000'000});
    const bool ran =
        Ok(api->Run(session.get(), g.run_options, in_names.data(), in_values.data(),
                    in_values.size(), out_names.data(), out_names.size(), outputs.data()));
    g.deadline_ns.store(0);
    for (KilnValue* out : outputs) {
      // A failed run leaves every output untouched (NULL); a successful one fills them all.
      if (!ran && out != nullptr) std::abort();
      if (ran && out == nullptr && !out_names.empty()) std::abort();
      if (out != nullptr) {
        Touch(out);
        api->ReleaseValue(out);
      }
    }
  }
  return 0;
}
