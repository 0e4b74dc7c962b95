// kiln info MODEL [--json]
#include <iostream>
#include <sstream>

#include "commands.h"
#include "elements.h"
#include "json.h"
#include "model_stats.h"

namespace kiln::cli {
namespace {

constexpr char kUsage[] = R"(usage: kiln info MODEL [--json] [--custom-op-library PATH]...

Describes an ONNX model: its inputs and outputs with element types and shapes (symbolic
dimensions by name, '?' for an unknown unnamed one), opset imports, the op histogram (op type ->
node count, subgraphs included), the parameter count (elements of all initializers) and its
metadata (producer, graph name, model version, custom metadata). Types and shapes are what
Kiln's session reports; the rest is read from the file.

Options:
  --json      print one JSON object instead of text
  --custom-op-library PATH
              load custom ops from a shared library (repeatable; a PATH without a slash is
              searched for as dlopen searches)
  -h, --help  print this help
)";

constexpr OptionSpec kOptions[] = {{"--json", false, false}, {"--custom-op-library", true, true}};

// One input or output as the session reports it.
struct Io {
  std::string name;
  KilnValueType kind = KILN_VALUE_TYPE_UNKNOWN;
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<std::string> symbols;
  bool rank_known = true;
  bool optional_sequence = false;  // an optional of a sequence (the file tells)
};

std::vector<Io> Describe(const kiln::Session& session, const onnx::ModelProto& model,
                         bool outputs) {
  std::vector<Io> result(outputs ? session.output_count() : session.input_count());
  for (size_t i = 0; i < result.size(); ++i) {
    Io& io = result[i];
    io.name = outputs ? session.output_name(i) : session.input_name(i);
    io.kind = outputs ? session.output_value_type(i) : session.input_value_type(i);
    if (io.kind == KILN_VALUE_TYPE_MAP) continue;
    const kiln::TensorTypeAndShapeInfo info =
        outputs ? session.output_tensor_info(i) : session.input_tensor_info(i);
    io.type = info.element_type();
    io.dims = info.shape();
    io.symbols = info.symbolic_shape();
    // The C ABI reports an unknown rank as rank 0; the file tells it from a scalar.
    io.rank_known = !io.dims.empty() || ValueDeclaresRank(model, io.name, outputs);
    io.optional_sequence = DeclaresOptionalSequence(model, io.name, outputs);
  }
  return result;
}

std::string KindName(KilnValueType kind) {
  switch (kind) {
    case KILN_VALUE_TYPE_TENSOR:
      return "tensor";
    case KILN_VALUE_TYPE_SEQUENCE:
      return "sequence";
    case KILN_VALUE_TYPE_MAP:
      return "map";
    case KILN_VALUE_TYPE_OPTIONAL:
      return "optional";
    default:
      return "unknown";
  }
}

std::string IoText(const Io& io) {
  if (io.kind == KILN_VALUE_TYPE_MAP) return "map";
  std::string text = io.type == KILN_ELEMENT_TYPE_UNDEFINED ? "?" : ElementTypeName(io.type);
  text += " " + (io.rank_known ? ShapeText(io.dims, io.symbols) : std::string("[unknown rank]"));
  if (io.kind == KILN_VALUE_TYPE_SEQUENCE) return "sequence of " + text;
  if (io.kind == KILN_VALUE_TYPE_OPTIONAL) {
    return (io.optional_sequence ? "optional sequence of " : "optional ") + text;
  }
  return text;
}

std::string ShapeJson(const Io& io) {
  if (!io.rank_known) return "null";
  std::string s = "[";
  for (size_t d = 0; d < io.dims.size(); ++d) {
    if (d != 0) s += ", ";
    if (io.dims[d] >= 0) {
      s += std::to_string(io.dims[d]);
    } else if (!io.symbols[d].empty()) {
      s += JsonString(io.symbols[d]);
    } else {
      s += "null";
    }
  }
  return s + "]";
}

std::string IoJson(const std::vector<Io>& ios) {
  std::string s = "[";
  for (size_t i = 0; i < ios.size(); ++i) {
    const Io& io = ios[i];
    s += i == 0 ? "\n    " : ",\n    ";
    s += "{\"name\": " + JsonString(io.name) + ", \"kind\": " + JsonString(KindName(io.kind)) +
         ", \"element_type\": " +
         (io.type == KILN_ELEMENT_TYPE_UNDEFINED ? std::string("null")
                                                 : JsonString(ElementTypeName(io.type))) +
         ", \"shape\": " + ShapeJson(io) + "}";
  }
  return s + (ios.empty() ? "]" : "\n  ]");
}

// Everything `kiln info` shows.
struct ModelInfo {
  std::string path;
  std::string producer_name, producer_version, graph_name, domain, description, graph_description;
  int64_t model_version = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<Io> inputs, outputs;
  ModelStats stats;
};

void PrintJson(const ModelInfo& m, std::ostream& out) {
  out << "{\n";
  out << "  \"model\": " << JsonString(m.path) << ",\n";
  out << "  \"ir_version\": " << m.stats.ir_version << ",\n";
  out << "  \"producer_name\": " << JsonString(m.producer_name) << ",\n";
  out << "  \"producer_version\": " << JsonString(m.producer_version) << ",\n";
  out << "  \"graph_name\": " << JsonString(m.graph_name) << ",\n";
  out << "  \"domain\": " << JsonString(m.domain) << ",\n";
  out << "  \"description\": " << JsonString(m.description) << ",\n";
  out << "  \"graph_description\": " << JsonString(m.graph_description) << ",\n";
  out << "  \"model_version\": " << m.model_version << ",\n";
  out << "  \"metadata\": {";
  for (size_t i = 0; i < m.metadata.size(); ++i) {
    out << (i == 0 ? "" : ", ") << JsonString(m.metadata[i].first) << ": "
        << JsonString(m.metadata[i].second);
  }
  out << "},\n  \"opset_imports\": {";
  for (size_t i = 0; i < m.stats.opset_imports.size(); ++i) {
    out << (i == 0 ? "" : ", ") << JsonString(m.stats.opset_imports[i].first) << ": "
        << m.stats.opset_imports[i].second;
  }
  out << "},\n";
  out << "  \"inputs\": " << IoJson(m.inputs) << ",\n";
  out << "  \"outputs\": " << IoJson(m.outputs) << ",\n";
  out << "  \"node_count\": " << m.stats.node_count << ",\n";
  out << "  \"op_histogram\": {";
  const auto ops = SortedOpCounts(m.stats);
  for (size_t i = 0; i < ops.size(); ++i) {
    out << (i == 0 ? "" : ", ") << JsonString(ops[i].first) << ": " << ops[i].second;
  }
  out << "},\n";
  out << "  \"parameter_count\": " << m.stats.parameter_count << ",\n";
  out << "  \"initializer_count\": " << m.stats.initializer_count << "\n";
  out << "}\n";
}

void PrintIoTable(const char* title, const std::vector<Io>& ios, std::ostream& out) {
  out << title << " (" << ios.size() << ")\n";
  size_t width = 0;
  for (const Io& io : ios) width = std::max(width, io.name.size());
  for (const Io& io : ios) {
    out << "  " << io.name << std::string(width - io.name.size() + 2, ' ') << IoText(io) << "\n";
  }
}

void PrintText(const ModelInfo& m, std::ostream& out) {
  const auto row = [&](const std::string& key, const std::string& value) {
    out << key << std::string(key.size() < 14 ? 14 - key.size() : 1, ' ') << value << "\n";
  };
  row("model", m.path);
  row("ir version", std::to_string(m.stats.ir_version));
  std::string producer = m.producer_name;
  if (!m.producer_version.empty()) producer += (producer.empty() ? "" : " ") + m.producer_version;
  row("producer", producer.empty() ? "-" : producer);
  row("graph", m.graph_name.empty() ? "-" : m.graph_name);
  if (!m.domain.empty()) row("domain", m.domain);
  if (!m.description.empty()) row("description", m.description);
  row("model version", std::to_string(m.model_version));
  for (size_t i = 0; i < m.metadata.size(); ++i) {
    row(i == 0 ? "metadata" : "", m.metadata[i].first + " = " + m.metadata[i].second);
  }
  std::string opsets;
  for (const auto& [domain, version] : m.stats.opset_imports) {
    opsets += (opsets.empty() ? "" : ", ") + domain + " " + std::to_string(version);
  }
  row("opsets", opsets);
  PrintIoTable("inputs", m.inputs, out);
  PrintIoTable("outputs", m.outputs, out);
  row("parameters", std::to_string(m.stats.parameter_count) + " in " +
                        std::to_string(m.stats.initializer_count) + " initializers");
  const auto ops = SortedOpCounts(m.stats);
  out << "ops (" << m.stats.node_count << (m.stats.node_count == 1 ? " node, " : " nodes, ")
      << ops.size() << (ops.size() == 1 ? " op type)\n" : " op types)\n");
  size_t width = 0;
  for (const auto& op : ops) width = std::max(width, op.first.size());
  for (const auto& [op, count] : ops) {
    out << "  " << op << std::string(width - op.size() + 2, ' ') << count << "\n";
  }
}

}  // namespace

int InfoCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("info", argv, kOptions);
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  ModelInfo m;
  m.path = ModelArgument(args, "info");
  const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln-info");
  SessionConfig config;
  config.threads = 1;
  config.custom_op_libraries = args.Values("--custom-op-library");
  const kiln::Session session = OpenSession(env, m.path, config);
  const onnx::ModelProto model = LoadModelProto(m.path);
  m.producer_name = session.metadata_string(KILN_METADATA_PRODUCER_NAME);
  m.producer_version = session.metadata_string(KILN_METADATA_PRODUCER_VERSION);
  m.graph_name = session.metadata_string(KILN_METADATA_GRAPH_NAME);
  m.domain = session.metadata_string(KILN_METADATA_DOMAIN);
  m.description = session.metadata_string(KILN_METADATA_DESCRIPTION);
  m.graph_description = session.metadata_string(KILN_METADATA_GRAPH_DESCRIPTION);
  m.model_version = session.model_version();
  for (const std::string& key : session.custom_metadata_keys()) {
    m.metadata.emplace_back(key, session.custom_metadata(key).value_or(""));
  }
  m.inputs = Describe(session, model, false);
  m.outputs = Describe(session, model, true);
  m.stats = ComputeModelStats(model);
  std::ostringstream out;
  if (args.Has("--json")) {
    PrintJson(m, out);
  } else {
    PrintText(m, out);
  }
  std::cout << out.str();
  return 0;
}

}  // namespace kiln::cli
