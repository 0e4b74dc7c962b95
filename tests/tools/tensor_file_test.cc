// TensorProto <-> kiln::Value conversion of the tool (tools/kiln/tensor_file.h), called directly:
// every typed field (packed sub-byte types included), raw_data, external data, and the
// rejections.
#include "tensor_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "test_models.h"

namespace kiln::cli {
namespace {

using kiln::test::Bytes;

std::string Data(const kiln::Value& v) {
  const size_t n = v.size_in_bytes();
  return n == 0 ? std::string() : std::string(v.data<char>(), n);
}

onnx::TensorProto Proto(int type, const std::vector<int64_t>& dims) {
  onnx::TensorProto p;
  p.set_data_type(type);
  for (const int64_t d : dims) p.add_dims(d);
  return p;
}

void ExpectProtoError(const onnx::TensorProto& p, const std::string& needle) {
  try {
    TensorFromProto(p, "t.pb", ".");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TensorFile, TypedFieldsOfEachType) {
  onnx::TensorProto p = Proto(onnx::TensorProto::INT8, {3});
  for (const int v : {-1, 0, 127}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<int8_t>{-1, 0, 127}));

  p = Proto(onnx::TensorProto::UINT16, {2});
  for (const int v : {65535, 7}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint16_t>{65535, 7}));

  p = Proto(onnx::TensorProto::FLOAT16, {2});  // half bits in int32_data
  for (const int v : {0x3c00, 0xc000}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint16_t>{0x3c00, 0xc000}));

  p = Proto(onnx::TensorProto::BOOL, {2, 1});
  for (const int v : {1, 0}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint8_t>{1, 0}));
  // True for any non-zero entry, as ONNX's numpy_helper reads them: the whole int32, not its low
  // byte (256 and -256 are true).
  p = Proto(onnx::TensorProto::BOOL, {5});
  for (const int v : {256, -256, 0, 0x10000, 2}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint8_t>{1, 1, 0, 1, 1}));

  p = Proto(onnx::TensorProto::UINT32, {1});
  p.add_uint64_data(4000000000u);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint32_t>{4000000000u}));

  p = Proto(onnx::TensorProto::UINT64, {1});
  p.add_uint64_data(~0ull);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<uint64_t>{~0ull}));

  p = Proto(onnx::TensorProto::DOUBLE, {});  // a scalar
  p.add_double_data(0.1);
  const kiln::Value scalar = TensorFromProto(p, "t", ".");
  EXPECT_TRUE(scalar.type_and_shape().shape().empty());
  EXPECT_EQ(Data(scalar), Bytes(std::vector<double>{0.1}));

  p = Proto(onnx::TensorProto::COMPLEX64, {1});
  p.add_float_data(1);
  p.add_float_data(-1);
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(std::vector<float>{1, -1}));

  p = Proto(onnx::TensorProto::FLOAT, {0, 4});  // empty
  EXPECT_EQ(TensorFromProto(p, "t", ".").type_and_shape().element_count(), 0u);
}

