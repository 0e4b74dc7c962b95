// kiln print and kiln convert: models in ONNX's textual syntax, as loaded and as optimized, and
// conversion between .onnx and text both ways.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

// A model in the form `kiln print` prints it, so that printing it gives the same text.
constexpr char kAffineText[] = R"(<
  ir_version: 8,
  opset_import: ["" : 17],
  producer_name: "kiln-tests"
>
affine (float[N, 3] x) => (float[N, 2] y)
<
  float[3, 2] w = {1.0, -2.5, 0.125, 3.0, 0.5, 100.0},
  float[2] b = {1.0, -1.0}
>
{
  xw = MatMul (x, w)
  y = Add (xw, b)
}
)";

// Conv followed by Relu: the optimizer fuses the two into one node.
constexpr char kConvReluText[] = R"(<
  ir_version: 8,
  opset_import: ["" : 17]
>
conv_relu (float[1, 1, 4, 4] x) => (float[1, 2, 4, 4] y)
<
  float[2, 1, 1, 1] w = {1.0, -1.0},
  float[2] b = {0.5, 0.25}
>
{
  c = Conv <kernel_shape: ints = [1, 1]> (x, w, b)
  y = Relu (c)
}
)";

// `out` must contain `needle`.
void ExpectContains(const std::string& out, const std::string& needle) {
  EXPECT_NE(out.find(needle), std::string::npos) << "'" << needle << "' not in:\n" << out;
}

// A failure: `status`, nothing on stdout, one line "kiln: ..." on stderr holding each needle.
void ExpectFailure(const CliResult& r, int status, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.status, status) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("kiln: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: '" << r.err << "'";
  for (const std::string& needle : needles) {
    EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  }
}

class CliPrint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  // Writes `text` to `name` in the test's folder and returns its path.
  std::string Write(const std::string& name, const std::string& text) {
    WriteBytes(dir_ / name, text);
    return (dir_ / name).string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(CliPrint, TextModelPrintsAsWritten) {
  for (const char* name : {"affine.txt", "affine.onnxtxt", "affine"}) {
    SCOPED_TRACE(name);
    const CliResult r = RunKiln({"print", Write(name, kAffineText)});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, kAffineText);
  }
}

TEST_F(CliPrint, OnnxFile) {
  const std::string model =
      WriteModel(IdentityModel({{"x", onnx::TensorProto::FLOAT, {"batch", "3"}}}), Path("m.onnx"));
  for (const std::string& path : {model, Path("M.ONNX")}) {
    if (path != model) std::filesystem::copy_file(model, path);
    const CliResult r = RunKiln({"print", path});
    ASSERT_EQ(r.status, 0) << r.err;
    ExpectContains(r.out, "ir_version: 8,\n  opset_import: [\"\" : 17]");
    ExpectContains(r.out, "(float[batch, 3] x) => (float[batch, 3] x_out)");
    ExpectContains(r.out, "  x_out = Identity (x)\n");
    EXPECT_EQ(r.out.find("# kernel"), std::string::npos) << r.out;
  }
}

TEST_F(CliPrint, ElideLeavesOutLargeInitializers) {
  const std::string model = Write("affine.txt", kAffineText);
  const CliResult elided = RunKiln({"print", model, "--elide", "2"});
  ASSERT_EQ(elided.status, 0) << elided.err;
  ExpectContains(elided.out, "  float[3, 2] w,\n");
  ExpectContains(elided.out, "  float[2] b = {1.0, -1.0}\n");
  ExpectContains(elided.out, "# w: 6 elements elided\n");
  const CliResult all = RunKiln({"print", model, "--elide=6"});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out, kAffineText);
  const CliResult none = RunKiln({"print", model, "--elide", "0"});
  ASSERT_EQ(none.status, 0) << none.err;
  ExpectContains(none.out, "# b: 2 elements elided\n");
}

