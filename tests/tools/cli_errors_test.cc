// kiln's error paths: each exits non-zero with one line "kiln: ..." on stderr saying what is
// wrong, and prints nothing on stdout. Usage mistakes exit 2, failures 1. And --help works.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <onnx/onnx-data_pb.h>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

void ExpectFailure(const CliResult& r, int status, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.status, status) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_GE(r.err.size(), 7u) << "stderr: '" << r.err << "'";
  EXPECT_EQ(r.err.substr(0, 6), "kiln: ") << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: '" << r.err << "'";
  for (const std::string& needle : needles) {
    EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  }
}

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    model_ =
        WriteModel(IdentityModel({{"x", onnx::TensorProto::FLOAT, {"2", "3"}}}), dir_ / "m.onnx");
  }
  // Writes a .npy with `header` and `data` and returns its path.
  std::string Npy(const std::string& name, const std::string& header, const std::string& data) {
    WriteBytes(dir_ / name, NpyBytes(header, data));
    return (dir_ / name).string();
  }
  CliResult RunWithInput(const std::string& path) {
    return RunKiln({"run", model_, "--input", "x=" + path});
  }

  std::filesystem::path dir_;
  std::string model_;
  const std::string floats_ = Bytes(std::vector<float>(6, 1.0f));
};

TEST_F(CliErrors, MissingModelFile) {
  const std::string missing = (dir_ / "nope.onnx").string();
  for (const char* command : {"info", "run", "bench"}) {
    SCOPED_TRACE(command);
    // "cannot load" is the tool's; the file's name and the failing entry are Kiln's message.
    ExpectFailure(RunKiln({command, missing}), 1,
                  {"cannot load '" + missing + "'", "CreateSession"});
  }
}

TEST_F(CliErrors, CorruptModelFile) {
  WriteBytes(dir_ / "bad.onnx", "this is not protobuf \xff\xff\xff");
  ExpectFailure(RunKiln({"info", (dir_ / "bad.onnx").string()}), 1, {"cannot load", "bad.onnx"});
}

TEST_F(CliErrors, BadInputSyntax) {
  for (const char* spec : {"x", "=f.npy", "x="}) {
    SCOPED_TRACE(spec);
    ExpectFailure(RunKiln({"run", model_, "--input", spec}), 2,
                  {"--input '" + std::string(spec) + "' is not NAME=FILE", "kiln run --help"});
  }
}

TEST_F(CliErrors, UnknownInputName) {
  const std::string npy =
      Npy("x.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", floats_);
  ExpectFailure(RunKiln({"run", model_, "--input", "y=" + npy}), 1,
                {"'y'", "no input of that name", "its inputs: x"});
}

TEST_F(CliErrors, InputGivenTwice) {
  const std::string npy =
      Npy("x.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", floats_);
  ExpectFailure(RunKiln({"run", model_, "--input", "x=" + npy, "--input", "x=" + npy}), 2,
                {"'x' is given more than once", "kiln run --help"});
}

TEST_F(CliErrors, WrongDtypeNpy) {
  const std::string npy = Npy("x.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3)}",
                              Bytes(std::vector<int64_t>(6, 1)));
  ExpectFailure(RunWithInput(npy), 1, {"input 'x' is float but '" + npy + "' holds int64"});
}

TEST_F(CliErrors, WrongShapeNamesTheInputAndBothShapes) {
  const std::string npy =
      Npy("x.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)}", floats_);
  ExpectFailure(RunWithInput(npy), 1,
                {"input 'x' expects shape [2, 3] but '" + npy + "' holds [3, 2]"});
}

TEST_F(CliErrors, CorruptNpy) {
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}";
  ExpectFailure(RunWithInput(Npy("short.npy", header, floats_.substr(0, 20))), 1,
                {"short.npy: corrupt .npy: the data is 20 bytes", "need 24"});
  ExpectFailure(RunWithInput(Npy("long.npy", header, floats_ + "x")), 1, {"the data is 25 bytes"});
  WriteBytes(dir_ / "magic.npy", "NUMPY nonsense");
  ExpectFailure(RunWithInput((dir_ / "magic.npy").string()), 1, {"not a .npy file"});
  WriteBytes(dir_ / "cut.npy", NpyBytes(header, floats_).substr(0, 30));
  ExpectFailure(RunWithInput((dir_ / "cut.npy").string()), 1, {"the header is cut off"});
  ExpectFailure(RunWithInput(Npy("dict.npy", "{'descr': '<f4', 'shape': (2, 3)}", floats_)), 1,
                {"corrupt .npy header: no 'fortran_order'"});
  ExpectFailure(RunWithInput(Npy("syntax.npy", "{'descr': '<f4' 'fortran_order': False}", floats_)),
                1, {"corrupt .npy header"});
  std::string version = NpyBytes(header, floats_);
  version[6] = 4;
  WriteBytes(dir_ / "version.npy", version);
  ExpectFailure(RunWithInput((dir_ / "version.npy").string()), 1,
                {"format version 4.0 is not supported"});
}

