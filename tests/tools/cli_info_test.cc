// kiln info: text and --json over models built with test_models.h.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

// `out` must contain `needle`.
void ExpectContains(const std::string& out, const std::string& needle) {
  EXPECT_NE(out.find(needle), std::string::npos) << "'" << needle << "' not in:\n" << out;
}

TEST(CliInfo, TextShowsTypesShapesOpsetsOpsParametersAndMetadata) {
  const auto dir = TestDir("info_text");
  const std::string model = WriteModel(RichModel(), dir / "rich.onnx");
  const CliResult r = RunKiln({"info", model});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ExpectContains(r.out, "model         " + model + "\n");
  ExpectContains(r.out, "ir version    8\n");
  ExpectContains(r.out, "producer      kiln-tests 1.2\n");
  ExpectContains(r.out, "graph         rich_graph\n");
  ExpectContains(r.out, "domain        org.kiln.tests\n");
  ExpectContains(r.out, "description   A test model\n");
  ExpectContains(r.out, "model version 7\n");
  ExpectContains(r.out, "metadata      author = tests\n              license = MIT\n");
  ExpectContains(r.out, "opsets        ai.onnx 17, com.kiln.tests 1\n");
  ExpectContains(r.out, "inputs (2)\n  x    float [batch, 3]\n  ids  int64 [2, seq, ?]\n");
  ExpectContains(r.out,
                 "outputs (4)\n  x_out    float [batch, 3]\n  ids_out  int64 [2, seq, ?]\n"
                 "  w_out    float [3, 4]\n  b_out    int64 [5]\n");
  ExpectContains(r.out, "parameters    17 in 2 initializers\n");
  ExpectContains(r.out, "ops (4 nodes, 1 op type)\n  Identity  4\n");
}

TEST(CliInfo, JsonHasEveryPromisedKey) {
  const auto dir = TestDir("info_json");
  const std::string model = WriteModel(RichModel(), dir / "rich.onnx");
  const CliResult r = RunKiln({"info", model, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const JsonValue j = ParseJson(r.out);
  ASSERT_EQ(j.kind, JsonValue::kObject);
  const std::set<std::string> keys(j.keys.begin(), j.keys.end());
  EXPECT_EQ(j.keys.size(), keys.size()) << "a key is repeated";
  EXPECT_EQ(keys, (std::set<std::string>{"model", "ir_version", "producer_name", "producer_version",
                                         "graph_name", "domain", "description", "graph_description",
                                         "model_version", "metadata", "opset_imports", "inputs",
                                         "outputs", "node_count", "op_histogram", "parameter_count",
                                         "initializer_count"}));
  EXPECT_EQ(j.At("model").text, model);
  EXPECT_EQ(j.At("ir_version").number, 8);
  EXPECT_EQ(j.At("producer_name").text, "kiln-tests");
  EXPECT_EQ(j.At("producer_version").text, "1.2");
  EXPECT_EQ(j.At("graph_name").text, "rich_graph");
  EXPECT_EQ(j.At("domain").text, "org.kiln.tests");
  EXPECT_EQ(j.At("description").text, "A test model");
  EXPECT_EQ(j.At("model_version").number, 7);
  EXPECT_EQ(j.At("metadata").At("author").text, "tests");
  EXPECT_EQ(j.At("metadata").At("license").text, "MIT");
  EXPECT_EQ(j.At("opset_imports").At("ai.onnx").number, 17);
  EXPECT_EQ(j.At("opset_imports").At("com.kiln.tests").number, 1);
  EXPECT_EQ(j.At("node_count").number, 4);
  ASSERT_EQ(j.At("op_histogram").keys.size(), 1u);
  EXPECT_EQ(j.At("op_histogram").At("Identity").number, 4);
  EXPECT_EQ(j.At("parameter_count").number, 17);
  EXPECT_EQ(j.At("initializer_count").number, 2);

  const JsonValue& inputs = j.At("inputs");
  ASSERT_EQ(inputs.items.size(), 2u);
  const JsonValue& x = inputs.items[0];
  EXPECT_EQ(x.At("name").text, "x");
  EXPECT_EQ(x.At("kind").text, "tensor");
  EXPECT_EQ(x.At("element_type").text, "float");
  const JsonValue& x_shape = x.At("shape");
  ASSERT_EQ(x_shape.items.size(), 2u);
  EXPECT_EQ(x_shape.items[0].kind, JsonValue::kString);
  EXPECT_EQ(x_shape.items[0].text, "batch");
  EXPECT_EQ(x_shape.items[1].number, 3);
  const JsonValue& ids_shape = inputs.items[1].At("shape");
  EXPECT_EQ(inputs.items[1].At("element_type").text, "int64");
  ASSERT_EQ(ids_shape.items.size(), 3u);
  EXPECT_EQ(ids_shape.items[0].number, 2);
  EXPECT_EQ(ids_shape.items[1].text, "seq");
  EXPECT_EQ(ids_shape.items[2].kind, JsonValue::kNull);

  const JsonValue& outputs = j.At("outputs");
  ASSERT_EQ(outputs.items.size(), 4u);
  EXPECT_EQ(outputs.items[2].At("name").text, "w_out");
  EXPECT_EQ(outputs.items[3].At("element_type").text, "int64");
  EXPECT_EQ(outputs.items[3].At("shape").items[0].number, 5);
}

TEST(CliInfo, UnknownRankIsNotShownAsAScalar) {
  const auto dir = TestDir("info_rank");
  const std::string model =
      WriteModel(IdentityModel({{"any", 1, {}, /*has_shape=*/false}, {"scalar", 7, {}, true}}),
                 dir / "rank.onnx");
  const CliResult text = RunKiln({"info", model});
  ASSERT_EQ(text.status, 0) << text.err;
  ExpectContains(text.out, "  any     float [unknown rank]\n  scalar  int64 []\n");
  const CliResult json = RunKiln({"info", model, "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const JsonValue j = ParseJson(json.out);
  EXPECT_EQ(j.At("inputs").items[0].At("shape").kind, JsonValue::kNull);
  EXPECT_EQ(j.At("inputs").items[1].At("shape").kind, JsonValue::kArray);
  EXPECT_TRUE(j.At("inputs").items[1].At("shape").items.empty());
}

TEST(CliInfo, JsonEscapesStrings) {
  const auto dir = TestDir("info_escape");
  onnx::ModelProto m = IdentityModel({{"x", 1, {"1"}}});
  m.set_doc_string("line one\nsays \"hi\" \\ tab\t");
  const std::string model = WriteModel(m, dir / "escape.onnx");
  const CliResult r = RunKiln({"info", model, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ParseJson(r.out).At("description").text, "line one\nsays \"hi\" \\ tab\t");
}

}  // namespace
}  // namespace kiln::test
