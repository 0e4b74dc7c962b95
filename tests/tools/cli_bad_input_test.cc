// Every `kiln` command on bad input: a missing file, an unknown option, a bad option value, a
// missing argument, an input that does not fit the model, an invalid model, a run that fails.
// Each prints exactly one line "kiln: ..." on stderr naming what is wrong (the file, the option,
// the input with the shapes or types expected and given), nothing on stdout, and exits 2 for a
// mistake in the command line (options and arguments), 1 for the rest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_harness.h"
#include "compute_models.h"
#include "test_models.h"

namespace kiln::test {
namespace {

// The commands that take one MODEL.
std::vector<std::string> ModelCommands() {
  return {"info", "run", "bench", "profile", "print"};
}

// The commands that run the model on inputs.
std::vector<std::string> RunCommands() {
  return {"run", "bench", "profile"};
}

void ExpectOneLine(const CliResult& r, int status, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.status, status) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_GE(r.err.size(), 7u) << "stderr: '" << r.err << "'";
  EXPECT_EQ(r.err.substr(0, 6), "kiln: ") << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: '" << r.err << "'";
  for (const std::string& needle : needles) {
    EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  }
}

// Runs `kiln <command> <args...>`, with the options that keep bench and profile short.
CliResult Kiln(const std::string& command, std::vector<std::string> args) {
  args.insert(args.begin(), command);
  if (command == "bench" || command == "profile") {
    for (const char* a : {"--warmup", "0", "--iters", "1"}) args.emplace_back(a);
  }
  return RunKiln(args);
}

class CliBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir("bad_input_" +
                   std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    model_ =
        WriteModel(IdentityModel({{"x", onnx::TensorProto::FLOAT, {"2", "3"}}}), dir_ / "m.onnx");
  }
  std::string Npy(const std::string& name, const std::string& descr, const std::string& shape,
                  const std::string& data) {
    WriteBytes(dir_ / name, NpyBytes("{'descr': '" + descr +
                                         "', 'fortran_order': False, 'shape': " + shape + "}",
                                     data));
    return (dir_ / name).string();
  }

  std::filesystem::path dir_;
  std::string model_;
};

TEST_F(CliBadInput, MissingModelFileIsAFailure) {
  const std::string missing = (dir_ / "nope.onnx").string();
  for (const std::string& command : ModelCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {missing}), 1, {"cannot load '" + missing + "'"});
  }
  const std::string text = (dir_ / "nope.txt").string();
  ExpectOneLine(Kiln("print", {text}), 1, {"cannot read '" + text + "'"});
  ExpectOneLine(Kiln("convert", {missing, (dir_ / "out.txt").string()}), 1,
                {"cannot load '" + missing + "'"});
}

TEST_F(CliBadInput, InvalidModelIsAFailure) {
  const std::string bad = (dir_ / "bad.onnx").string();
  WriteBytes(bad, "not protobuf \xff\xff\xff");
  for (const std::string& command : ModelCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {bad}), 1, {"cannot load '" + bad + "'"});
  }
  ExpectOneLine(Kiln("convert", {bad, (dir_ / "out.txt").string()}), 1, {"cannot load '" + bad});
  // A model that parses but does not verify: a node reads a value nothing defines.
  onnx::ModelProto dangling = IdentityModel({{"x", onnx::TensorProto::FLOAT, {"2"}}});
  dangling.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  const std::string path = WriteModel(dangling, dir_ / "dangling.onnx");
  for (const std::string& command : RunCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {path}), 1, {"cannot load '" + path + "'", "nowhere"});
  }
}

TEST_F(CliBadInput, UnknownOptionIsAUsageError) {
  for (const std::string& command : ModelCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(
        Kiln(command, {model_, "--bogus"}), 2,
        {"'kiln " + command + "' has no option '--bogus'", "(see 'kiln " + command + " --help')"});
  }
  ExpectOneLine(Kiln("convert", {model_, "out.txt", "--elide", "3"}), 2,
                {"'kiln convert' has no option '--elide'"});
  ExpectOneLine(Kiln("profile", {model_, "--json"}), 2, {"'kiln profile' has no option '--json'"});
}

TEST_F(CliBadInput, BadOptionValueIsAUsageError) {
  struct Case {
    std::string command;
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {"info", {"--json=yes"}, "option '--json' takes no value"},
      {"run", {"--threads", "-1"}, "option '--threads': '-1' is not a whole number"},
      {"run", {"--seed", "x"}, "option '--seed': 'x'"},
      {"run", {"--optimization", "9"}, "option '--optimization': '9'"},
      {"run", {"--config", "nokey"}, "--config 'nokey': expected KEY=VALUE"},
      {"run", {"--input", "x"}, "--input 'x' is not NAME=FILE"},
      {"bench", {"--iters", "0"}, "option '--iters': '0' is not a whole number from 1"},
      {"bench", {"--warmup", "many"}, "option '--warmup': 'many'"},
      {"bench", {"--top", "3"}, "option '--top' needs --profile"},
      {"bench", {"--trace", "t.json"}, "option '--trace' needs --profile"},
      {"bench", {"--profile", "--json"}, "options '--profile' and '--json' conflict"},
      {"profile", {"--top", "0"}, "option '--top': '0' is not a whole number from 1"},
      {"profile", {"--iters", "-2"}, "option '--iters': '-2'"},
      {"profile", {"--trace="}, "option '--trace' needs a file name"},
      {"profile", {"--threads", "2x"}, "option '--threads': '2x'"},
      {"print", {"--elide", "x"}, "option '--elide': 'x'"},
      {"print", {"--threads", "2"}, "option '--threads' needs --optimized"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.command + " " + c.args[0]);
    std::vector<std::string> args = {c.command, model_};
    args.insert(args.end(), c.args.begin(), c.args.end());
    ExpectOneLine(RunKiln(args), 2, {c.needle, "(see 'kiln " + c.command + " --help')"});
  }
}

