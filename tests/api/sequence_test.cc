// Sequences and optionals through the C ABI: CreateSequenceValue … GetValueElementType, the
// tensor entries refusing them, and Run passing them in and out of a model.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

// An owned KilnValue, released at the end of the scope.
class Owned {
 public:
  Owned() = default;
  explicit Owned(KilnValue* v) : v_(v) {}
  ~Owned() { api().ReleaseValue(v_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  KilnValue* get() const { return v_; }
  KilnValue** out() { return &v_; }

 private:
  KilnValue* v_ = nullptr;
};

KilnValue* Floats(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  KilnValue* v = nullptr;
  ExpectOk(
      api().CreateTensorAsValue(allocator, dims.data(), dims.size(), KILN_ELEMENT_TYPE_FLOAT, &v));
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &data));
  if (!values.empty()) std::memcpy(data, values.data(), values.size() * sizeof(float));
  return v;
}

KilnValue* Int64s(const std::vector<int64_t>& values) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t dims[1] = {static_cast<int64_t>(values.size())};
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(allocator, dims, 1, KILN_ELEMENT_TYPE_INT64, &v));
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &data));
  std::memcpy(data, values.data(), values.size() * sizeof(int64_t));
  return v;
}

template <typename T>
std::vector<T> Read(const KilnValue* v) {
  size_t bytes = 0;
  ExpectOk(api().GetTensorSizeInBytes(v, &bytes));
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(const_cast<KilnValue*>(v), &data));
  std::vector<T> out(bytes / sizeof(T));
  if (bytes != 0) std::memcpy(out.data(), data, bytes);
  return out;
}

std::vector<int64_t> Dims(const KilnValue* v) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().GetTensorTypeAndShape(v, &info));
  size_t rank = 0;
  ExpectOk(api().GetDimensionsCount(info, &rank));
  std::vector<int64_t> dims(rank);
  ExpectOk(api().GetDimensions(info, dims.data(), rank));
  api().ReleaseTensorTypeAndShapeInfo(info);
  return dims;
}

KilnValueType TypeOf(const KilnValue* v) {
  KilnValueType t = KILN_VALUE_TYPE_UNKNOWN;
  ExpectOk(api().GetValueType(v, &t));
  return t;
}

size_t CountOf(const KilnValue* v) {
  size_t n = 99;
  ExpectOk(api().GetValueCount(v, &n));
  return n;
}

int HasValueOf(const KilnValue* v) {
  int has = -1;
  ExpectOk(api().HasValue(v, &has));
  return has;
}

KilnElementType ElementTypeOf(const KilnValue* v) {
  KilnElementType t = KILN_ELEMENT_TYPE_UNDEFINED;
  ExpectOk(api().GetValueElementType(v, &t));
  return t;
}

// Asserts an INVALID_ARGUMENT error from `entry` naming `argument` whose message holds
// `fragment`.
void ExpectRefused(KilnStatus* status, const char* entry, const char* argument,
                   const std::string& fragment) {
  ASSERT_NE(status, nullptr);
  const std::string message = api().GetErrorMessage(status);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
  ExpectError(status, KILN_INVALID_ARGUMENT, entry, argument);
}

