#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8("", nullptr));
  EXPECT_TRUE(IsValidUtf8("plain ascii", nullptr));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5", nullptr));  // é € 🔥
}

TEST(Utf8, ReportsTheFirstBadByte) {
  const struct {
    std::string text;
    size_t offset;
  } cases[] = {
      {"ab\xFF", 2},            // not a lead byte
      {"a\xC3", 1},             // truncated
      {"\xC0\xAF", 0},          // overlong '/'
      {"xx\xED\xA0\x80", 2},    // surrogate U+D800
      {"\xF4\x90\x80\x80", 0},  // past U+10FFFF
      {"ok\xE2\x28\xA1", 2},    // bad continuation
  };
  for (const auto& c : cases) {
    size_t bad = 999;
    EXPECT_FALSE(IsValidUtf8(c.text, &bad));
    EXPECT_EQ(bad, c.offset);
  }
}

}  // namespace
}  // namespace kiln
