// kiln run and kiln info over sequences and optionals: SequenceProto and OptionalProto inputs,
// random sequences and empty optionals for inputs not given, outputs written as the proto of
// their kind and read back, and every error naming the input and the file. The model returns its
// captured inputs from an If, so no sequence kernel is needed.
#include <gtest/gtest.h>

#include <onnx/onnx-data_pb.h>

#include <cstring>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

void ExpectContains(const std::string& out, const std::string& needle) {
  EXPECT_NE(out.find(needle), std::string::npos) << "'" << needle << "' not in:\n" << out;
}

onnx::TensorProto FloatTensor(const std::vector<int64_t>& dims, float first) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (const int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(first + static_cast<float>(i));
  t.set_raw_data(Bytes(v));
  return t;
}

onnx::TensorProto Int64Tensor(const std::vector<int64_t>& values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (const int64_t v : values) t.add_int64_data(v);
  return t;
}

onnx::SequenceProto Sequence(const std::vector<onnx::TensorProto>& tensors) {
  onnx::SequenceProto s;
  s.set_name("s");
  s.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const onnx::TensorProto& t : tensors) *s.add_tensor_values() = t;
  return s;
}

template <typename Proto>
Proto Read(const std::filesystem::path& path) {
  Proto p;
  EXPECT_TRUE(p.ParseFromString(ReadBytes(path))) << path;
  return p;
}

template <typename Proto>
std::string Write(const std::filesystem::path& dir, const std::string& name, const Proto& p) {
  WriteBytes(dir / name, p.SerializeAsString());
  return (dir / name).string();
}

std::vector<int64_t> Dims(const onnx::TensorProto& t) {
  return std::vector<int64_t>(t.dims().begin(), t.dims().end());
}

