// kiln run: inputs from .npy and .pb files round-trip exactly through Identity models to
// output_<i>.pb; random inputs are deterministic per seed and within their promised ranges.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

onnx::TensorProto ReadTensor(const std::filesystem::path& path) {
  onnx::TensorProto t;
  EXPECT_TRUE(t.ParseFromString(ReadBytes(path))) << path;
  return t;
}

std::vector<int64_t> Dims(const onnx::TensorProto& t) {
  return std::vector<int64_t>(t.dims().begin(), t.dims().end());
}

// One .npy dtype and the ONNX element type it maps to, with sample data.
struct DtypeCase {
  const char* descr;
  int elem_type;
  std::string data;  // 6 elements, shape (2, 3)
};

TEST(CliRun, NpyInputOfEveryDtypeRoundTripsExactly) {
  const std::vector<DtypeCase> cases = {
      {"<f4", onnx::TensorProto::FLOAT,
       Bytes(std::vector<float>{0.5f, -1, 2, 1e-30f, 3e30f, -0.f})},
      {"<f8", onnx::TensorProto::DOUBLE, Bytes(std::vector<double>{0.1, -1, 2, 1e-300, 3, 4})},
      {"<f2", onnx::TensorProto::FLOAT16,
       Bytes(std::vector<uint16_t>{0x3c00, 0xbc00, 0x0001, 0x7bff, 0x7c00, 0x8000})},
      {"|i1", onnx::TensorProto::INT8, Bytes(std::vector<int8_t>{-128, -1, 0, 1, 2, 127})},
      {"<i2", onnx::TensorProto::INT16, Bytes(std::vector<int16_t>{-32768, -1, 0, 1, 2, 32767})},
      {"<i4", onnx::TensorProto::INT32, Bytes(std::vector<int32_t>{INT32_MIN, -1, 0, 1, 2, 7})},
      {"<i8", onnx::TensorProto::INT64, Bytes(std::vector<int64_t>{INT64_MIN, -1, 0, 1, 2, 9})},
      {"|u1", onnx::TensorProto::UINT8, Bytes(std::vector<uint8_t>{0, 1, 2, 3, 254, 255})},
      {"<u2", onnx::TensorProto::UINT16, Bytes(std::vector<uint16_t>{0, 1, 2, 3, 4, 65535})},
      {"<u4", onnx::TensorProto::UINT32, Bytes(std::vector<uint32_t>{0, 1, 2, 3, 4, UINT32_MAX})},
      {"<u8", onnx::TensorProto::UINT64, Bytes(std::vector<uint64_t>{0, 1, 2, 3, 4, UINT64_MAX})},
      {"|b1", onnx::TensorProto::BOOL, Bytes(std::vector<uint8_t>{1, 0, 0, 1, 1, 0})},
  };
  for (const DtypeCase& c : cases) {
    SCOPED_TRACE(c.descr);
    const auto dir = TestDir(std::string("run_npy_") + (c.descr + 1));
    const std::string model =
        WriteModel(IdentityModel({{"x", c.elem_type, {"2", "3"}}}), dir / "m.onnx");
    WriteBytes(dir / "x.npy", NpyBytes(std::string("{'descr': '") + c.descr +
                                           "', 'fortran_order': False, 'shape': (2, 3), }",
                                       c.data));
    const CliResult r = RunKiln({"run", model, "--input", "x=" + (dir / "x.npy").string(),
                                 "--output-dir", (dir / "out").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const onnx::TensorProto out = ReadTensor(dir / "out" / "output_0.pb");
    EXPECT_EQ(out.name(), "x_out");
    EXPECT_EQ(out.data_type(), c.elem_type);
    EXPECT_EQ(Dims(out), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(out.raw_data(), c.data);
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "output_1.pb"));
  }
}

TEST(CliRun, NpyFormatVersions2And3AreRead) {
  for (const int major : {2, 3}) {
    SCOPED_TRACE(major);
    const auto dir = TestDir("run_npy_v" + std::to_string(major));
    const std::string model = WriteModel(IdentityModel({{"x", 1, {"4"}}}), dir / "m.onnx");
    const std::string data = Bytes(std::vector<float>{1, 2, 3, 4});
    WriteBytes(dir / "x.npy",
               NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, major));
    const CliResult r = RunKiln({"run", model, "--input=x=" + (dir / "x.npy").string(),
                                 "--output-dir", (dir / "out").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ReadTensor(dir / "out" / "output_0.pb").raw_data(), data);
  }
}

TEST(CliRun, PbInputsRoundTripExactly) {
  const auto dir = TestDir("run_pb");
  const std::string model = WriteModel(IdentityModel({{"a", onnx::TensorProto::INT64, {"3"}},
                                                      {"b", onnx::TensorProto::FLOAT, {"2", "2"}},
                                                      {"s", onnx::TensorProto::STRING, {"2"}}}),
                                       dir / "m.onnx");
  onnx::TensorProto a;  // typed field
  a.set_data_type(onnx::TensorProto::INT64);
  a.add_dims(3);
  for (const int64_t v : std::vector<int64_t>{-5, 0, 1234567890123}) a.add_int64_data(v);
  onnx::TensorProto b;  // raw_data
  b.set_data_type(onnx::TensorProto::FLOAT);
  b.add_dims(2);
  b.add_dims(2);
  const std::string b_data = Bytes(std::vector<float>{1.5f, -2.25f, 3e-7f, 42});
  b.set_raw_data(b_data);
  onnx::TensorProto s;
  s.set_data_type(onnx::TensorProto::STRING);
  s.add_dims(2);
  s.add_string_data("hello");
  s.add_string_data("");
  WriteBytes(dir / "a.pb", a.SerializeAsString());
  WriteBytes(dir / "b.pb", b.SerializeAsString());
  WriteBytes(dir / "s.pb", s.SerializeAsString());
  const CliResult r =
      RunKiln({"run", model, "--input", "a=" + (dir / "a.pb").string(), "--input",
               "b=" + (dir / "b.pb").string(), "--input", "s=" + (dir / "s.pb").string(),
               "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const onnx::TensorProto a_out = ReadTensor(dir / "out" / "output_0.pb");
  EXPECT_EQ(a_out.name(), "a_out");
  EXPECT_EQ(a_out.data_type(), onnx::TensorProto::INT64);
  EXPECT_EQ(Dims(a_out), (std::vector<int64_t>{3}));
  EXPECT_EQ(a_out.raw_data(), Bytes(std::vector<int64_t>{-5, 0, 1234567890123}));
  const onnx::TensorProto b_out = ReadTensor(dir / "out" / "output_1.pb");
  EXPECT_EQ(b_out.name(), "b_out");
  EXPECT_EQ(Dims(b_out), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(b_out.raw_data(), b_data);
  const onnx::TensorProto s_out = ReadTensor(dir / "out" / "output_2.pb");
  EXPECT_EQ(s_out.name(), "s_out");
  EXPECT_EQ(s_out.data_type(), onnx::TensorProto::STRING);
  ASSERT_EQ(s_out.string_data_size(), 2);
  EXPECT_EQ(s_out.string_data(0), "hello");
  EXPECT_EQ(s_out.string_data(1), "");
  EXPECT_NE(r.out.find("output b_out: float [2, 2]  min -2.25 max 42 mean 10.3125\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("output s_out: string [2]\n"), std::string::npos) << r.out;
}

TEST(CliRun, OutputsAreWrittenInGraphOrderWithTheirNames) {
  const auto dir = TestDir("run_order");
  const std::string model = WriteModel(RichModel(), dir / "rich.onnx");
  const CliResult r = RunKiln({"run", model, "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const char* names[] = {"x_out", "ids_out", "w_out", "b_out"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ReadTensor(dir / "out" / ("output_" + std::to_string(i) + ".pb")).name(), names[i]);
  }
  const onnx::TensorProto w = ReadTensor(dir / "out" / "output_2.pb");
  EXPECT_EQ(Dims(w), (std::vector<int64_t>{3, 4}));
  std::vector<float> expected(12);
  for (int i = 0; i < 12; ++i) expected[i] = static_cast<float>(i) / 2;
  EXPECT_EQ(w.raw_data(), Bytes(expected));
  EXPECT_EQ(ReadTensor(dir / "out" / "output_3.pb").raw_data(),
            Bytes(std::vector<int64_t>{-2, -1, 0, 1, 2}));
  EXPECT_NE(r.out.find("output w_out: float [3, 4]  min 0 max 5.5 mean 2.75\n"), std::string::npos)
      << r.out;
}

// Runs the model with random inputs and returns the raw data of every output.
std::vector<std::string> RandomOutputs(const std::string& model, const std::filesystem::path& out,
                                       const std::string& seed, size_t count) {
  const CliResult r = RunKiln({"run", model, "--seed", seed, "--output-dir", out.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> data;
  for (size_t i = 0; i < count; ++i) {
    data.push_back(ReadTensor(out / ("output_" + std::to_string(i) + ".pb")).raw_data());
  }
  return data;
}

TEST(CliRun, RandomInputsAreDeterministicPerSeedAndInRange) {
  const auto dir = TestDir("run_random");
  const std::string model =
      WriteModel(IdentityModel({{"f", onnx::TensorProto::FLOAT, {"batch", "64"}},
                                {"i", onnx::TensorProto::INT64, {"", "64"}},
                                {"b", onnx::TensorProto::BOOL, {"64"}},
                                {"h", onnx::TensorProto::FLOAT16, {"64"}}}),
                 dir / "m.onnx");
  const auto first = RandomOutputs(model, dir / "s7a", "7", 4);
  const auto again = RandomOutputs(model, dir / "s7b", "7", 4);
  const auto other = RandomOutputs(model, dir / "s8", "8", 4);
  EXPECT_EQ(first, again);
  for (size_t i = 0; i < 4; ++i) EXPECT_NE(first[i], other[i]) << "output " << i;

  // Free dimensions become 1.
  EXPECT_EQ(Dims(ReadTensor(dir / "s7a" / "output_0.pb")), (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(Dims(ReadTensor(dir / "s7a" / "output_1.pb")), (std::vector<int64_t>{1, 64}));

  std::vector<float> f(64);
  ASSERT_EQ(first[0].size(), 64 * sizeof(float));
  std::memcpy(f.data(), first[0].data(), first[0].size());
  bool negative = false;
  for (const float v : f) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    negative |= v < 0;
  }
  EXPECT_TRUE(negative);
  std::vector<int64_t> ints(64);
  ASSERT_EQ(first[1].size(), 64 * sizeof(int64_t));
  std::memcpy(ints.data(), first[1].data(), first[1].size());
  std::set<int64_t> seen;
  for (const int64_t v : ints) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10);
    seen.insert(v);
  }
  EXPECT_GT(seen.size(), 5u);
  int ones = 0;
  for (const char c : first[2]) {
    EXPECT_TRUE(c == 0 || c == 1);
    ones += c;
  }
  EXPECT_GT(ones, 0);
  EXPECT_LT(ones, 64);
  ASSERT_EQ(first[3].size(), 64 * sizeof(uint16_t));
  for (size_t k = 0; k < 64; ++k) {
    uint16_t h = 0;
    std::memcpy(&h, first[3].data() + 2 * k, 2);
    EXPECT_LE(h & 0x7fffu, 0x3c00u);  // |h| <= 1
    EXPECT_NE(h, 0x3c00u);            // never +1
  }
}

TEST(CliRun, GivenAndRandomInputsMix) {
  const auto dir = TestDir("run_mix");
  const std::string model =
      WriteModel(IdentityModel({{"x", 1, {"2"}}, {"y", 1, {"2"}}}), dir / "m.onnx");
  const std::string data = Bytes(std::vector<float>{3, 4});
  WriteBytes(dir / "x.npy",
             NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data));
  const CliResult r =
      RunKiln({"run", model, "--input", "x=" + (dir / "x.npy").string(), "--seed", "1", "--threads",
               "1", "--optimization", "basic", "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadTensor(dir / "out" / "output_0.pb").raw_data(), data);
  EXPECT_EQ(ReadTensor(dir / "out" / "output_1.pb").raw_data().size(), 8u);
  EXPECT_NE(r.out.find("input y: float [2]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- random (seed 1)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln::test
