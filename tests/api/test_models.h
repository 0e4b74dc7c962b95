// Serialized ONNX models for the C ABI tests, built with ONNX's own protobuf classes. Only the
// Identity and Add kernels are relied on (and Conv and Relu by ConvRelu).
//
//   const std::string bytes = kiln_test::models::Identity();
//   api().CreateSessionFromArray(env, bytes.data(), bytes.size(), nullptr, &session);
#ifndef KILN_TESTS_API_TEST_MODELS_H_
#define KILN_TESTS_API_TEST_MODELS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln_test::models {

// What Identity() declares, for the tests to compare against.
inline constexpr const char* kProducerName = "kiln-api-tests";
inline constexpr const char* kProducerVersion = "3.1.4";
inline constexpr const char* kDomain = "org.kiln.tests";
inline constexpr const char* kDescription = "y is x: the API tests' model";
inline constexpr const char* kGraphName = "identity_graph";
inline constexpr const char* kGraphDescription = "one Identity node";
inline constexpr int64_t kModelVersion = 42;
inline constexpr const char* kNodeName = "copy_x";  // the Identity node
// metadata_props, in the order the model lists them (not sorted).
inline constexpr const char* kKeys[] = {"zeta.owner", "alpha.license"};
inline constexpr const char* kValues[] = {"the kiln team", "Apache-2.0"};

// y = Identity(x); x and y are float [batch, 2] with dim_param "batch". Metadata as above.
std::string Identity();

// y = Identity(x); x and y are bool [n].
std::string BoolIdentity();

// Inputs a: float [batch, 2] and b: int64 [3]; outputs a_copy = Identity(a) (node "copy_a") and
// b_copy = Identity(b) (node "copy_b"). No metadata.
std::string TwoOutputs();

// kUnknownOpNode (op kUnknownOpType of domain kUnknownOpDomain, opset kUnknownOpOpset) reads x
// and writes y: a model Kiln can parse but not run.
inline constexpr const char* kUnknownOpNode = "mystery_node";
inline constexpr const char* kUnknownOpType = "Frobnicate";
inline constexpr const char* kUnknownOpDomain = "com.example.kiln";
inline constexpr int64_t kUnknownOpOpset = 7;
std::string UnknownOp();

// Inputs cond: bool [], s: seq(tensor(float [-1, 2])) and o: optional(tensor(int64 [3])); one
// If node ("pick") returns the captured s and o from either branch as s_out and o_out. Runs
// without any sequence kernel.
std::string SequencePassThrough();

// What Initializers() holds.
inline constexpr float kDefaultW[2] = {10.0f, 20.0f};  // w's initializer (its default)
inline constexpr float kConstantC[2] = {1.0f, 2.0f};   // c's initializer
// Input x: float [2]; w: float [2], an initializer the graph also lists as an input (an
// overridable initializer from IR 4 on; `ir_version` 3 makes it a constant); c: float [2], an
// initializer only. Outputs y = Add(x, w) (node "add_w") and z = Add(x, c) (node "add_c").
std::string Initializers(int64_t ir_version = 8);

// y = Identity(x) (node "copy_x"), x and y float [batch, 2, 3]: x's dimension 0 has dim_param
// "batch" and denotation "DATA_BATCH", dimension 1 has denotation "DATA_CHANNEL" and size 2,
// dimension 2 has neither.
std::string Denoted();

// y = Neg(Neg(...Neg(x))) with `nodes` Neg nodes; x and y are float [elements]. With the graph
// optimizations off, a run of it takes long enough to be stopped while it runs.
std::string NegChain(int nodes, int64_t elements);

// y = <op_type>(x), one node named `node` of domain `domain` (imported at opset 1); x and y float
// [batch, 2]. `string_attributes` are the node's STRING attributes, (name, value).
std::string CustomOp(
    const std::string& domain, const std::string& op_type, const std::string& node,
    const std::vector<std::pair<std::string, std::string>>& string_attributes = {});

// y = Relu(Conv(x, w, b)) (nodes "conv" and "relu"), x and y float [1, 1, 2, 2], w a 1x1 kernel
// of kConvWeight and b kConvBias: a pattern the optimizer fuses from level 2 (extended) on.
inline constexpr float kConvWeight = 2.0f;
inline constexpr float kConvBias = -1.0f;
std::string ConvRelu();

// A new folder under the system's temporary folder, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `bytes` to the file `name` in the folder and returns its path.
  std::string Write(const std::string& name, const std::string& bytes) const;

 private:
  std::string path_;
};

// A folder for the whole test process (removed at exit), made on first use.
const TempDir& ScratchDir();

// Identity() written to a file in ScratchDir() (once per process).
const std::string& IdentityModelPath();

}  // namespace kiln_test::models

#endif  // KILN_TESTS_API_TEST_MODELS_H_