TEST_F(CliBadInput, MissingArgumentIsAUsageError) {
  for (const std::string& command : ModelCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {}), 2, {"'kiln " + command + "' needs a MODEL"});
    ExpectOneLine(Kiln(command, {model_, model_}), 2, {"takes one MODEL; unexpected '" + model_});
  }
  ExpectOneLine(Kiln("convert", {model_}), 2, {"'kiln convert' takes IN and OUT; got 1 argument"});
  ExpectOneLine(Kiln("convert", {}), 2, {"'kiln convert' takes IN and OUT; got 0 arguments"});
  // An option's value left out, at the end of the line.
  for (const auto& [command, option] : std::vector<std::pair<std::string, std::string>>{
           {"info", "--custom-op-library"}, {"run", "--input"}, {"print", "--elide"}}) {
    SCOPED_TRACE(command);
    ExpectOneLine(RunKiln({command, model_, option}), 2, {"option '" + option + "' needs a value"});
  }
  ExpectOneLine(RunKiln({"bench", model_, "--iters"}), 2, {"option '--iters' needs a value"});
  ExpectOneLine(RunKiln({"profile", model_, "--trace"}), 2, {"option '--trace' needs a value"});
}

// The same input given twice is a mistake in the command line, found before the model is
// loaded (the files need not exist, nor the model).
TEST_F(CliBadInput, InputGivenTwiceIsAUsageError) {
  const std::string a = (dir_ / "a.npy").string();
  const std::string b = (dir_ / "b.npy").string();
  const std::string twice = "--input 'x' is given more than once ('" + a + "' and '" + b + "')";
  for (const std::string& command : RunCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {model_, "--input", "x=" + a, "--input", "x=" + b}), 2,
                  {twice, "(see 'kiln " + command + " --help')"});
    ExpectOneLine(Kiln(command, {(dir_ / "none.onnx").string(), "--input", "x=" + a, "--input",
                                 "y=" + b, "--input", "x=" + a}),
                  2, {"--input 'x' is given more than once"});
  }
}

TEST_F(CliBadInput, InputThatDoesNotFitIsAFailure) {
  const std::string floats = Bytes(std::vector<float>(6, 1.0f));
  const std::string wrong_shape = Npy("shape.npy", "<f4", "(3, 2)", floats);
  const std::string wrong_rank = Npy("rank.npy", "<f4", "(6,)", floats);
  const std::string wrong_type = Npy("type.npy", "<i8", "(2, 3)", Bytes(std::vector<int64_t>(6)));
  const std::string good = Npy("good.npy", "<f4", "(2, 3)", floats);
  const std::string missing = (dir_ / "none.npy").string();
  for (const std::string& command : RunCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {model_, "--input", "x=" + wrong_shape}), 1,
                  {"input 'x' expects shape [2, 3] but '" + wrong_shape + "' holds [3, 2]"});
    ExpectOneLine(Kiln(command, {model_, "--input", "x=" + wrong_rank}), 1,
                  {"input 'x' expects shape [2, 3] but '" + wrong_rank + "' holds [6]"});
    ExpectOneLine(Kiln(command, {model_, "--input", "x=" + wrong_type}), 1,
                  {"input 'x' is float but '" + wrong_type + "' holds int64"});
    ExpectOneLine(Kiln(command, {model_, "--input", "y=" + good}), 1,
                  {"--input 'y': the model has no input of that name (its inputs: x)"});
    ExpectOneLine(Kiln(command, {model_, "--input", "x=" + missing}), 1,
                  {"input 'x': cannot read '" + missing + "'"});
  }
  // A symbolic dimension takes any size; the fixed one must still match.
  const std::string symbolic =
      WriteModel(IdentityModel({{"x", onnx::TensorProto::FLOAT, {"batch", "2"}}}), dir_ / "s.onnx");
  EXPECT_EQ(Kiln("run", {symbolic, "--input", "x=" + wrong_shape}).status, 0);
  ExpectOneLine(Kiln("run", {symbolic, "--input", "x=" + good}), 1,
                {"input 'x' expects shape [batch, 2] but '" + good + "' holds [2, 3]"});
}

TEST_F(CliBadInput, FailingRunIsAFailure) {
  const std::string model = WriteModel(FailingReshapeModel(), dir_ / "reshape.onnx");
  for (const std::string& command : RunCommands()) {
    SCOPED_TRACE(command);
    ExpectOneLine(Kiln(command, {model}), 1, {"the run failed", "reshape"});
  }
}

TEST_F(CliBadInput, UnwritableOutputIsAFailure) {
  const std::string nowhere = (dir_ / "no" / "such" / "folder").string();
  ExpectOneLine(Kiln("profile", {model_, "--trace", nowhere + "/t.json"}), 1,
                {"--trace '" + nowhere + "/t.json': cannot write into '" + nowhere + "'"});
  ExpectOneLine(Kiln("profile", {model_, "--trace", dir_.string()}), 1,
                {"--trace '" + dir_.string() + "': a folder"});
  ExpectOneLine(Kiln("convert", {model_, nowhere + "/m.txt"}), 1,
                {"cannot write '" + nowhere + "/m.txt'"});
  WriteBytes(dir_ / "file", "x");
  ExpectOneLine(Kiln("run", {model_, "--output-dir", (dir_ / "file").string()}), 1,
                {"cannot create '" + (dir_ / "file").string() + "'"});
}

}  // namespace
}  // namespace kiln::test