TEST(CliSequence, InputsNotGivenAreARandomSequenceAndEmptyOptionals) {
  const auto dir = TestDir("seq_random");
  const std::string model = WriteModel(SequencePassThroughModel(), dir / "m.onnx");
  const CliResult r = RunKiln({"run", model, "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  ExpectContains(r.out, "input seq: seq(tensor(float)) of 1: [2,3]  <- random (seed 0)\n");
  ExpectContains(r.out, "input opt: optional(tensor(int64)) empty  <- empty (not given)\n");
  ExpectContains(r.out, "input optseq: optional(seq(tensor(float))) empty  <- empty (not given)\n");
  ExpectContains(r.out, "output seq_out: seq(tensor(float)) of 1: [2,3]\n");
  ExpectContains(r.out, "output opt_out: optional(tensor(int64)) empty\n");
  ExpectContains(r.out, "output optseq_out: optional(seq(tensor(float))) empty\n");
  const auto seq = Read<onnx::SequenceProto>(dir / "out" / "output_0.pb");
  EXPECT_EQ(seq.name(), "seq_out");
  EXPECT_EQ(seq.elem_type(), onnx::SequenceProto::TENSOR);
  ASSERT_EQ(seq.tensor_values_size(), 1);
  EXPECT_EQ(seq.tensor_values(0).data_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(Dims(seq.tensor_values(0)), (std::vector<int64_t>{2, 3}));
  const std::string values = seq.tensor_values(0).raw_data();
  ASSERT_EQ(values.size(), 6 * sizeof(float));
  for (size_t i = 0; i < 6; ++i) {
    float f = 0;
    std::memcpy(&f, values.data() + i * sizeof f, sizeof f);
    EXPECT_GE(f, -1.0f);
    EXPECT_LT(f, 1.0f);
  }
  const auto opt = Read<onnx::OptionalProto>(dir / "out" / "output_1.pb");
  EXPECT_EQ(opt.name(), "opt_out");
  EXPECT_EQ(opt.elem_type(), onnx::OptionalProto::TENSOR);
  EXPECT_FALSE(opt.has_tensor_value());
  const auto optseq = Read<onnx::OptionalProto>(dir / "out" / "output_2.pb");
  EXPECT_EQ(optseq.name(), "optseq_out");
  EXPECT_EQ(optseq.elem_type(), onnx::OptionalProto::SEQUENCE);
  EXPECT_FALSE(optseq.has_sequence_value());
  // The same seed gives the same sequence.
  const CliResult again = RunKiln({"run", model, "--output-dir", (dir / "again").string()});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(ReadBytes(dir / "again" / "output_0.pb"), ReadBytes(dir / "out" / "output_0.pb"));
}

TEST(CliSequence, ASequenceWithNoDeclaredShapeGetsOneTensorOfShape1) {
  const auto dir = TestDir("seq_no_shape");
  const std::string model =
      WriteModel(SequencePassThroughModel(onnx::TensorProto::INT64, false), dir / "m.onnx");
  const CliResult r = RunKiln({"run", model});
  ASSERT_EQ(r.status, 0) << r.err;
  ExpectContains(r.out, "output seq_out: seq(tensor(int64)) of 1: [1]\n");
}

TEST(CliSequence, FilesAreReadWrittenAndReadBack) {
  const auto dir = TestDir("seq_files");
  const std::string model = WriteModel(SequencePassThroughModel(), dir / "m.onnx");
  const std::string seq =
      Write(dir, "seq.pb",
            Sequence({FloatTensor({2, 3}, 0), FloatTensor({2, 3}, 10), FloatTensor({1, 3}, 20)}));
  onnx::OptionalProto opt;
  opt.set_elem_type(onnx::OptionalProto::TENSOR);
  *opt.mutable_tensor_value() = Int64Tensor({7, 8, 9});
  onnx::OptionalProto optseq;
  optseq.set_elem_type(onnx::OptionalProto::SEQUENCE);
  *optseq.mutable_sequence_value() = Sequence({FloatTensor({1}, 5), FloatTensor({1}, 6)});
  const std::string opt_path = Write(dir, "opt.pb", opt);
  const std::string optseq_path = Write(dir, "optseq.pb", optseq);
  const CliResult r =
      RunKiln({"run", model, "--input", "seq=" + seq, "--input", "opt=" + opt_path, "--input",
               "optseq=" + optseq_path, "--output-dir", (dir / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  ExpectContains(r.out, "input seq: seq(tensor(float)) of 3: [2,3] [2,3] [1,3]  <- " + seq);
  ExpectContains(r.out, "output seq_out: seq(tensor(float)) of 3: [2,3] [2,3] [1,3]\n");
  ExpectContains(r.out, "output opt_out: optional(tensor(int64)): int64 [3]  min 7 max 9 mean 8\n");
  ExpectContains(r.out, "output optseq_out: optional(seq(tensor(float))) of 2: [1] [1]\n");
  const auto seq_out = Read<onnx::SequenceProto>(dir / "out" / "output_0.pb");
  EXPECT_EQ(seq_out.name(), "seq_out");
  ASSERT_EQ(seq_out.tensor_values_size(), 3);
  EXPECT_EQ(Dims(seq_out.tensor_values(2)), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(seq_out.tensor_values(1).raw_data(), FloatTensor({2, 3}, 10).raw_data());
  EXPECT_EQ(seq_out.tensor_values(2).raw_data(), FloatTensor({1, 3}, 20).raw_data());
  const auto opt_out = Read<onnx::OptionalProto>(dir / "out" / "output_1.pb");
  EXPECT_EQ(opt_out.name(), "opt_out");
  ASSERT_EQ(opt_out.elem_type(), onnx::OptionalProto::TENSOR);
  EXPECT_EQ(opt_out.tensor_value().raw_data(), Bytes(std::vector<int64_t>{7, 8, 9}));
  const auto optseq_out = Read<onnx::OptionalProto>(dir / "out" / "output_2.pb");
  ASSERT_EQ(optseq_out.elem_type(), onnx::OptionalProto::SEQUENCE);
  ASSERT_EQ(optseq_out.sequence_value().tensor_values_size(), 2);
  EXPECT_EQ(optseq_out.sequence_value().tensor_values(1).raw_data(),
            FloatTensor({1}, 6).raw_data());

  // The outputs are valid inputs: a second run over them writes the same files.
  const auto out = [&](int i) { return (dir / "out" / ("output_" + std::to_string(i) + ".pb")); };
  const CliResult back = RunKiln({"run", model, "--input", "seq=" + out(0).string(), "--input",
                                  "opt=" + out(1).string(), "--input", "optseq=" + out(2).string(),
                                  "--output-dir", (dir / "back").string()});
  ASSERT_EQ(back.status, 0) << back.err;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ReadBytes(dir / "back" / ("output_" + std::to_string(i) + ".pb")), ReadBytes(out(i)))
        << i;
  }
}

TEST(CliSequence, EmptySequenceAndEmptyOptionalFiles) {
  const auto dir = TestDir("seq_empty_files");
  const std::string model = WriteModel(SequencePassThroughModel(), dir / "m.onnx");
  const std::string seq = Write(dir, "seq.pb", Sequence({}));
  const std::string opt = Write(dir, "opt.pb", onnx::OptionalProto());  // elem_type UNDEFINED
  onnx::OptionalProto empty_seq;
  empty_seq.set_elem_type(onnx::OptionalProto::SEQUENCE);
  const std::string optseq = Write(dir, "optseq.pb", empty_seq);
  const CliResult r = RunKiln({"run", model, "--input", "seq=" + seq, "--input", "opt=" + opt,
                               "--input", "optseq=" + optseq});
  ASSERT_EQ(r.status, 0) << r.err;
  ExpectContains(r.out, "output seq_out: seq(tensor(float)) of 0\n");
  ExpectContains(r.out, "output opt_out: optional(tensor(int64)) empty\n");
  ExpectContains(r.out, "output optseq_out: optional(seq(tensor(float))) empty\n");
}

// Each error is one line naming the input and the file.
void ExpectInputError(const std::string& model, const std::string& input, const std::string& path,
                      const std::string& needle) {
  const CliResult r = RunKiln({"run", model, "--input", input + "=" + path});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  for (const std::string& n : {"input '" + input + "'", path, needle}) {
    EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not in: " << r.err;
  }
}

TEST(CliSequence, ErrorsNameTheInputAndTheFile) {
  const auto dir = TestDir("seq_errors");
  const std::string model = WriteModel(SequencePassThroughModel(), dir / "m.onnx");
  const std::string tensor = Write(dir, "tensor.pb", FloatTensor({2, 3}, 0));
  ExpectInputError(model, "seq", tensor, "not a serialized ONNX SequenceProto");
  WriteBytes(dir / "junk.pb", "\xff\xff\xff\xff garbage");
  ExpectInputError(model, "seq", (dir / "junk.pb").string(), "not a serialized ONNX SequenceProto");
  ExpectInputError(model, "opt", (dir / "junk.pb").string(), "not a serialized ONNX OptionalProto");
  ExpectInputError(model, "seq", Write(dir, "ints.pb", Sequence({Int64Tensor({1})})),
                   "tensor 0 holds int64 but the sequence is of float");
  onnx::SequenceProto nested = Sequence({});
  nested.set_elem_type(onnx::SequenceProto::SEQUENCE);
  ExpectInputError(model, "seq", Write(dir, "nested.pb", nested),
                   "only sequences of tensors (elem_type TENSOR, 1) are supported");
  onnx::SequenceProto bad_tensor = Sequence({FloatTensor({2}, 0)});
  bad_tensor.mutable_tensor_values(0)->set_raw_data("abc");
  ExpectInputError(model, "seq", Write(dir, "bad_tensor.pb", bad_tensor), "tensor 0");
  onnx::OptionalProto holds_seq;
  holds_seq.set_elem_type(onnx::OptionalProto::SEQUENCE);
  *holds_seq.mutable_sequence_value() = Sequence({Int64Tensor({1, 2, 3})});
  ExpectInputError(model, "opt", Write(dir, "holds_seq.pb", holds_seq),
                   "the optional holds a sequence, but the model's holds a tensor");
  onnx::OptionalProto holds_tensor;
  holds_tensor.set_elem_type(onnx::OptionalProto::TENSOR);
  *holds_tensor.mutable_tensor_value() = FloatTensor({1}, 0);
  ExpectInputError(model, "optseq", Write(dir, "holds_tensor.pb", holds_tensor),
                   "the optional holds a tensor, but the model's holds a sequence");
  ExpectInputError(model, "opt", Write(dir, "float_opt.pb", holds_tensor),
                   "holds float but the model's holds int64");
  onnx::OptionalProto map;
  map.set_elem_type(onnx::OptionalProto::MAP);
  ExpectInputError(model, "opt", Write(dir, "map.pb", map), "elem_type is 4");
  // A sequence file for a tensor input.
  const CliResult r = RunKiln(
      {"run", model, "--input", "cond=" + Write(dir, "seq.pb", Sequence({FloatTensor({1}, 0)}))});
  EXPECT_EQ(r.status, 1);
  ExpectContains(r.err, "a tensor is expected here");
}

TEST(CliSequence, InfoShowsSequenceAndOptionalTypes) {
  const auto dir = TestDir("seq_info");
  const std::string model = WriteModel(SequencePassThroughModel(), dir / "m.onnx");
  const CliResult r = RunKiln({"info", model});
  ASSERT_EQ(r.status, 0) << r.err;
  ExpectContains(r.out,
                 "inputs (4)\n  cond    bool []\n  seq     sequence of float [2, 3]\n"
                 "  opt     optional int64 [3]\n  optseq  optional sequence of float [1]\n");
  ExpectContains(
      r.out,
      "outputs (3)\n  seq_out     sequence of float [2, 3]\n"
      "  opt_out     optional int64 [3]\n  optseq_out  optional sequence of float [1]\n");
  const CliResult j = RunKiln({"info", model, "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const JsonValue v = ParseJson(j.out);
  const JsonValue& inputs = v.At("inputs");
  ASSERT_EQ(inputs.items.size(), 4u);
  EXPECT_EQ(inputs.items[1].At("kind").text, "sequence");
  EXPECT_EQ(inputs.items[1].At("element_type").text, "float");
  EXPECT_EQ(inputs.items[2].At("kind").text, "optional");
  EXPECT_EQ(inputs.items[2].At("element_type").text, "int64");
}

}  // namespace
}  // namespace kiln::test
