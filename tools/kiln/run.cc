// kiln run MODEL [--input NAME=FILE]... [--output-dir DIR] [--threads N] [--optimization L]
//                [--seed S] [--config KEY=VALUE]...
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include "commands.h"
#include "elements.h"
#include "inputs.h"
#include "model_stats.h"
#include "progress.h"
#include "tensor_file.h"

namespace kiln::cli {
namespace {

constexpr char kUsage[] =
    R"(usage: kiln run MODEL [--input NAME=FILE]... [--output-dir DIR] [options]

Runs a model once and summarises each output on stdout: a tensor's element type, shape, and
min/max/mean for numbers; a sequence's type, length and tensor shapes; an optional's type and
content, or "empty". A given input must have the input's element type and fit its declared
shape. On a terminal, loading and running that last over half a second show a progress line on
stderr, erased when done.

Options:
  --input NAME=FILE   the value of input NAME. A tensor input: a .npy file (format 1.0-3.0,
                      little-endian, C order; dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1) or a
                      serialized ONNX TensorProto (.pb) of any element type, in any encoding
                      Kiln's loader reads: raw_data, the typed fields (the 4- and 2-bit types
                      packed in int32_data, 16- and 8-bit floats as their bits), or external
                      data beside the file. A sequence input: a SequenceProto of
                      tensors (elem_type TENSOR). An optional input: an OptionalProto (elem_type
                      TENSOR or SEQUENCE with its value, or empty). Repeat for each input.
                      Inputs not given get seeded random values of their declared type, unknown
                      dimensions set to 1: floats uniform in [-1, 1), integers in [0, 10),
                      random bools. A sequence input not given gets a sequence of one such
                      tensor (shape [1] when the model gives none); an optional input not given
                      is empty.
  --output-dir DIR    write output i to DIR/output_<i>.pb (graph output order, its name set): a
                      TensorProto, a SequenceProto (elem_type TENSOR) or an OptionalProto by the
                      output's kind; DIR is created if missing
  --threads N         intra-op threads (default 0: one per hardware thread)
  --config KEY=VALUE  a session configuration entry (repeatable; the keys are listed at
                      AddSessionConfigEntry in include/kiln/c/session.h)
  --custom-op-library PATH
                      load custom ops from a shared library (repeatable; a PATH without a
                      slash is searched for as dlopen searches)
  --optimization L    graph optimization level: 0-3 or disable, basic, extended, all
                      (default 3)
  --seed S            seed of the random inputs (default 0)
  -h, --help          print this help
)";

constexpr OptionSpec kOptions[] = {{"--input", true, true},
                                   {"--output-dir", true, false},
                                   {"--threads", true, false},
                                   {"--optimization", true, false},
                                   {"--seed", true, false},
                                   {"--config", true, true},
                                   {"--custom-op-library", true, true}};

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "float [1, 10]  min -1.2 max 3.4 mean 0.5" (statistics for numbers only).
std::string TensorSummary(const kiln::Value& value) {
  const kiln::TensorTypeAndShapeInfo info = value.type_and_shape();
  const KilnElementType type = info.element_type();
  std::string text = ElementTypeName(type) + " " + ShapeText(info.shape(), {});
  if (!IsNumeric(type)) return text;
  const size_t n = info.element_count();
  if (n == 0) return text + "  (empty)";
  const void* data = value.data<void>();
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double sum = 0;
  size_t nans = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = ElementAsDouble(type, data, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans == n) return text + "  all " + std::to_string(n) + " NaN";
  text += "  min " + Number(lo) + " max " + Number(hi) + " mean " +
          Number(sum / static_cast<double>(n - nans));
  if (nans != 0) text += " (" + std::to_string(nans) + " NaN left out)";
  return text;
}

// "seq(tensor(float)) of 3: [2,3] [2,3] [1,3]" (the first kMaxShapes shapes).
std::string SequenceSummary(const kiln::Value& value) {
  constexpr size_t kMaxShapes = 8;
  const size_t n = value.count();
  std::string text =
      "seq(tensor(" + ElementTypeName(value.element_type()) + ")) of " + std::to_string(n);
  for (size_t i = 0; i < n && i < kMaxShapes; ++i) {
    text += i == 0 ? ": [" : " [";
    const std::vector<int64_t> dims = value.element(i).type_and_shape().shape();
    for (size_t d = 0; d < dims.size(); ++d) text += (d == 0 ? "" : ",") + std::to_string(dims[d]);
    text += "]";
  }
  if (n > kMaxShapes) text += " ...";
  return text;
}