TEST_F(CliPrint, OptimizedShowsKernelsAndFusedNodes) {
  // The text syntax has no node names: the .onnx file names them conv1 and relu1.
  const std::string model = Path("conv_relu.onnx");
  ASSERT_EQ(RunKiln({"convert", Write("conv_relu.txt", kConvReluText), model}).status, 0);
  onnx::ModelProto proto;
  {
    const std::string bytes = ReadBytes(model);
    ASSERT_TRUE(proto.ParseFromString(bytes));
  }
  ASSERT_EQ(proto.graph().node_size(), 2);
  proto.mutable_graph()->mutable_node(0)->set_name("conv1");
  proto.mutable_graph()->mutable_node(1)->set_name("relu1");
  WriteModel(proto, model);

  const CliResult r = RunKiln({"print", "--optimized", model, "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // The two nodes are one, with the kernel that runs it and the loaded nodes it came from.
  EXPECT_EQ(r.out.find("Relu ("), std::string::npos) << r.out;
  ExpectContains(r.out, "\n  # fused from: conv1, relu1\n");
  const size_t from = r.out.find("  # fused from: ");
  ASSERT_NE(from, std::string::npos);
  const size_t kernel = r.out.rfind("\n  # kernel: CPU ", from);
  ASSERT_NE(kernel, std::string::npos) << r.out;
  const std::string kernel_line = r.out.substr(kernel + 1, from - kernel - 2);
  EXPECT_EQ(kernel_line.find('\n'), std::string::npos) << "no kernel line before:\n" << r.out;
  EXPECT_NE(kernel_line.find("Conv"), std::string::npos) << kernel_line;

  // Optimization disabled: the graph as loaded, each node with its kernel, nothing fused.
  const CliResult plain = RunKiln({"print", model, "--optimized", "--optimization", "disable"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  ExpectContains(plain.out, "  c = Conv <kernel_shape: ints = [1, 1]> (x, w, b)\n  # kernel: CPU ");
  ExpectContains(plain.out, "  y = Relu (c)\n  # kernel: CPU ");
  EXPECT_EQ(plain.out.find("# fused from"), std::string::npos) << plain.out;

  // Without --optimized: the model as loaded, no comments.
  const CliResult loaded = RunKiln({"print", model});
  ASSERT_EQ(loaded.status, 0) << loaded.err;
  EXPECT_EQ(loaded.out, kConvReluText);
}

TEST_F(CliPrint, ConvertRoundTripsOnnxAndText) {
  const std::string text = Write("affine.txt", kAffineText);
  const CliResult to_onnx = RunKiln({"convert", text, Path("affine.onnx")});
  ASSERT_EQ(to_onnx.status, 0) << to_onnx.err;
  EXPECT_EQ(to_onnx.out, "");
  EXPECT_EQ(to_onnx.err, "");
  // The .onnx file loads (a session runs it) and prints as the original text.
  const CliResult info = RunKiln({"info", Path("affine.onnx")});
  ASSERT_EQ(info.status, 0) << info.err;
  ExpectContains(info.out, "inputs (1)\n  x  float [N, 3]\n");
  const CliResult printed = RunKiln({"print", Path("affine.onnx")});
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_EQ(printed.out, kAffineText);

  const CliResult to_text = RunKiln({"convert", Path("affine.onnx"), Path("back.onnxtxt")});
  ASSERT_EQ(to_text.status, 0) << to_text.err;
  EXPECT_EQ(ReadBytes(dir_ / "back.onnxtxt"), kAffineText);

  // .onnx to .onnx and text to text work too; the output is overwritten.
  WriteBytes(dir_ / "copy.txt", "old contents that are longer than nothing");
  ASSERT_EQ(RunKiln({"convert", text, Path("copy.txt")}).status, 0);
  EXPECT_EQ(ReadBytes(dir_ / "copy.txt"), kAffineText);
  ASSERT_EQ(RunKiln({"convert", Path("affine.onnx"), Path("copy.onnx")}).status, 0);
  EXPECT_EQ(RunKiln({"print", Path("copy.onnx")}).out, kAffineText);
}

TEST_F(CliPrint, ParseErrorsGiveLineAndColumn) {
  std::string broken = kAffineText;
  broken.replace(broken.find("MatMul (x, w)"), 13, "MatMul (x, w");
  const std::string path = Write("broken.txt", broken);
  // "  y = Add" on line 13 is where the text stops parsing: ')' was expected.
  ExpectFailure(RunKiln({"print", path}), 1,
                {"cannot parse '" + path + "' as ONNX text", "line 13, column 3"});
  ExpectFailure(RunKiln({"convert", path, Path("out.onnx")}), 1, {"line 13, column 3"});
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.onnx"));

  // A protobuf file not named .onnx is read as text; the message says how to name it.
  const std::string model =
      WriteModel(IdentityModel({{"x", onnx::TensorProto::FLOAT, {"2"}}}), Path("m.onnx"));
  std::filesystem::copy_file(model, Path("m.pb"));
  ExpectFailure(RunKiln({"print", Path("m.pb")}), 1, {"line 1, column", "ending in .onnx"});
}

TEST_F(CliPrint, FileErrors) {
  const std::string text = Write("affine.txt", kAffineText);
  ExpectFailure(RunKiln({"print", Path("missing.txt")}), 1,
                {"cannot read '" + Path("missing.txt") + "'"});
  ExpectFailure(RunKiln({"print", Path("missing.onnx")}), 1,
                {"cannot load '" + Path("missing.onnx") + "'"});
  ExpectFailure(RunKiln({"print", dir_.string()}), 1, {"cannot read"});
  WriteBytes(dir_ / "bad.onnx", "this is not protobuf \xff\xff\xff");
  ExpectFailure(RunKiln({"convert", Path("bad.onnx"), Path("out.txt")}), 1,
                {"cannot load '" + Path("bad.onnx") + "'"});
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.txt"));
  const std::string unwritable = Path("no/such/folder/out");
  ExpectFailure(RunKiln({"convert", text, unwritable + ".txt"}), 1,
                {"cannot write '" + unwritable + ".txt'"});
  ExpectFailure(RunKiln({"convert", text, unwritable + ".onnx"}), 1,
                {"cannot write '" + unwritable + ".onnx'"});
}

TEST_F(CliPrint, BadCommandLines) {
  const std::string text = Write("affine.txt", kAffineText);
  ExpectFailure(RunKiln({"print"}), 2, {"'kiln print' needs a MODEL", "kiln print --help"});
  ExpectFailure(RunKiln({"print", text, text}), 2, {"takes one MODEL"});
  ExpectFailure(RunKiln({"print", text, "--bogus"}), 2, {"'kiln print' has no option '--bogus'"});
  ExpectFailure(RunKiln({"print", text, "--debug"}), 2, {"has no option '--debug'"});
  ExpectFailure(RunKiln({"print", text, "--elide"}), 2, {"'--elide' needs a value"});
  ExpectFailure(RunKiln({"print", text, "--elide", "-2"}), 2, {"'--elide'", "-2"});
  ExpectFailure(RunKiln({"print", text, "--elide", "many"}), 2, {"'--elide'", "many"});
  ExpectFailure(RunKiln({"print", text, "--optimized=yes"}), 2, {"takes no value"});
  ExpectFailure(RunKiln({"print", text, "--threads", "2"}), 2, {"'--threads' needs --optimized"});
  ExpectFailure(RunKiln({"print", text, "--optimized", "--optimization", "9"}), 2,
                {"--optimization"});
  ExpectFailure(RunKiln({"convert", text}), 2, {"takes IN and OUT", "kiln convert --help"});
  ExpectFailure(RunKiln({"convert", text, Path("a.txt"), Path("b.txt")}), 2, {"got 3"});
  ExpectFailure(RunKiln({"convert", text, Path("a.txt"), "--elide", "3"}), 2,
                {"'kiln convert' has no option '--elide'"});
}

TEST_F(CliPrint, Help) {
  const CliResult usage = RunKiln({"--help"});
  ASSERT_EQ(usage.status, 0);
  ExpectContains(usage.out, "  print MODEL ");
  ExpectContains(usage.out, "  convert IN OUT");
  for (const char* command : {"print", "convert"}) {
    SCOPED_TRACE(command);
    const CliResult r = RunKiln({command, "--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    ExpectContains(r.out, std::string("usage: kiln ") + command);
    EXPECT_EQ(r.err, "");
  }
}

}  // namespace
}  // namespace kiln::test
