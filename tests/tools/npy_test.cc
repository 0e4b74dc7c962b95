// The tool's .npy reader (tools/kiln/npy.h), called directly.
#include "npy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "args.h"
#include "test_models.h"

namespace kiln::cli {
namespace {

using kiln::test::Bytes;
using kiln::test::NpyBytes;

// ParseNpy must throw Error with `needle` in its message.
void ExpectNpyError(const std::string& bytes, const std::string& needle) {
  try {
    ParseNpy(bytes, "t.npy");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("t.npy: ", 0), 0u) << e.what();
  }
}

TEST(Npy, HeaderVariantsNumpyAndOthersWrite) {
  const std::string data = Bytes(std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  for (const char* header :
       {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
        "{\"descr\": \"<i4\", \"shape\": (2, 3), \"fortran_order\": False}",
        "{'descr':'<i4','fortran_order':False,'shape':(2L,3L)}",  // Python 2 longs
        "{'descr': '=i4', 'fortran_order': False, 'shape': (2, 3)}"}) {
    SCOPED_TRACE(header);
    for (const int major : {1, 2, 3}) {
      const std::string bytes = NpyBytes(header, data, major);
      const NpyArray a = ParseNpy(bytes, "t.npy");
      EXPECT_EQ(a.type, KILN_ELEMENT_TYPE_INT32);
      EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(a.data, data);
    }
  }
}

TEST(Npy, ScalarsOneDimensionAndEmptyArrays) {
  const NpyArray scalar = ParseNpy(NpyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': ()}",
                                            Bytes(std::vector<double>{2.5})),
                                   "t");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.data.size(), 8u);
  EXPECT_EQ(
      ParseNpy(NpyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (3,)}", "abc"), "t")
          .shape,
      (std::vector<int64_t>{3}));
  const NpyArray empty =
      ParseNpy(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5)}", ""), "t");
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(empty.data.empty());
}

TEST(Npy, EverySupportedDtype) {
  const std::vector<std::pair<std::string, KilnElementType>> dtypes = {
      {"<f2", KILN_ELEMENT_TYPE_FLOAT16}, {"<f4", KILN_ELEMENT_TYPE_FLOAT},
      {"<f8", KILN_ELEMENT_TYPE_DOUBLE},  {"|i1", KILN_ELEMENT_TYPE_INT8},
      {"<i2", KILN_ELEMENT_TYPE_INT16},   {"<i4", KILN_ELEMENT_TYPE_INT32},
      {"<i8", KILN_ELEMENT_TYPE_INT64},   {"|u1", KILN_ELEMENT_TYPE_UINT8},
      {"<u2", KILN_ELEMENT_TYPE_UINT16},  {"<u4", KILN_ELEMENT_TYPE_UINT32},
      {"<u8", KILN_ELEMENT_TYPE_UINT64},  {"|b1", KILN_ELEMENT_TYPE_BOOL}};
  for (const auto& [descr, type] : dtypes) EXPECT_EQ(NpyElementType(descr, "t"), type) << descr;
  for (const char* bad : {"<c8", "<U3", "|O", "<M8[s]", "f4", "<f16", ""}) {
    EXPECT_THROW(NpyElementType(bad, "t"), Error) << bad;
  }
}

TEST(Npy, Rejections) {
  const std::string floats = Bytes(std::vector<float>{1, 2});
  ExpectNpyError("", "not a .npy file");
  ExpectNpyError(std::string("\x93NUMPZ\x01\x00", 8), "not a .npy file");
  std::string v = NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", floats);
  v[7] = 1;
  ExpectNpyError(v, "format version 1.1");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", floats),
                 "Fortran order");
  ExpectNpyError(NpyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", floats),
                 "big-endian");
  ExpectNpyError(
      NpyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", floats),
      "structured dtypes");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", floats),
                 "negative dimension");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", floats),
                 "the data is 8 bytes but the header's shape and dtype need 12");
  ExpectNpyError(
      NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
               floats),
      "overflows");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", floats),
                 "wrong type");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'descr': '<f4', 'shape': (2,)}", floats), "repeated");
  ExpectNpyError(
      NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", floats),
      "unexpected keys");
  ExpectNpyError(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", floats),
                 "text after");
  ExpectNpyError(NpyBytes("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", floats),
                 "corrupt .npy header");
  ExpectNpyError(NpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "\x01\x02"),
                 "bool element");
  std::string cut = NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", floats);
  ExpectNpyError(cut.substr(0, 9), "cut off");
  ExpectNpyError(cut.substr(0, 40), "cut off");
}

}  // namespace
}  // namespace kiln::cli
