// Small ONNX models and tensor files for the tests of the C++ wrapper's sessions and of the
// `kiln` tool, built with ONNX's protobuf classes. Only the Identity kernel is assumed to exist.
//
//   onnx::ModelProto m = IdentityModel({{"x", onnx::TensorProto::FLOAT, {"batch", "3"}}});
//   std::string path = WriteModel(m, dir / "m.onnx");
#ifndef KILN_TESTS_TOOLS_TEST_MODELS_H_
#define KILN_TESTS_TOOLS_TEST_MODELS_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test {

// A graph input: its element type and dims. Each dim is a number ("3"), a symbolic name
// ("batch"), or "" for an unknown unnamed dimension. `has_shape` false leaves the rank unknown.
struct IoSpec {
  std::string name;
  int elem_type = onnx::TensorProto::FLOAT;
  std::vector<std::string> dims;
  bool has_shape = true;
};

// A model whose every input x passes through an Identity node to an output named "<x>_out"
// (declared with the same type), in input order. Opset ai.onnx 17, IR version 8.
onnx::ModelProto IdentityModel(const std::vector<IoSpec>& inputs);

// IdentityModel with everything `kiln info` shows: inputs x (float [batch, 3]) and ids (int64
// [2, seq, ""]); initializers w (float [3, 4]) and b (int64 [5]) also passed to outputs
// w_out and b_out through Identity nodes (17 parameters, 4 nodes); producer "kiln-tests" "1.2",
// graph "rich_graph", domain "org.kiln.tests", doc string "A test model", model version 7, custom
// metadata author=tests and license=MIT, and a second opset import com.kiln.tests 1.
onnx::ModelProto RichModel();

// A model over sequences and optionals that needs no sequence kernel: inputs cond (bool []), seq
// (seq(tensor(<seq_elem> [2, 3])), or with no shape when `seq_shape` is false), opt
// (optional(tensor(int64 [3]))) and optseq (optional(seq(tensor(float [1])))); one If node ("pick")
// returns the captured seq, opt and optseq from either branch as seq_out, opt_out and optseq_out.
onnx::ModelProto SequencePassThroughModel(int seq_elem = onnx::TensorProto::FLOAT,
                                          bool seq_shape = true);

// Serializes a model to `path` (throws std::runtime_error on failure) and returns the path.
std::string WriteModel(const onnx::ModelProto& model, const std::filesystem::path& path);

// The bytes of a version-1.0 .npy file with header dict `header` (e.g.
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") followed by `data`.
std::string NpyBytes(const std::string& header, const std::string& data, int major = 1);

// Writes bytes to a file; throws std::runtime_error on failure.
void WriteBytes(const std::filesystem::path& path, const std::string& bytes);

// Reads a whole file; throws std::runtime_error on failure.
std::string ReadBytes(const std::filesystem::path& path);

// The raw bytes of a vector's elements.
template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace kiln::test

#endif  // KILN_TESTS_TOOLS_TEST_MODELS_H_
