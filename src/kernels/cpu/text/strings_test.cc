#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using S = std::vector<std::string>;
using I64 = std::vector<int64_t>;

TEST(TextStringNormalizer, StopwordsAndCaseWithoutLocale) {
  auto out = NodeTest("StringNormalizer", 10)
                 .Attr("case_change_action", "UPPER")
                 .Attr("stopwords", S{"monday"})
                 .Input<std::string>({1, 4}, {"Monday", "tuesday", "ÉTÉ été", "straße"})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 3}));
  EXPECT_EQ(Values<std::string>(*out[0]), (S{"TUESDAY", "ÉTÉ ÉTÉ", "STRAßE"}));
  auto lower = NodeTest("StringNormalizer", 10)
                   .Attr("case_change_action", "LOWER")
                   .Attr("is_case_sensitive", int64_t{1})
                   .Attr("stopwords", S{"monday"})
                   .Attr("locale", "tr_TR")
                   .Input<std::string>({3}, {"Monday", "ΑΒΓ", "ПРИВЕТ Ÿ"})
                   .Run();
  EXPECT_EQ(Values<std::string>(*lower[0]), (S{"monday", "αβγ", "привет ÿ"}));
}

TEST(TextStringNormalizer, AllDroppedGivesOneEmptyString) {
  auto out = NodeTest("StringNormalizer", 10)
                 .Attr("stopwords", S{"a"})
                 .Input<std::string>({2}, {"a", "A"})
                 .Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (S{""}));
  auto empty = NodeTest("StringNormalizer", 10).Input<std::string>({1, 0}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({1, 1}));
}

TEST(TextStringNormalizer, Errors) {
  ExpectNodeError(NodeTest("StringNormalizer", 10).Attr("case_change_action", "TITLE"),
                  ErrorCode::kInvalidGraph, "'case_change_action'");
  ExpectNodeError(NodeTest("StringNormalizer", 10).Input<std::string>({2, 1}, {"a", "b"}),
                  ErrorCode::kInvalidArgument, "[C] or [1, C]");
  ExpectNodeError(NodeTest("StringNormalizer", 10).Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "'X'");
}

TEST(TextStringConcat, Broadcasts) {
  auto out = NodeTest("StringConcat", 20)
                 .Input<std::string>({2, 1}, {"a", "b"})
                 .Input<std::string>({3}, {"1", "2", "的"})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<std::string>(*out[0]), (S{"a1", "a2", "a的", "b1", "b2", "b的"}));
  auto scalar = NodeTest("StringConcat", 20)
                    .Input<std::string>({}, {"cat"})
                    .Input<std::string>({}, {"s"})
                    .Run();
  EXPECT_EQ(Values<std::string>(*scalar[0]), (S{"cats"}));
  auto empty =
      NodeTest("StringConcat", 20).Input<std::string>({0}, {}).Input<std::string>({1}, {"s"}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0}));
}

TEST(TextStringConcat, Errors) {
  ExpectNodeError(NodeTest("StringConcat", 20)
                      .Input<std::string>({2}, {"a", "b"})
                      .Input<std::string>({3}, {"a", "b", "c"}),
                  ErrorCode::kInvalidArgument, "do not broadcast");
  ExpectNodeError(
      NodeTest("StringConcat", 20).Input<std::string>({1}, {"a"}).Input<int64_t>({1}, {1}),
      ErrorCode::kInvalidArgument, "'Y'");
}

TEST(TextStringSplit, DelimiterWhitespaceAndMaxsplit) {
  auto dot = NodeTest("StringSplit", 20)
                 .Attr("delimiter", "-")
                 .Input<std::string>({2}, {"a--b-", ""})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(dot[0]->shape(), Shape({2, 4}));
  EXPECT_EQ(Values<std::string>(*dot[0]), (S{"a", "", "b", "", "", "", "", ""}));
  EXPECT_EQ(Values<int64_t>(*dot[1]), (I64{4, 1}));
  auto ws = NodeTest("StringSplit", 20)
                .Attr("maxsplit", int64_t{1})
                .Input<std::string>({3}, {"  a b  c ", "", "x"})
                .Outputs(2)
                .Run();
  EXPECT_EQ(Values<std::string>(*ws[0]), (S{"a", "b  c ", "", "", "x", ""}));
  EXPECT_EQ(Values<int64_t>(*ws[1]), (I64{2, 0, 1}));
  auto none = NodeTest("StringSplit", 20).Input<std::string>({0}, {}).Outputs(2).Run();
  EXPECT_EQ(none[0]->shape(), Shape({0, 0}));
}

TEST(TextStringSplit, Errors) {
  ExpectNodeError(NodeTest("StringSplit", 20).Attr("maxsplit", int64_t{-2}),
                  ErrorCode::kInvalidGraph, "'maxsplit'");
  ExpectNodeError(NodeTest("StringSplit", 20).Input<int32_t>({1}, {1}).Outputs(2),
                  ErrorCode::kInvalidArgument, "'X'");
}

TEST(TextRegexFullMatch, MatchesWholeStrings) {
  auto out = NodeTest("RegexFullMatch", 20)
                 .Attr("pattern", R"(www\.[\w.-]+\.\bcom\b)")
                 .Input<std::string>({3}, {"www.google.com", "www.bbc.co.uk", "xwww.a.com"})
                 .Run();
  EXPECT_EQ(Values<bool>(*out[0]), (std::vector<bool>{true, false, false}));
  auto empty =
      NodeTest("RegexFullMatch", 20).Attr("pattern", "a").Input<std::string>({2, 0}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({2, 0}));
}

TEST(TextRegexFullMatch, Errors) {
  ExpectNodeError(NodeTest("RegexFullMatch", 20), ErrorCode::kInvalidGraph, "'pattern'");
  ExpectNodeError(NodeTest("RegexFullMatch", 20).Attr("pattern", "(a"), ErrorCode::kInvalidGraph,
                  "'pattern' is not a valid");
  ExpectNodeError(NodeTest("RegexFullMatch", 20).Attr("pattern", "(?P<x>a)"),
                  ErrorCode::kNotImplemented, "RE2");
  ExpectNodeError(NodeTest("RegexFullMatch", 20)
                      .Attr("pattern", "a*")
                      .Input<std::string>({1}, {std::string(70000, 'a')}),
                  ErrorCode::kNotImplemented, "limited");
  ExpectNodeError(NodeTest("RegexFullMatch", 20).Attr("pattern", "a").Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "'X'");
}

}  // namespace
}  // namespace kiln::testing