// A tensor as TensorSummary; "optional(tensor(int64)) empty", or the optional's type and its
// content's summary.
std::string Summary(const kiln::Value& value, bool holds_sequence) {
  switch (value.value_type()) {
    case KILN_VALUE_TYPE_TENSOR:
      return TensorSummary(value);
    case KILN_VALUE_TYPE_SEQUENCE:
      return SequenceSummary(value);
    case KILN_VALUE_TYPE_OPTIONAL:
      break;
    default:
      return "a value of an unknown kind";
  }
  if (!value.has_value()) {
    const std::string tensor = "tensor(" + ElementTypeName(value.element_type()) + ")";
    return "optional(" + (holds_sequence ? "seq(" + tensor + ")" : tensor) + ") empty";
  }
  const kiln::Value content = value.element(0);
  if (content.is_tensor()) {
    return "optional(tensor(" + ElementTypeName(content.element_type()) +
           ")): " + TensorSummary(content);
  }
  const std::string seq = SequenceSummary(content);
  const size_t of = seq.find(" of ");
  return "optional(" + seq.substr(0, of) + ")" + seq.substr(of);
}

// Writes one output as the proto its kind calls for.
void WriteOutput(const kiln::Value& value, const std::string& name, bool holds_sequence,
                 const std::string& path) {
  switch (value.value_type()) {
    case KILN_VALUE_TYPE_SEQUENCE:
      WriteProtoFile(SequenceToProto(value, name), path);
      return;
    case KILN_VALUE_TYPE_OPTIONAL:
      WriteProtoFile(OptionalToProto(value, name, holds_sequence), path);
      return;
    default:
      WriteProtoFile(TensorToProto(value, name), path);
  }
}

}  // namespace

int RunCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("run", argv, kOptions);
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  const std::string model = ModelArgument(args, "run");
  const std::vector<InputSpec> specs = ParseInputSpecs(args.Values("--input"));
  const SessionConfig config = ParseSessionConfig(args);
  const uint64_t seed = ParseUint64("--seed", args.Value("--seed", "0"));
  const std::string output_dir = args.Value("--output-dir", "");

  const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln-run");
  Progress progress;
  progress.Phase("loading " + model);
  const kiln::Session session = OpenSession(env, model, config);
  // The file's declarations fill what the C ABI leaves out for sequences and optionals.
  const std::optional<onnx::ModelProto> proto = DeclarationsIfNeeded(session, model);
  const onnx::ModelProto* declared = proto ? &*proto : nullptr;
  const auto holds_sequence = [&](const std::string& name, bool output) {
    return declared != nullptr && DeclaresOptionalSequence(*declared, name, output);
  };
  const Inputs in = PrepareInputs(session, specs, seed, declared);
  const std::vector<std::string> output_names = session.output_names();
  std::vector<kiln::Value> outputs;
  progress.Phase("running " + model);
  try {
    outputs = session.Run(in.names, in.values, output_names);
  } catch (const kiln::Exception& e) {
    throw Error(std::string("the run failed: ") + e.what());
  }

  progress.Phase("writing the outputs");
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) throw Error("cannot create '" + output_dir + "': " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path =
          (std::filesystem::path(output_dir) / ("output_" + std::to_string(i) + ".pb")).string();
      WriteOutput(outputs[i], output_names[i], holds_sequence(output_names[i], true), path);
    }
  }
  progress.Clear();
  for (size_t i = 0; i < in.names.size(); ++i) {
    std::cout << "input " << in.names[i] << ": "
              << Summary(in.values[i], holds_sequence(in.names[i], false)) << "  <- "
              << in.sources[i] << "\n";
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output " << output_names[i] << ": "
              << Summary(outputs[i], holds_sequence(output_names[i], true)) << "\n";
  }
  if (!output_dir.empty()) {
    std::cout << "wrote " << outputs.size() << " output(s) to " << output_dir << "\n";
  }
  return 0;
}

}  // namespace kiln::cli
