// kiln print MODEL [--optimized] [--elide N] and kiln convert IN OUT: models in ONNX's textual
// syntax, through the graph API (kiln/kiln_graph_api.h).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "commands.h"
#include "graph.h"

namespace kiln::cli {

const KilnGraphApi& GraphApi() {
  const KilnGraphApi* api = kiln::Api().GetGraphApi(KILN_GRAPH_API_VERSION);
  if (api == nullptr) {
    throw Error("this libkiln does not provide the graph API version " +
                std::to_string(KILN_GRAPH_API_VERSION));
  }
  return *api;
}

void Check(KilnStatus* status, const std::string& context) {
  try {
    kiln::ThrowOnError(status);
  } catch (const kiln::Exception& e) {
    throw Error(context + ": " + e.what());
  }
}

namespace {

constexpr char kPrintUsage[] =
    R"(usage: kiln print MODEL [--optimized] [--elide N] [options]

Prints a model in ONNX's textual syntax (the grammar of onnx.parser). MODEL ending in .onnx
(any case) is read as a protobuf file; any other name (.txt, .onnxtxt, ...) as text in that
syntax.

Without --optimized it prints the model as loaded. With --optimized it makes a session from the
model and prints the graph the session runs, after optimization, with a '#' comment after each
node naming the kernel that runs it and, for a fused node, the nodes it was fused from.

Options:
  --optimized         print the optimized graph with each node's kernel (see above)
  --elide N           print initializers and tensor attributes of more than N elements
                      without their values (a '#' comment gives their size, and the text no
                      longer parses); default -1 prints every value
  --threads N         intra-op threads of the session (--optimized only; default 0)
  --optimization L    graph optimization level of the session: 0-3 or disable, basic,
                      extended, all (--optimized only; default 3)
  --config KEY=VALUE  a session configuration entry (--optimized only; repeatable)
  --custom-op-library PATH
                      load custom ops from a shared library (--optimized only; repeatable)
  -h, --help          print this help
)";

constexpr char kConvertUsage[] = R"(usage: kiln convert IN OUT

Converts a model between the .onnx protobuf format and ONNX's textual syntax. IN is read as
'kiln print' reads MODEL: a name ending in .onnx (any case) as protobuf, any other as text. OUT's
name picks what is written the same way: .onnx writes protobuf (tensors past 2 GiB in all go to
an external data file beside it, "OUT.data"), any other name writes the text 'kiln print'
prints. The model is read and written as it is: not optimized, not run.

Options:
  -h, --help  print this help
)";

constexpr OptionSpec kPrintOptions[] = {
    {"--optimized", false, false},   {"--elide", true, false}, {"--threads", true, false},
    {"--optimization", true, false}, {"--config", true, true}, {"--custom-op-library", true, true}};

// The options that only a session uses.
constexpr const char* kSessionOptions[] = {"--threads", "--optimization", "--config",
                                           "--custom-op-library"};

struct ModelDeleter {
  void operator()(KilnModel* model) const noexcept { GraphApi().ReleaseModel(model); }
};
using ModelPtr = std::unique_ptr<KilnModel, ModelDeleter>;

// Whether a file name asks for the protobuf format: it ends in ".onnx", in any case.
bool IsProtobufName(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".onnx";
}

std::string ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("cannot read '" + path + "': it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  return bytes.str();
}

// Reads a model by its name: .onnx as protobuf, anything else as text.
ModelPtr LoadModel(const std::string& path) {
  KilnModel* model = nullptr;
  if (IsProtobufName(path)) {
    Check(GraphApi().CreateModelFromFile(path.c_str(), &model), "cannot load '" + path + "'");
    return ModelPtr(model);
  }
  const std::string text = ReadFile(path);
  try {
    kiln::ThrowOnError(GraphApi().CreateModelFromText(text.data(), text.size(), &model));
  } catch (const kiln::Exception& e) {
    std::string message = "cannot parse '" + path + "' as ONNX text: " + e.what();
    if (text.find('\0') != std::string::npos) {
      message +=
          " (the file holds NUL bytes: a protobuf model is read only from a name ending"
          " in .onnx)";
    }
    throw Error(message);
  }
  return ModelPtr(model);
}

void KILN_API_CALL Append(const char* data, size_t length, void* user) {
  static_cast<std::string*>(user)->append(data, length);
}

// The model in ONNX's textual syntax.
std::string ModelText(const KilnModel* model, int64_t elide_above, uint32_t flags,
                      const std::string& path) {
  std::string text;
  Check(GraphApi().ModelPrint(model, elide_above, flags, Append, &text),
        "cannot print '" + path + "'");
  return text;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace

int PrintCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("print", argv, kPrintOptions);
  if (args.help) {
    std::cout << kPrintUsage;
    return 0;
  }
  const std::string path = ModelArgument(args, "print");
  const bool optimized = args.Has("--optimized");
  if (!optimized) {
    for (const char* option : kSessionOptions) {
      if (args.Has(option)) {
        throw UsageError(std::string("option '") + option + "' needs --optimized");
      }
    }
  }
  const int64_t elide =
      ParseInt("--elide", args.Value("--elide", "-1"), -1, std::numeric_limits<int64_t>::max());
  const SessionConfig config = ParseSessionConfig(args);

  const ModelPtr model = LoadModel(path);
  std::string text;
  if (!optimized) {
    text = ModelText(model.get(), elide, KILN_PRINT_DEFAULT, path);
  } else {
    const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln-print");
    const kiln::SessionOptions options = MakeSessionOptions(config);
    KilnSession* raw = nullptr;
    Check(GraphApi().CreateSessionFromModel(env.get(), model.get(), options.get(), &raw),
          "cannot load '" + path + "'");
    const kiln::Session session(raw);
    KilnGraph* graph = nullptr;
    KilnModel* view = nullptr;  // borrowed from the session
    Check(GraphApi().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &graph),
          "cannot get the optimized graph of '" + path + "'");
    Check(GraphApi().GraphGetModel(graph, &view),
          "cannot get the optimized graph of '" + path + "'");
    text = ModelText(view, elide, KILN_PRINT_DEBUG, path);
  }
  std::cout << text << std::flush;
  return 0;
}

int ConvertCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("convert", argv, {});
  if (args.help) {
    std::cout << kConvertUsage;
    return 0;
  }
  if (args.positional.size() != 2) {
    throw UsageError("'kiln convert' takes IN and OUT; got " +
                     std::to_string(args.positional.size()) + " argument" +
                     (args.positional.size() == 1 ? "" : "s"));
  }
  const std::string& in = args.positional[0];
  const std::string& out = args.positional[1];
  const ModelPtr model = LoadModel(in);
  if (IsProtobufName(out)) {
    Check(GraphApi().ModelSave(model.get(), out.c_str()), "cannot write '" + out + "'");
  } else {
    WriteFile(out, ModelText(model.get(), -1, KILN_PRINT_DEFAULT, in));
  }
  return 0;
}

}  // namespace kiln::cli
