// The tool's command-line parser (tools/kiln/args.h).
#include "args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::cli {
namespace {

constexpr OptionSpec kSpecs[] = {
    {"--n", true, false}, {"--flag", false, false}, {"--input", true, true}};

Args Parse(const std::vector<std::string>& argv) {
  return ParseArgs("test", argv, kSpecs);
}

TEST(Args, OptionsInBothFormsPositionalsAndRepeats) {
  const Args a = Parse({"model.onnx", "--n", "3", "--input=a=1", "--flag", "--input", "b=2", "--",
                        "--not-an-option"});
  EXPECT_EQ(a.positional, (std::vector<std::string>{"model.onnx", "--not-an-option"}));
  EXPECT_EQ(a.Value("--n", "0"), "3");
  EXPECT_TRUE(a.Has("--flag"));
  EXPECT_FALSE(a.help);
  EXPECT_EQ(a.Values("--input"), (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(Parse({}).Value("--n", "fallback"), "fallback");
  EXPECT_TRUE(Parse({"-h"}).help);
  EXPECT_TRUE(Parse({"x", "--help"}).help);
  EXPECT_EQ(Parse({"-"}).positional, (std::vector<std::string>{"-"}));
}

TEST(Args, MistakesAreUsageErrors) {
  EXPECT_THROW(Parse({"--nope"}), UsageError);
  EXPECT_THROW(Parse({"--n"}), UsageError);
  EXPECT_THROW(Parse({"--flag=1"}), UsageError);
  EXPECT_THROW(Parse({"--n", "1", "--n=2"}), UsageError);
  EXPECT_THROW(Parse({"-x"}), UsageError);
}

TEST(Args, Numbers) {
  EXPECT_EQ(ParseInt("--n", "42", 0, 100), 42);
  EXPECT_EQ(ParseInt("--n", "-3", -5, 5), -3);
  for (const char* bad : {"", "x", "4x", "101", "-1", "99999999999999999999", " 4"}) {
    EXPECT_THROW(ParseInt("--n", bad, 0, 100), UsageError) << bad;
  }
  EXPECT_EQ(ParseUint64("--seed", "18446744073709551615"), 18446744073709551615ull);
  for (const char* bad : {"", "-1", "+1", "18446744073709551616", "1.5"}) {
    EXPECT_THROW(ParseUint64("--seed", bad), UsageError) << bad;
  }
}

}  // namespace
}  // namespace kiln::cli
