// The inputs of a run: tensors, sequences and optionals from files named on the command line,
// seeded random values for the rest.
//
//   std::vector<InputSpec> specs = ParseInputSpecs(args.Values("--input"));  // NAME=FILE
//   Inputs in = PrepareInputs(session, specs, seed, nullptr);
//   session.Run(in.names, in.values, session.output_names());
#ifndef KILN_TOOLS_KILN_INPUTS_H_
#define KILN_TOOLS_KILN_INPUTS_H_

#include <kiln/kiln_cxx_api.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

// One --input NAME=FILE.
struct InputSpec {
  std::string name;
  std::string path;
};

// Splits each NAME=FILE at its first '='; throws UsageError for a missing '=', an empty name, an
// empty file, or a name given twice.
std::vector<InputSpec> ParseInputSpecs(const std::vector<std::string>& raw);

// Every model input, in the model's order.
struct Inputs {
  std::vector<std::string> names;
  std::vector<kiln::Value> values;
  std::vector<std::string> sources;  // the file, or "random (seed S)"
};

// The parsed model file when any input or output of the session is a sequence or an optional,
// else nothing: PrepareInputs and the output files then need the file's declarations (what the C
// ABI leaves out: whether an optional holds a sequence, whether a sequence's tensors have a known
// rank). Throws Error when the file cannot be parsed.
std::optional<onnx::ModelProto> DeclarationsIfNeeded(const kiln::Session& session,
                                                     const std::string& path);

// Loads the given files, checking each name is a model input given once and each file holds the
// input's kind (a tensor file, a SequenceProto or an OptionalProto) and declared element type.
// Every other input gets a value: a tensor input RandomTensor, a sequence input a sequence of one
// RandomTensor (of rank 1, [1], when the model gives its tensors no shape), an optional input an
// empty optional. `model` is what DeclarationsIfNeeded gives (NULL for nothing). Throws Error.
Inputs PrepareInputs(const kiln::Session& session, const std::vector<InputSpec>& specs,
                     uint64_t seed, const onnx::ModelProto* model);

// A tensor of seeded random values: floats uniform in [-1, 1), integers in [0, 10), bools 0 or
// 1, strings the decimal digits "0" to "9". Unknown dimensions (-1) become 1. The values depend
// only on `type`, `dims`, `seed` and `name` (each input draws from its own stream), and are the
// same on every platform. Throws Error for element types it cannot make.
kiln::Value RandomTensor(KilnElementType type, std::vector<int64_t> dims, uint64_t seed,
                         const std::string& name);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_INPUTS_H_
