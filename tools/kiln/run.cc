// kiln run MODEL [--input NAME=FILE]... [--output-dir DIR] [--threads N] [--optimization L]
//                [--seed S]
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>

#include "commands.h"
#include "elements.h"
#include "inputs.h"
#include "tensor_file.h"

namespace kiln::cli {
namespace {

constexpr char kUsage[] =
    R"(usage: kiln run MODEL [--input NAME=FILE]... [--output-dir DIR] [options]

Runs a model once and summarises each output (name, element type, shape, and min/max/mean for
numbers) on stdout.

Options:
  --input NAME=FILE   the value of input NAME: a .npy file (format 1.0-3.0, little-endian,
                      C order; dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1) or a serialized ONNX
                      TensorProto (.pb). Repeat for each input. Inputs not given are filled
                      with seeded random values of their declared type, unknown dimensions set
                      to 1: floats uniform in [-1, 1), integers in [0, 10), random bools.
  --output-dir DIR    write output i to DIR/output_<i>.pb as a TensorProto (graph output
                      order, its name set); DIR is created if missing
  --threads N         intra-op threads (default 0: one per hardware thread)
  --optimization L    graph optimization level: 0-3 or disable, basic, extended, all
                      (default 3)
  --seed S            seed of the random inputs (default 0)
  -h, --help          print this help
)";

constexpr OptionSpec kOptions[] = {{"--input", true, true},
                                   {"--output-dir", true, false},
                                   {"--threads", true, false},
                                   {"--optimization", true, false},
                                   {"--seed", true, false}};

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "float [1, 10]  min -1.2 max 3.4 mean 0.5" (statistics for numbers only).
std::string Summary(const kiln::Value& value) {
  if (!value.is_tensor()) return "not a tensor";
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
  const kiln::Session session = OpenSession(env, model, config);
  const Inputs in = PrepareInputs(session, specs, seed);
  const std::vector<std::string> output_names = session.output_names();
  std::vector<kiln::Value> outputs;
  try {
    outputs = session.Run(in.names, in.values, output_names);
  } catch (const kiln::Exception& e) {
    throw Error(std::string("the run failed: ") + e.what());
  }

  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) throw Error("cannot create '" + output_dir + "': " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path =
          (std::filesystem::path(output_dir) / ("output_" + std::to_string(i) + ".pb")).string();
      WriteTensorFile(TensorToProto(outputs[i], output_names[i]), path);
    }
  }
  for (size_t i = 0; i < in.names.size(); ++i) {
    std::cout << "input " << in.names[i] << ": " << Summary(in.values[i]) << "  <- "
              << in.sources[i] << "\n";
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output " << output_names[i] << ": " << Summary(outputs[i]) << "\n";
  }
  if (!output_dir.empty()) {
    std::cout << "wrote " << outputs.size() << " output(s) to " << output_dir << "\n";
  }
  return 0;
}

}  // namespace kiln::cli