// ONNX's encodings beyond one value per typed-field entry: the sub-byte types packed in
// int32_data (a byte of two or four elements per entry, the first element in the low bits),
// 16-bit floats and 8-bit floats as their bits, bools from any non-zero entry.
TEST(TensorFile, PackedAndBitPatternTypedFields) {
  struct Case {
    int type;
    std::vector<int64_t> dims;
    std::vector<int32_t> entries;
    std::string data;
  };
  const std::vector<Case> cases = {
      {21, {3}, {0x21, 0x03}, std::string("\x21\x03", 2)},     // UINT4 1 2 3
      {22, {2, 2}, {0xf7, 0x08}, std::string("\xf7\x08", 2)},  // INT4 7 -1 -8 0
      {23, {1}, {0x06}, std::string("\x06", 1)},               // FLOAT4E2M1 4.0
      {25, {5}, {0xe4, 0x01}, std::string("\xe4\x01", 2)},     // UINT2 0 1 2 3 1
      {26, {4}, {0x1b}, std::string("\x1b", 1)},               // INT2 -1 -2 1 0
      {17, {2}, {0x38, 0xb8}, std::string("\x38\xb8", 2)},     // FLOAT8E4M3FN 1 -1
      {24, {1}, {0x7f}, std::string("\x7f", 1)},               // FLOAT8E8M0 1
      {onnx::TensorProto::BFLOAT16,
       {2},
       {0x3f80, 0xc000},
       Bytes(std::vector<uint16_t>{0x3f80, 0xc000})},
      {onnx::TensorProto::BOOL, {3}, {0, 1, 7}, std::string("\x00\x01\x01", 3)},
      {onnx::TensorProto::INT16, {2}, {-2, 300}, Bytes(std::vector<int16_t>{-2, 300})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    onnx::TensorProto p = Proto(c.type, c.dims);
    for (const int32_t e : c.entries) p.add_int32_data(e);
    const kiln::Value v = TensorFromProto(p, "t", ".");
    EXPECT_EQ(static_cast<int>(v.type_and_shape().element_type()), c.type);
    EXPECT_EQ(v.type_and_shape().shape(), c.dims);
    EXPECT_EQ(Data(v), c.data);
  }
}

// External data as Kiln's loader reads it for initializers: beside the file, offset and length
// honoured, never outside the folder.
TEST(TensorFile, ExternalData) {
  const std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / "tensor_external";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  kiln::test::WriteBytes(dir / "sub" / "w.bin", "xxxx" + Bytes(std::vector<float>{1.5f, -2}));
  const auto with = [](const std::vector<std::pair<std::string, std::string>>& entries) {
    onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {2});
    p.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : entries) {
      auto* e = p.add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    return p;
  };
  const onnx::TensorProto good =
      with({{"location", "sub/w.bin"}, {"offset", "4"}, {"length", "8"}});
  EXPECT_EQ(Data(TensorFromProto(good, "t", dir.string())), Bytes(std::vector<float>{1.5f, -2}));
  const auto expect_error = [&](const onnx::TensorProto& p, const std::string& needle) {
    try {
      TensorFromProto(p, "t.pb", dir.string());
      ADD_FAILURE() << "no error; expected '" << needle << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(with({{"location", "../escape.bin"}}), "leaves the folder");
  expect_error(with({{"location", "/etc/passwd"}}), "must be relative");
  expect_error(with({{"offset", "0"}}), "no 'location'");
  expect_error(with({{"location", "sub/w.bin"}, {"offset", "8"}}), "runs past its end");
  expect_error(with({{"location", "sub/w.bin"}, {"length", "4"}}), "length 4 does not match");
  expect_error(with({{"location", "sub/w.bin"}, {"offset", "-1"}}), "not a whole number");
  expect_error(with({{"location", "sub/none.bin"}}), "cannot read external data");
  onnx::TensorProto strings = with({{"location", "sub/w.bin"}});
  strings.set_data_type(onnx::TensorProto::STRING);
  expect_error(strings, "cannot use external data");
}

TEST(TensorFile, RawDataOfPackedTypes) {
  onnx::TensorProto p = Proto(22, {3});  // INT4, newer than Debian's onnx.proto
  p.set_raw_data(std::string("\x21\x03", 2));
  const kiln::Value v = TensorFromProto(p, "t", ".");
  EXPECT_EQ(v.type_and_shape().element_type(), KILN_ELEMENT_TYPE_INT4);
  EXPECT_EQ(Data(v), std::string("\x21\x03", 2));
}

TEST(TensorFile, ValueToProtoAndBack) {
  std::vector<int16_t> data = {1, -2, 3, -4, 5, -6};
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  const kiln::Value v = kiln::Value::CreateTensor(cpu, data.data(), data.size(), {3, 2});
  const onnx::TensorProto p = TensorToProto(v, "y");
  EXPECT_EQ(p.name(), "y");
  EXPECT_EQ(p.data_type(), onnx::TensorProto::INT16);
  EXPECT_EQ(p.dims_size(), 2);
  EXPECT_EQ(p.raw_data(), Bytes(data));
  EXPECT_EQ(Data(TensorFromProto(p, "t", ".")), Bytes(data));
}

// The size limits are the loader's: a dimension 0 makes the tensor empty however large the
// others are (negative ones are still refused), and a tensor may take up to SIZE_MAX bytes.
TEST(TensorFile, SizeLimitsAreTheLoaders) {
  constexpr int64_t k2Pow60 = int64_t{1} << 60;
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
           {k2Pow60, 0}, {0, k2Pow60}, {k2Pow60, k2Pow60, 0}, {0, int64_t{1} << 62, 8}}) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    const kiln::Value empty = TensorFromProto(Proto(onnx::TensorProto::FLOAT, dims), "t", ".");
    EXPECT_EQ(empty.type_and_shape().shape(), dims);
    EXPECT_EQ(empty.type_and_shape().element_count(), 0u);
    EXPECT_EQ(empty.size_in_bytes(), 0u);
  }
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {0, -1}), "negative dimension");
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {-1, 0}), "negative dimension");
  // 2^61 floats are 2^63 bytes: within size_t, so refused for the data it lacks, not as an
  // overflow (and before anything is allocated); 2^62 floats (2^64 bytes) overflow it.
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {int64_t{1} << 61}),
                   "0 values in float_data but its dims need 2305843009213693952");
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {int64_t{1} << 62}), "dims overflow");
  ExpectProtoError(Proto(onnx::TensorProto::DOUBLE, {int64_t{1} << 61}), "dims overflow");
  // A packed type takes half a byte an element: 2^63 of them are 2^62 bytes.
  ExpectProtoError(Proto(21, {int64_t{1} << 31, int64_t{1} << 32}),
                   "0 values in int32_data (packed bytes) but its dims need 4611686018427387904");
  ExpectProtoError(Proto(onnx::TensorProto::UINT8, {int64_t{1} << 32, int64_t{1} << 32}),
                   "dims overflow");
}

