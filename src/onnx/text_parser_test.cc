#include "onnx/text_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "ir/text_printer.h"
#include "onnx/loader.h"

namespace kiln::onnx {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string TextsDir() {
  return std::string(KILN_SOURCE_DIR) + "/src/ir/testdata/text_printer/";
}

TEST(TextParser, ReadsBackWhatThePrinterWrote) {
  for (const char* name : {"matmul_add", "attributes", "if"}) {
    const std::string text = Read(TextsDir() + name + ".txt");
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_EQ(ir::ModelToText(ParseModelText(text)), text) << name;
  }
}

TEST(TextParser, ReadsQuotedNamesAndEscapes) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
"my graph" (float[2] "/in:0") => (float[2] "out put")
<string[1] s = {"say \"hi\"\\ \x41"}>
{
  # a comment
  "out put" = Neg ("/in:0")  # and another
}
)";
  const ir::Model m = ParseModelText(text);
  EXPECT_EQ(m.graph->name(), "my graph");
  EXPECT_EQ(m.graph->inputs()[0]->name(), "/in:0");
  const ir::Value* s = m.graph->FindValue("s");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(s->initializer(), nullptr);
  EXPECT_EQ(s->initializer()->strings()[0], "say \"hi\"\\ A");
}

void ExpectParseError(const std::string& text, const std::string& where, const std::string& what) {
  try {
    ParseModelText(text);
    ADD_FAILURE() << "parsed: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(TextParser, NamesTheLineAndColumnOfWhatDoesNotParse) {
  const std::string head = "<ir_version: 8, opset_import: [\"\" : 17]>\n";
  ExpectParseError(head + "g (flot[2] x) => (float[2] y) { y = Neg (x) }", "line 2, column 4",
                   "'flot' is not a type");
  ExpectParseError(head + "g (float[2] x) => (float[2] y) {\n  y = Neg (x\n}", "line 4, column 1",
                   "expected ')', found '}'");
  ExpectParseError(head + "g (float[2] x) => (float[2] y) { y = Neg (x) ", "line 2",
                   "expected '}', found the end");
  ExpectParseError("<ir_version: 8, color: \"red\">", "line 1, column 17",
                   "unknown model field 'color'");
  ExpectParseError(head + "g () => (string[1] y) <string[1] y = {\"open}> { }", "line 2",
                   "a string is not closed");
  ExpectParseError(head + "g () => (float[1] y) { y = Constant <value: graphs = []> () }", "line 2",
                   "attribute type 'graphs'");
}

TEST(TextParser, LeavesTheModelsChecksToTheLoader) {
  // Parses, but y has no producer: the loader's error, as for a model file.
  try {
    ParseModelText("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y) {}");
    ADD_FAILURE() << "a dangling output loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph) << e.what();
  }
}

// The models of ONNX's suites (the newest in ../shared/onnx-tests and Debian's 1.12 set: node,
// pytorch-converted, pytorch-operator and simple) and of the light model zoo
// (../shared/onnx-tests/light: AlexNet, DenseNet-121, Inception v1/v2, ResNet-50, ShuffleNet,
// SqueezeNet, VGG-19, ZFNet-512).
std::vector<std::string> SuiteModels() {
  std::vector<std::string> paths;
  const std::string shared = std::string(KILN_SOURCE_DIR) + "/../shared/onnx-tests";
  for (const std::string& root : {shared, std::string("/usr/share/libonnx-testdata/data")}) {
    for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
      const std::string dir = root + "/" + suite;
      if (!std::filesystem::is_directory(dir)) continue;
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string path = entry.path().string() + "/model.onnx";
        if (std::filesystem::exists(path)) paths.push_back(path);
      }
    }
  }
  if (std::filesystem::is_directory(shared + "/light")) {
    for (const auto& entry : std::filesystem::directory_iterator(shared + "/light")) {
      if (entry.path().extension() == ".onnx") paths.push_back(entry.path().string());
    }
  }
  return paths;
}

// Print, parse, print: the second text is the first, for every model of the suites and the zoo
// that Kiln loads and whose text holds all of it (no elided values: no "# " notes).
TEST(TextParser, PrintParsePrintIsAFixedPointOverTheOnnxSuitesAndTheZoo) {
  size_t checked = 0;
  size_t with_notes = 0;
  size_t zoo = 0;
  for (const std::string& path : SuiteModels()) {
    ir::Model model;
    try {
      model = LoadModelFile(path);
    } catch (const Error&) {
      continue;  // (what Kiln does not load, the conformance manifest lists)
    }
    const std::string text = ir::ModelToText(model);
    if (text.find("\n# ") != std::string::npos || text.find("  # ") != std::string::npos) {
      ++with_notes;
      continue;
    }
    try {
      EXPECT_EQ(ir::ModelToText(ParseModelText(text)), text) << path;
    } catch (const Error& e) {
      ADD_FAILURE() << path << ": " << e.what() << "\n" << text.substr(0, 4096);
    }
    ++checked;
    zoo += path.find("/light/") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(zoo, 0u) << "the light model zoo was not found";
  EXPECT_GT(checked, 1000u) << "the ONNX suites were not found";
  std::printf(
      "print-parse-print: %zu models at a fixed point (%zu of the zoo), %zu with elided "
      "values\n",
      checked, zoo, with_notes);
}

}  // namespace
}  // namespace kiln::onnx
