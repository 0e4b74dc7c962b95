// String tensors: FillStringTensor … GetStringTensorElement.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"

namespace kiln_test {
namespace {

std::vector<std::string> ReadAll(KilnValue* v, size_t count) {
  size_t total = 0;
  ExpectOk(api().GetStringTensorDataLength(v, &total));
  std::vector<char> bytes(total);
  std::vector<size_t> offsets(count);
  ExpectOk(api().GetStringTensorContent(v, bytes.data(), bytes.size(), offsets.data(), count));
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    const size_t end = i + 1 < count ? offsets[i + 1] : total;
    out.emplace_back(bytes.data() + offsets[i], end - offsets[i]);
  }
  return out;
}

TEST(StringTensor, FreshTensorHoldsEmptyStrings) {
  TestTensor t(KILN_ELEMENT_TYPE_STRING);
  EXPECT_EQ(ReadAll(t.get(), 6), std::vector<std::string>(6));
}

TEST(StringTensor, FillAndReadBack) {
  TestTensor t(KILN_ELEMENT_TYPE_STRING);
  const char* in[] = {"kiln",
                      "",
                      "caf\xC3\xA9",
                      "\xF0\x9F\x94\xA5 fire",
                      "a string long enough to leave the small-string buffer",
                      "z"};
  ExpectOk(api().FillStringTensor(t.get(), in, 6));
  EXPECT_EQ(ReadAll(t.get(), 6), std::vector<std::string>(in, in + 6));
  ExpectOk(api().FillStringTensorElement(t.get(), "replaced", 1));
  size_t len = 0;
  ExpectOk(api().GetStringTensorElementLength(t.get(), 1, &len));
  EXPECT_EQ(len, 8u);
  char buf[8];
  ExpectOk(api().GetStringTensorElement(t.get(), sizeof buf, 1, buf));
  EXPECT_EQ(std::string(buf, 8), "replaced");
  ExpectOk(api().GetStringTensorElementLength(t.get(), 2, &len));
  EXPECT_EQ(len, 5u);  // bytes, not characters
  const char* empty[] = {"", "", "", "", "", ""};
  ExpectOk(api().FillStringTensor(t.get(), empty, 6));
  ExpectOk(api().GetStringTensorElement(t.get(), 0, 5, nullptr));  // empty: no buffer needed
  ExpectOk(api().GetStringTensorContent(t.get(), nullptr, 0, std::vector<size_t>(6).data(), 6));
}

TEST(StringTensor, FillIsAllOrNothing) {
  TestTensor t(KILN_ELEMENT_TYPE_STRING);
  const char* good[] = {"a", "b", "c", "d", "e", "f"};
  ExpectOk(api().FillStringTensor(t.get(), good, 6));
  const char* with_null[] = {"x", "y", nullptr, "w", "v", "u"};
  KilnStatus* s = api().FillStringTensor(t.get(), with_null, 6);
  EXPECT_NE(std::string(api().GetErrorMessage(s)).find("element 2 is NULL"), std::string::npos);
  ExpectError(s, KILN_INVALID_ARGUMENT, "FillStringTensor", "s");
  const char* bad_utf8[] = {"x", "y", "z", "w", "ok\xC3", "u"};
  s = api().FillStringTensor(t.get(), bad_utf8, 6);
  EXPECT_NE(std::string(api().GetErrorMessage(s)).find("element 4 is not valid UTF-8 (at byte 2)"),
            std::string::npos);
  ExpectError(s, KILN_INVALID_ARGUMENT, "FillStringTensor", "s");
  EXPECT_EQ(ReadAll(t.get(), 6), std::vector<std::string>(good, good + 6));
}

TEST(StringTensor, BadArgumentsLeaveEverythingUntouched) {
  TestTensor t(KILN_ELEMENT_TYPE_STRING);
  const char* five[] = {"1", "2", "3", "4", "5"};
  ExpectError(api().FillStringTensor(t.get(), five, 5), KILN_INVALID_ARGUMENT, "FillStringTensor",
              "s_len");
  ExpectError(api().FillStringTensor(t.get(), nullptr, 6), KILN_INVALID_ARGUMENT,
              "FillStringTensor", "s");
  ExpectError(api().FillStringTensorElement(t.get(), "x", 6), KILN_INVALID_ARGUMENT,
              "FillStringTensorElement", "index");
  ExpectError(api().FillStringTensorElement(t.get(), nullptr, 0), KILN_INVALID_ARGUMENT,
              "FillStringTensorElement", "s");
  ExpectError(api().FillStringTensorElement(t.get(), "\xFF", 0), KILN_INVALID_ARGUMENT,
              "FillStringTensorElement", "s");
  EXPECT_EQ(ReadAll(t.get(), 6), std::vector<std::string>(6));

  const char* words[] = {"alpha", "beta", "", "", "", ""};
  ExpectOk(api().FillStringTensor(t.get(), words, 6));
  char bytes[9];
  std::memset(bytes, '#', sizeof bytes);
  size_t offsets[6] = {kSizeSentinel, kSizeSentinel, kSizeSentinel,
                       kSizeSentinel, kSizeSentinel, kSizeSentinel};
  ExpectError(api().GetStringTensorContent(t.get(), bytes, 8, offsets, 6), KILN_INVALID_ARGUMENT,
              "GetStringTensorContent", "s_len");
  ExpectError(api().GetStringTensorContent(t.get(), nullptr, 9, offsets, 6), KILN_INVALID_ARGUMENT,
              "GetStringTensorContent", "s");
  ExpectError(api().GetStringTensorContent(t.get(), bytes, 9, offsets, 5), KILN_INVALID_ARGUMENT,
              "GetStringTensorContent", "offsets_len");
  ExpectError(api().GetStringTensorContent(t.get(), bytes, 9, nullptr, 6), KILN_INVALID_ARGUMENT,
              "GetStringTensorContent", "offsets");
  EXPECT_EQ(std::string(bytes, 9), "#########");
  EXPECT_EQ(offsets[0], kSizeSentinel);

  size_t len = kSizeSentinel;
  ExpectError(api().GetStringTensorElementLength(t.get(), 6, &len), KILN_INVALID_ARGUMENT,
              "GetStringTensorElementLength", "index");
  ExpectError(api().GetStringTensorElementLength(t.get(), 0, nullptr), KILN_INVALID_ARGUMENT,
              "GetStringTensorElementLength", "out");
  EXPECT_EQ(len, kSizeSentinel);
  ExpectError(api().GetStringTensorElement(t.get(), 4, 0, bytes), KILN_INVALID_ARGUMENT,
              "GetStringTensorElement", "s_len");
  ExpectError(api().GetStringTensorElement(t.get(), 5, 6, bytes), KILN_INVALID_ARGUMENT,
              "GetStringTensorElement", "index");
  ExpectError(api().GetStringTensorElement(t.get(), 5, 0, nullptr), KILN_INVALID_ARGUMENT,
              "GetStringTensorElement", "s");
  EXPECT_EQ(std::string(bytes, 9), "#########");
  ExpectError(api().GetStringTensorDataLength(t.get(), nullptr), KILN_INVALID_ARGUMENT,
              "GetStringTensorDataLength", "out");
}

TEST(StringTensor, NumericTensorIsNotAStringTensor) {
  TestTensor t(KILN_ELEMENT_TYPE_FLOAT);
  const char* s[] = {"1", "2", "3", "4", "5", "6"};
  KilnStatus* status = api().FillStringTensor(t.get(), s, 6);
  EXPECT_NE(std::string(api().GetErrorMessage(status)).find("is a float tensor, not a string"),
            std::string::npos);
  ExpectError(status, KILN_INVALID_ARGUMENT, "FillStringTensor", "value");
  size_t len = kSizeSentinel;
  ExpectError(api().GetStringTensorDataLength(t.get(), &len), KILN_INVALID_ARGUMENT,
              "GetStringTensorDataLength", "value");
  EXPECT_EQ(len, kSizeSentinel);
}

}  // namespace
}  // namespace kiln_test