// External data is found and checked before the tensor is allocated: dims of 4 TiB pointing at
// 16 bytes fail on the file's size (or the path, or the length), not on the allocation.
TEST(TensorFile, ExternalDataIsCheckedBeforeAllocating) {
  const std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / "tensor_huge";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a");
  kiln::test::WriteBytes(dir / "small.bin", std::string(16, 'x'));
  const auto huge = [](const std::vector<std::pair<std::string, std::string>>& entries) {
    onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {int64_t{1} << 40});
    p.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : entries) {
      auto* e = p.add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    return p;
  };
  const auto expect_error = [&](const onnx::TensorProto& p, const std::string& needle) {
    try {
      TensorFromProto(p, "t.pb", dir.string());
      ADD_FAILURE() << "no error; expected '" << needle << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    } catch (const std::exception& e) {  // kiln::Exception or std::bad_alloc: it allocated
      ADD_FAILURE() << "not the external data's error: " << e.what();
    }
  };
  expect_error(huge({{"location", "small.bin"}}),
               "holds 16 bytes; offset 0 + 4398046511104 bytes runs past its end");
  expect_error(huge({{"location", "small.bin"}, {"length", "4398046511104"}}), "runs past its end");
  expect_error(huge({{"location", "small.bin"}, {"length", "16"}}),
               "length 16 does not match the 4398046511104 bytes");
  expect_error(huge({{"location", "none.bin"}}), "cannot read external data");
  expect_error(huge({{"location", "../small.bin"}}), "leaves the folder");
  // 2^30 floats (4 GiB) is what an allocation could still give: the same error, before it.
  onnx::TensorProto four_gib = huge({{"location", "small.bin"}});
  four_gib.set_dims(0, int64_t{1} << 30);
  expect_error(four_gib, "holds 16 bytes; offset 0 + 4294967296 bytes runs past its end");
}

// A location that resolves outside the folder, however it gets there, is refused with the
// folder named (the check never steps past the end of the resolved path).
TEST(TensorFile, ExternalDataLeavingTheFolder) {
  const std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / "tensor_leaving";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a");
  kiln::test::WriteBytes(dir / "x", Bytes(std::vector<float>{1, 2}));
  for (const char* location : {"../x", "a/../../x", "..", "a/../..", "a/../../tensor_leaving/x"}) {
    SCOPED_TRACE(location);
    onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {2});
    p.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = p.add_external_data();
    e->set_key("location");
    e->set_value(location);
    // Seen from the folder "a": every one of these resolves outside it.
    try {
      TensorFromProto(p, "t.pb", (dir / "a").string());
      ADD_FAILURE() << "no error";
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what())
                    .find(std::string("t.pb: external data path '") + location +
                          "' leaves the folder '" + (dir / "a").string() + "'"),
                std::string::npos)
          << err.what();
    }
  }
  // Inside the folder after a detour: read.
  onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {2});
  p.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = p.add_external_data();
  e->set_key("location");
  e->set_value("a/../x");
  EXPECT_EQ(Data(TensorFromProto(p, "t.pb", dir.string())), Bytes(std::vector<float>{1, 2}));
}

TEST(TensorFile, Rejections) {
  onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {2});
  ExpectProtoError(p, "0 values in float_data but its dims need 2");
  p.set_raw_data("abc");
  ExpectProtoError(p, "raw_data is 3 bytes but its dims and data_type need 8");
  ExpectProtoError(Proto(0, {1}), "data_type 0 is not a tensor element type");
  ExpectProtoError(Proto(99, {1}), "data_type 99");
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {-1}), "negative dimension");
  onnx::TensorProto external = Proto(onnx::TensorProto::FLOAT, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  ExpectProtoError(external, "external data has no 'location'");
  onnx::TensorProto segmented = Proto(onnx::TensorProto::FLOAT, {1});
  segmented.mutable_segment()->set_begin(0);
  ExpectProtoError(segmented, "SequenceProto, an OptionalProto or a segmented TensorProto");
  onnx::TensorProto packed = Proto(21, {3});  // UINT4: 2 packed bytes, not 3 elements
  for (const int v : {1, 2, 3}) packed.add_int32_data(v);
  ExpectProtoError(packed, "3 values in int32_data (packed bytes) but its dims need 2");
  onnx::TensorProto huge = Proto(onnx::TensorProto::FLOAT, {1 << 30, 1 << 30, 1 << 30});
  ExpectProtoError(huge, "dims overflow");
  huge = Proto(onnx::TensorProto::FLOAT, {1 << 20, 1 << 20});  // 4 TiB: refused before allocating
  ExpectProtoError(huge, "0 values in float_data but its dims need 1099511627776");
  huge.set_raw_data("abcd");
  ExpectProtoError(huge, "raw_data is 4 bytes but its dims and data_type need 4398046511104");
  onnx::TensorProto raw_strings = Proto(onnx::TensorProto::STRING, {1});
  raw_strings.set_raw_data("x");
  ExpectProtoError(raw_strings, "cannot use raw_data");
}

}  // namespace
}  // namespace kiln::cli