TEST(Sequence, HoldsCopiesOfItsTensors) {
  Owned a(Floats({2, 3}, {0, 1, 2, 3, 4, 5}));
  Owned b(Floats({1, 3}, {6, 7, 8}));
  const KilnValue* tensors[] = {a.get(), b.get()};
  Owned seq;
  ExpectOk(api().CreateSequenceValue(tensors, 2, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  EXPECT_EQ(TypeOf(seq.get()), KILN_VALUE_TYPE_SEQUENCE);
  int is_tensor = -1;
  ExpectOk(api().IsTensor(seq.get(), &is_tensor));
  EXPECT_EQ(is_tensor, 0);
  EXPECT_EQ(CountOf(seq.get()), 2u);
  EXPECT_EQ(HasValueOf(seq.get()), 1);
  EXPECT_EQ(ElementTypeOf(seq.get()), KILN_ELEMENT_TYPE_FLOAT);

  // The caller's tensors stay theirs: writing to them does not reach the sequence.
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(a.get(), &data));
  static_cast<float*>(data)[0] = 100;
  Owned first;
  ExpectOk(api().GetValueElement(seq.get(), 0, first.out()));
  EXPECT_EQ(TypeOf(first.get()), KILN_VALUE_TYPE_TENSOR);
  EXPECT_EQ(Dims(first.get()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Read<float>(first.get()), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  // An element is a copy: writing to it does not change the sequence.
  ExpectOk(api().GetTensorMutableData(first.get(), &data));
  static_cast<float*>(data)[1] = -1;
  Owned again;
  ExpectOk(api().GetValueElement(seq.get(), 0, again.out()));
  EXPECT_EQ(Read<float>(again.get()), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  Owned second;
  ExpectOk(api().GetValueElement(seq.get(), 1, second.out()));
  EXPECT_EQ(Dims(second.get()), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Read<float>(second.get()), (std::vector<float>{6, 7, 8}));
}

TEST(Sequence, OutlivesTheTensorsItWasMadeFrom) {
  KilnValue* a = Floats({2}, {1, 2});
  Owned seq;
  ExpectOk(api().CreateSequenceValue(&a, 1, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  api().ReleaseValue(a);
  Owned e;
  ExpectOk(api().GetValueElement(seq.get(), 0, e.out()));
  EXPECT_EQ(Read<float>(e.get()), (std::vector<float>{1, 2}));
}

TEST(Sequence, HoldsStringTensors) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t dims[1] = {2};
  Owned s;
  ExpectOk(api().CreateTensorAsValue(allocator, dims, 1, KILN_ELEMENT_TYPE_STRING, s.out()));
  const char* text[] = {"alpha", "beta"};
  ExpectOk(api().FillStringTensor(s.get(), text, 2));
  const KilnValue* tensors[] = {s.get()};
  Owned seq;
  ExpectOk(api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_STRING, seq.out()));
  ExpectOk(api().FillStringTensorElement(s.get(), "changed", 0));
  Owned e;
  ExpectOk(api().GetValueElement(seq.get(), 0, e.out()));
  char buf[8] = {};
  ExpectOk(api().GetStringTensorElement(e.get(), sizeof buf, 0, buf));
  EXPECT_STREQ(buf, "alpha");
}

TEST(Sequence, EmptyKeepsItsElementType) {
  Owned seq;
  ExpectOk(api().CreateSequenceValue(nullptr, 0, KILN_ELEMENT_TYPE_INT64, seq.out()));
  EXPECT_EQ(TypeOf(seq.get()), KILN_VALUE_TYPE_SEQUENCE);
  EXPECT_EQ(CountOf(seq.get()), 0u);
  EXPECT_EQ(HasValueOf(seq.get()), 1);
  EXPECT_EQ(ElementTypeOf(seq.get()), KILN_ELEMENT_TYPE_INT64);
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(api().GetValueElement(seq.get(), 0, &out), "GetValueElement", "index",
                "0 is out of range for a seq(tensor(int64)) of 0");
  EXPECT_EQ(out, Sentinel<KilnValue>());
}

TEST(Sequence, CreationErrorsNameTheEntry) {
  Owned f(Floats({2}, {1, 2}));
  Owned i(Int64s({1, 2}));
  const KilnValue* mixed[] = {f.get(), i.get()};
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(api().CreateSequenceValue(mixed, 2, KILN_ELEMENT_TYPE_FLOAT, &out),
                "CreateSequenceValue", "tensors",
                "entry 1 is a tensor of int64, but element_type is float");
  Owned seq;
  ExpectOk(api().CreateSequenceValue(mixed, 1, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  const KilnValue* nested[] = {f.get(), seq.get()};
  ExpectRefused(api().CreateSequenceValue(nested, 2, KILN_ELEMENT_TYPE_FLOAT, &out),
                "CreateSequenceValue", "tensors", "entry 1 is a seq(tensor(float)), not a tensor");
  ExpectRefused(api().CreateSequenceValue(mixed, 1, KILN_ELEMENT_TYPE_UNDEFINED, &out),
                "CreateSequenceValue", "element_type", "0 is not a defined KilnElementType");
  EXPECT_EQ(out, Sentinel<KilnValue>());
}

TEST(Optional, HoldsACopyOfATensor) {
  Owned t(Int64s({4, 5, 6}));
  Owned opt;
  ExpectOk(api().CreateOptionalValue(t.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_INT64,
                                     opt.out()));
  EXPECT_EQ(TypeOf(opt.get()), KILN_VALUE_TYPE_OPTIONAL);
  EXPECT_EQ(CountOf(opt.get()), 1u);
  EXPECT_EQ(HasValueOf(opt.get()), 1);
  EXPECT_EQ(ElementTypeOf(opt.get()), KILN_ELEMENT_TYPE_INT64);
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(t.get(), &data));
  static_cast<int64_t*>(data)[0] = 40;
  Owned content;
  ExpectOk(api().GetValueElement(opt.get(), 0, content.out()));
  EXPECT_EQ(TypeOf(content.get()), KILN_VALUE_TYPE_TENSOR);
  EXPECT_EQ(Read<int64_t>(content.get()), (std::vector<int64_t>{4, 5, 6}));
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(api().GetValueElement(opt.get(), 1, &out), "GetValueElement", "index",
                "1 is out of range for an optional(tensor(int64)) (count 1)");
}

TEST(Optional, EmptyKeepsItsTypes) {
  Owned opt;
  ExpectOk(api().CreateOptionalValue(nullptr, KILN_VALUE_TYPE_SEQUENCE, KILN_ELEMENT_TYPE_DOUBLE,
                                     opt.out()));
  EXPECT_EQ(TypeOf(opt.get()), KILN_VALUE_TYPE_OPTIONAL);
  EXPECT_EQ(CountOf(opt.get()), 0u);
  EXPECT_EQ(HasValueOf(opt.get()), 0);
  EXPECT_EQ(ElementTypeOf(opt.get()), KILN_ELEMENT_TYPE_DOUBLE);
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(api().GetValueElement(opt.get(), 0, &out), "GetValueElement", "index",
                "0 is out of range for an empty optional(seq(tensor(double))) (count 0)");
  EXPECT_EQ(out, Sentinel<KilnValue>());
}

TEST(Optional, SharesTheSequenceItHolds) {
  Owned a(Floats({1}, {3}));
  const KilnValue* tensors[] = {a.get(), a.get()};
  Owned seq;
  ExpectOk(api().CreateSequenceValue(tensors, 2, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  Owned opt;
  ExpectOk(api().CreateOptionalValue(seq.get(), KILN_VALUE_TYPE_SEQUENCE, KILN_ELEMENT_TYPE_FLOAT,
                                     opt.out()));
  EXPECT_EQ(CountOf(opt.get()), 1u);
  Owned content;
  ExpectOk(api().GetValueElement(opt.get(), 0, content.out()));
  EXPECT_EQ(TypeOf(content.get()), KILN_VALUE_TYPE_SEQUENCE);
  EXPECT_EQ(CountOf(content.get()), 2u);
}

TEST(Optional, CreationErrorsNameTheArgument) {
  Owned f(Floats({2}, {1, 2}));
  Owned seq;
  const KilnValue* tensors[] = {f.get()};
  ExpectOk(api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  Owned opt;
  ExpectOk(api().CreateOptionalValue(f.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT,
                                     opt.out()));
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(
      api().CreateOptionalValue(f.get(), KILN_VALUE_TYPE_MAP, KILN_ELEMENT_TYPE_FLOAT, &out),
      "CreateOptionalValue", "contained_type", "3 is not KILN_VALUE_TYPE_TENSOR");
  ExpectRefused(
      api().CreateOptionalValue(f.get(), KILN_VALUE_TYPE_SEQUENCE, KILN_ELEMENT_TYPE_FLOAT, &out),
      "CreateOptionalValue", "content", "tensor(float), but contained_type asks for a sequence");
  ExpectRefused(
      api().CreateOptionalValue(seq.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT, &out),
      "CreateOptionalValue", "content", "seq(tensor(float)), but contained_type asks for a tensor");
  ExpectRefused(
      api().CreateOptionalValue(f.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_INT64, &out),
      "CreateOptionalValue", "content", "tensor(float), but element_type is int64");
  ExpectRefused(
      api().CreateOptionalValue(opt.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT, &out),
      "CreateOptionalValue", "content", "optional(tensor(float))");
  ExpectRefused(
      api().CreateOptionalValue(nullptr, KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_UNDEFINED, &out),
      "CreateOptionalValue", "element_type", "is not a defined KilnElementType");
  EXPECT_EQ(out, Sentinel<KilnValue>());
}

TEST(Sequence, TensorsHaveNoCountOrElements) {
  Owned f(Floats({2}, {1, 2}));
  size_t n = kSizeSentinel;
  ExpectRefused(api().GetValueCount(f.get(), &n), "GetValueCount", "value",
                "is a tensor(float), not a sequence or an optional");
  EXPECT_EQ(n, kSizeSentinel);
  KilnValue* out = Sentinel<KilnValue>();
  ExpectRefused(api().GetValueElement(f.get(), 0, &out), "GetValueElement", "value",
                "not a sequence or an optional");
  EXPECT_EQ(out, Sentinel<KilnValue>());
  EXPECT_EQ(HasValueOf(f.get()), 1);
  EXPECT_EQ(ElementTypeOf(f.get()), KILN_ELEMENT_TYPE_FLOAT);
}

// Every entry that takes only tensors refuses a sequence and an optional, naming the argument.
TEST(Sequence, TensorEntriesRefuseSequencesAndOptionals) {
  Owned f(Floats({2}, {1, 2}));
  const KilnValue* tensors[] = {f.get()};
  Owned seq, opt, empty;
  ExpectOk(api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  ExpectOk(api().CreateOptionalValue(f.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT,
                                     opt.out()));
  ExpectOk(api().CreateOptionalValue(nullptr, KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT,
                                     empty.out()));
  for (KilnValue* v : {seq.get(), opt.get(), empty.get()}) {
    const std::string kind = TypeOf(v) == KILN_VALUE_TYPE_SEQUENCE ? "seq(" : "optional(";
    SCOPED_TRACE(kind);
    void* p = nullptr;
    size_t n = 0;
    const KilnMemoryInfo* info = nullptr;
    KilnTensorTypeAndShapeInfo* shape = nullptr;
    char bytes[4];
    size_t offsets[2];
    const char* s[] = {"a", "b"};
    ExpectRefused(api().GetTensorMutableData(v, &p), "GetTensorMutableData", "value", kind);
    ExpectRefused(api().GetTensorSizeInBytes(v, &n), "GetTensorSizeInBytes", "value", kind);
    ExpectRefused(api().GetTensorMemoryInfo(v, &info), "GetTensorMemoryInfo", "value", kind);
    ExpectRefused(api().GetTensorTypeAndShape(v, &shape), "GetTensorTypeAndShape", "value", kind);
    ExpectRefused(api().FillStringTensor(v, s, 2), "FillStringTensor", "value", kind);
    ExpectRefused(api().FillStringTensorElement(v, "a", 0), "FillStringTensorElement", "value",
                  kind);
    ExpectRefused(api().GetStringTensorDataLength(v, &n), "GetStringTensorDataLength", "value",
                  kind);
    ExpectRefused(api().GetStringTensorContent(v, bytes, 4, offsets, 2), "GetStringTensorContent",
                  "value", kind);
    ExpectRefused(api().GetStringTensorElementLength(v, 0, &n), "GetStringTensorElementLength",
                  "value", kind);
    ExpectRefused(api().GetStringTensorElement(v, 4, 0, bytes), "GetStringTensorElement", "value",
                  kind);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(shape, nullptr);
  }
}

class SequenceRun : public testing::Test {
 protected:
  void SetUp() override {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "sequence-test", &env_));
    const std::string model = models::SequencePassThrough();
    ExpectOk(api().CreateSessionFromArray(env_, model.data(), model.size(), nullptr, &session_));
    ASSERT_NE(session_, nullptr);
  }
  void TearDown() override {
    api().ReleaseSession(session_);
    api().ReleaseEnv(env_);
  }
  KilnEnv* env_ = nullptr;
  KilnSession* session_ = nullptr;
};

TEST_F(SequenceRun, ReportsTheKindsOfInputsAndOutputs) {
  KilnValueType kind = KILN_VALUE_TYPE_UNKNOWN;
  ExpectOk(api().SessionGetInputValueType(session_, 1, &kind));
  EXPECT_EQ(kind, KILN_VALUE_TYPE_SEQUENCE);
  ExpectOk(api().SessionGetInputValueType(session_, 2, &kind));
  EXPECT_EQ(kind, KILN_VALUE_TYPE_OPTIONAL);
  ExpectOk(api().SessionGetOutputValueType(session_, 0, &kind));
  EXPECT_EQ(kind, KILN_VALUE_TYPE_SEQUENCE);
  ExpectOk(api().SessionGetOutputValueType(session_, 1, &kind));
  EXPECT_EQ(kind, KILN_VALUE_TYPE_OPTIONAL);
  // The tensor info of a sequence or optional describes the tensors in it.
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().CreateSessionInputTensorInfo(session_, 1, &info));
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  ExpectOk(api().GetTensorElementType(info, &type));
  EXPECT_EQ(type, KILN_ELEMENT_TYPE_FLOAT);
  int64_t dims[2] = {};
  ExpectOk(api().GetDimensions(info, dims, 2));
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 2);
  api().ReleaseTensorTypeAndShapeInfo(info);
  ExpectOk(api().CreateSessionOutputTensorInfo(session_, 1, &info));
  ExpectOk(api().GetTensorElementType(info, &type));
  EXPECT_EQ(type, KILN_ELEMENT_TYPE_INT64);
  api().ReleaseTensorTypeAndShapeInfo(info);
}

TEST_F(SequenceRun, PassesSequencesAndOptionalsInAndOut) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  Owned cond;
  ExpectOk(api().CreateTensorAsValue(allocator, nullptr, 0, KILN_ELEMENT_TYPE_BOOL, cond.out()));
  Owned a(Floats({2, 2}, {1, 2, 3, 4}));
  Owned b(Floats({1, 2}, {5, 6}));
  const KilnValue* tensors[] = {a.get(), b.get()};
  Owned seq, opt, empty;
  ExpectOk(api().CreateSequenceValue(tensors, 2, KILN_ELEMENT_TYPE_FLOAT, seq.out()));
  Owned ids(Int64s({7, 8, 9}));
  ExpectOk(api().CreateOptionalValue(ids.get(), KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_INT64,
                                     opt.out()));
  ExpectOk(api().CreateOptionalValue(nullptr, KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_INT64,
                                     empty.out()));
  const char* in[] = {"cond", "s", "o"};
  const char* out[] = {"s_out", "o_out"};
  {
    const KilnValue* inputs[] = {cond.get(), seq.get(), opt.get()};
    KilnValue* outputs[2] = {nullptr, nullptr};
    ExpectOk(api().Run(session_, nullptr, in, inputs, 3, out, 2, outputs));
    Owned s_out(outputs[0]), o_out(outputs[1]);
    EXPECT_EQ(TypeOf(s_out.get()), KILN_VALUE_TYPE_SEQUENCE);
    EXPECT_EQ(CountOf(s_out.get()), 2u);
    Owned e;
    ExpectOk(api().GetValueElement(s_out.get(), 1, e.out()));
    EXPECT_EQ(Dims(e.get()), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(Read<float>(e.get()), (std::vector<float>{5, 6}));
    EXPECT_EQ(TypeOf(o_out.get()), KILN_VALUE_TYPE_OPTIONAL);
    EXPECT_EQ(HasValueOf(o_out.get()), 1);
    Owned c;
    ExpectOk(api().GetValueElement(o_out.get(), 0, c.out()));
    EXPECT_EQ(Read<int64_t>(c.get()), (std::vector<int64_t>{7, 8, 9}));
  }
  {
    const KilnValue* inputs[] = {cond.get(), seq.get(), empty.get()};
    KilnValue* outputs[2] = {nullptr, nullptr};
    ExpectOk(api().Run(session_, nullptr, in, inputs, 3, out, 2, outputs));
    Owned s_out(outputs[0]), o_out(outputs[1]);
    EXPECT_EQ(TypeOf(o_out.get()), KILN_VALUE_TYPE_OPTIONAL);
    EXPECT_EQ(HasValueOf(o_out.get()), 0);
    EXPECT_EQ(CountOf(o_out.get()), 0u);
    EXPECT_EQ(ElementTypeOf(o_out.get()), KILN_ELEMENT_TYPE_INT64);
  }
  {
    // A tensor where the model takes a sequence is refused, naming the input.
    const KilnValue* inputs[] = {cond.get(), a.get(), opt.get()};
    KilnValue* outputs[2] = {nullptr, nullptr};
    KilnStatus* s = api().Run(session_, nullptr, in, inputs, 3, out, 2, outputs);
    ASSERT_NE(s, nullptr);
    const std::string message = api().GetErrorMessage(s);
    EXPECT_EQ(api().GetErrorCode(s), KILN_INVALID_ARGUMENT) << message;
    EXPECT_NE(message.find("'s'"), std::string::npos) << message;
    api().ReleaseStatus(s);
    EXPECT_EQ(outputs[0], nullptr);
    EXPECT_EQ(outputs[1], nullptr);
  }
  {
    // Only tensors can be written into: a caller's sequence in an output slot is refused.
    const KilnValue* inputs[] = {cond.get(), seq.get(), opt.get()};
    KilnValue* outputs[2] = {seq.get(), nullptr};
    ExpectRefused(api().Run(session_, nullptr, in, inputs, 3, out, 2, outputs), "Run", "outputs",
                  "entry 0 is not a tensor");
    EXPECT_EQ(outputs[0], seq.get());
    EXPECT_EQ(outputs[1], nullptr);
  }
}

}  // namespace
}  // namespace kiln_test