TEST_F(CliErrors, UnsupportedNpyLayouts) {
  ExpectFailure(RunWithInput(Npy(
                    "f.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3)}", floats_)),
                1, {"Fortran order", "not supported"});
  ExpectFailure(
      RunWithInput(
          Npy("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3)}", floats_)),
      1, {"big-endian", "not supported"});
  ExpectFailure(RunWithInput(Npy("c.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}",
                                 floats_)),
                1, {"dtype '<c8' is not supported"});
}

TEST_F(CliErrors, CorruptOrUnsupportedPb) {
  WriteBytes(dir_ / "junk.pb", "\xff\xff\xff\xff garbage");
  ExpectFailure(RunWithInput((dir_ / "junk.pb").string()), 1,
                {"not a serialized ONNX TensorProto"});
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(3);
  t.add_float_data(1);
  WriteBytes(dir_ / "count.pb", t.SerializeAsString());
  ExpectFailure(RunWithInput((dir_ / "count.pb").string()), 1,
                {"1 values in float_data but its dims need 6"});
  onnx::SequenceProto seq;
  seq.set_name("s");
  seq.set_elem_type(onnx::SequenceProto::TENSOR);
  *seq.add_tensor_values() = t;
  WriteBytes(dir_ / "seq.pb", seq.SerializeAsString());
  ExpectFailure(RunWithInput((dir_ / "seq.pb").string()), 1,
                {"SequenceProto", "a tensor is expected here"});
}

TEST_F(CliErrors, UnknownOptionAndMissingValue) {
  ExpectFailure(RunKiln({"run", model_, "--bogus"}), 2, {"'kiln run' has no option '--bogus'"});
  ExpectFailure(RunKiln({"info", model_, "--threads", "2"}), 2,
                {"'kiln info' has no option '--threads'"});
  ExpectFailure(RunKiln({"bench", model_, "--iters"}), 2, {"option '--iters' needs a value"});
  ExpectFailure(RunKiln({"bench", model_, "--iters", "0"}), 2, {"'--iters'", "1 to"});
  ExpectFailure(RunKiln({"run", model_, "--threads", "two"}), 2, {"'two' is not a whole number"});
  ExpectFailure(RunKiln({"run", model_, "--seed", "-1"}), 2, {"'--seed'"});
  ExpectFailure(RunKiln({"run", model_, "--optimization", "9"}), 2, {"'--optimization'"});
  ExpectFailure(RunKiln({"info", model_, "--json=yes"}), 2, {"'--json' takes no value"});
  ExpectFailure(RunKiln({"run", model_, "--seed", "1", "--seed", "2"}), 2,
                {"'--seed' is given more than once"});
  ExpectFailure(RunKiln({"info"}), 2, {"needs a MODEL"});
  ExpectFailure(RunKiln({"info", model_, model_}), 2, {"takes one MODEL"});
  ExpectFailure(RunKiln({"frobnicate"}), 2, {"unknown command 'frobnicate'", "kiln --help"});
}

TEST_F(CliErrors, OutputDirThatIsAFile) {
  WriteBytes(dir_ / "file", "x");
  ExpectFailure(RunKiln({"run", model_, "--output-dir", (dir_ / "file").string()}), 1,
                {"cannot create"});
}

TEST(CliHelp, EveryCommandPrintsUsage) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"}, {"-h"}, {"help"}}) {
    const CliResult r = RunKiln(args);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out.rfind("usage: kiln <command>", 0), 0u) << r.out;
    EXPECT_EQ(r.err, "");
  }
  for (const char* command : {"info", "run", "bench", "profile", "print"}) {
    const CliResult r = RunKiln({command, "--help"});
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_EQ(r.out.rfind(std::string("usage: kiln ") + command + " MODEL", 0), 0u) << r.out;
    EXPECT_EQ(r.err, "");
  }
  EXPECT_EQ(RunKiln({"convert", "--help"}).out.rfind("usage: kiln convert IN OUT", 0), 0u);
  // The newer commands and options are in the help.
  const std::string help = RunKiln({"--help"}).out;
  EXPECT_NE(help.find("\n  profile MODEL "), std::string::npos) << help;
  EXPECT_NE(help.find("with --profile"), std::string::npos) << help;
  EXPECT_NE(help.find("progress line"), std::string::npos) << help;
  const std::string bench = RunKiln({"bench", "--help"}).out;
  const std::string profile = RunKiln({"profile", "--help"}).out;
  for (const char* option : {"--top N", "--trace PATH", "--input NAME=FILE", "--threads N"}) {
    EXPECT_NE(bench.find(std::string("\n  ") + option), std::string::npos) << option;
    EXPECT_NE(profile.find(std::string("\n  ") + option), std::string::npos) << option;
  }
  EXPECT_NE(bench.find("\n  --profile "), std::string::npos) << bench;
  EXPECT_NE(profile.find("\n  --iters K "), std::string::npos) << profile;
  EXPECT_NE(profile.find("https://ui.perfetto.dev"), std::string::npos) << profile;
  const CliResult none = RunKiln({});
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err.rfind("usage: kiln <command>", 0), 0u) << none.err;
}

}  // namespace
}  // namespace kiln::test
