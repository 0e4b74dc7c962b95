#include "cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tensor_data.h"

namespace conformance {
namespace {

namespace fs = std::filesystem;

// ONNX's backend runner: rtol 1e-3, atol 1e-7.
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

onnx::ModelProto ReadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  onnx::ModelProto m;
  if (!in || !m.ParseFromString(os.str())) throw std::runtime_error("cannot parse " + path);
  return m;
}

std::string OpName(const onnx::NodeProto& n) {
  if (n.domain().empty() || n.domain() == "ai.onnx") return n.op_type();
  return n.domain() + "." + n.op_type();
}

std::vector<std::string> TopLevelOps(const onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const onnx::NodeProto& n : m.graph().node()) {
    const std::string op = OpName(n);
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  return ops;
}

// Every node, subgraphs included.
void AllNodes(const onnx::GraphProto& g, std::vector<const onnx::NodeProto*>& out) {
  for (const onnx::NodeProto& n : g.node()) {
    out.push_back(&n);
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) AllNodes(a.g(), out);
      for (const onnx::GraphProto& sub : a.graphs()) AllNodes(sub, out);
    }
  }
}

// The graph inputs that are not initializers, in order (older models list weights as inputs).
std::vector<const onnx::ValueInfoProto*> DataInputs(const onnx::GraphProto& g) {
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : g.initializer()) initializers.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const onnx::ValueInfoProto& v : g.input()) {
    if (initializers.count(v.name()) == 0) out.push_back(&v);
  }
  return out;
}

// Random-output cases: the values cannot be reproduced, so the check is on kind, type, shape and
// the set of values the op can produce.
enum class Random { kNone, kBernoulli, kUniform, kNormal, kDropout };

struct RandomInfo {
  Random kind = Random::kNone;
  double low = 0;
  double high = 1;
};

float FloatAttr(const onnx::NodeProto& n, const std::string& name, float fallback) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return a.f();
  }
  return fallback;
}

RandomInfo RandomOf(const onnx::ModelProto& m) {
  std::vector<const onnx::NodeProto*> nodes;
  AllNodes(m.graph(), nodes);
  RandomInfo info;
  for (const onnx::NodeProto* n : nodes) {
    const std::string& op = n->op_type();
    if (op == "Bernoulli") return {Random::kBernoulli};
    if (op == "RandomUniform" || op == "RandomUniformLike") {
      info = {Random::kUniform, FloatAttr(*n, "low", 0), FloatAttr(*n, "high", 1)};
    } else if (op == "RandomNormal" || op == "RandomNormalLike") {
      info.kind = Random::kNormal;
    } else if (op == "Dropout" && n->input_size() >= 3 && !n->input(2).empty()) {
      info.kind = Random::kDropout;  // training_mode given: a graph input or a constant
    }
  }
  // The expanded Bernoulli draws uniforms and compares them: its outputs are 0/1.
  for (const onnx::NodeProto* n : nodes) {
    if (info.kind == Random::kUniform && n->op_type() == "Less") return {Random::kBernoulli};
  }
  return info;
}

// "" when a random output is plausible: same kind, type and shape, values the op can produce.
std::string CheckRandom(const RandomInfo& r, size_t output, const TestValue& e,
                        const TestValue& a) {
  if (e.kind != TestValue::Kind::kTensor || a.kind != TestValue::Kind::kTensor) {
    return Compare(e, a, kRtol, kAtol);
  }
  const Tensor& et = e.tensor;
  const Tensor& at = a.tensor;
  if (et.type != at.type || et.shape != at.shape) {
    // Reuse the exact comparison's message for the type or shape.
    Tensor shape_only = et;
    return CompareTensors(shape_only, at, kRtol, kAtol);
  }
  if (et.type == KILN_ELEMENT_TYPE_STRING) return "a random string output";
  const size_t n = at.ElementCount();
  for (size_t i = 0; i < n; ++i) {
    const double x = *ElementAsDouble(at, i);
    bool ok = std::isfinite(x);
    switch (r.kind) {
      case Random::kBernoulli:
        ok = x == 0 || x == 1;
        break;
      case Random::kUniform:
        ok = ok && x >= r.low && x <= r.high;
        break;
      case Random::kDropout:
        // Output 0 holds 0 or the scaled input (where the expected output kept the element, the
        // two agree); output 1 is the mask.
        if (output == 0) {
          const double want = *ElementAsDouble(et, i);
          ok = x == 0 || want == 0 || std::fabs(x - want) <= kAtol + kRtol * std::fabs(want);
        }
        break;
      default:
        break;
    }
    if (!ok) {
      return "element " + std::to_string(i) + " (" + std::to_string(x) +
             ") is not a value the op can produce";
    }
  }
  return "";
}

Result Fail(std::string message) {
  return {Outcome::kFailed, std::move(message)};
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

struct DataSet {
  std::vector<std::string> input_names;
  std::vector<TestValue> inputs;
  std::vector<std::string> output_names;
  std::vector<TestValue> outputs;
};

std::vector<DataSet> ReadDataSets(const Case& c, const onnx::ModelProto& m) {
  std::vector<DataSet> sets;
  const std::vector<const onnx::ValueInfoProto*> inputs = DataInputs(m.graph());
  if (c.light) {
    // Upstream's input: arange(N).reshape(shape) / N as float32 (unknown dimensions count as 1).
    if (inputs.size() != 1) throw std::runtime_error("a light model with other than one input");
    DataSet s;
    s.input_names = {inputs[0]->name()};
    Tensor t;
    t.type = KILN_ELEMENT_TYPE_FLOAT;
    for (const auto& d : inputs[0]->type().tensor_type().shape().dim()) {
      t.shape.push_back(d.has_dim_value() ? d.dim_value() : 1);
    }
    const size_t n = t.ElementCount();
    t.bytes.resize(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(i) / static_cast<float>(n);
      std::memcpy(t.bytes.data() + i * sizeof(float), &v, sizeof v);
    }
    TestValue v;
    v.tensor = std::move(t);
    v.element_type = KILN_ELEMENT_TYPE_FLOAT;
    s.inputs.push_back(std::move(v));
    s.output_names = {m.graph().output(0).name()};
    s.outputs.push_back(ReadValueFile(c.dir, m.graph().output(0).type()));
    sets.push_back(std::move(s));
    return sets;
  }
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(c.dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) throw std::runtime_error("no test_data_set_* folder");
  for (const fs::path& d : dirs) {
    DataSet s;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const fs::path f = d / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(f)) break;
      s.input_names.push_back(inputs[i]->name());
      s.inputs.push_back(ReadValueFile(f.string(), inputs[i]->type()));
    }
    for (int j = 0; j < m.graph().output_size(); ++j) {
      const fs::path f = d / ("output_" + std::to_string(j) + ".pb");
      if (!fs::exists(f)) throw std::runtime_error(f.filename().string() + " is missing");
      s.output_names.push_back(m.graph().output(j).name());
      s.outputs.push_back(ReadValueFile(f.string(), m.graph().output(j).type()));
    }
    sets.push_back(std::move(s));
  }
  return sets;
}

}  // namespace

std::vector<Case> FindCases(const std::string& label, const std::string& root) {
  std::vector<Case> cases;
  if (!fs::is_directory(root)) throw std::runtime_error(root + " is not a folder");
  for (const auto& suite : fs::directory_iterator(root)) {
    if (!suite.is_directory()) continue;
    const std::string suite_name = suite.path().filename().string();
    if (suite_name == "light") {
      for (const auto& f : fs::directory_iterator(suite.path())) {
        const std::string name = f.path().filename().string();
        if (f.path().extension() != ".onnx") continue;
        const std::string stem = f.path().stem().string();
        Case c;
        c.suite = label + "/light";
        c.id = c.suite + "/" + stem;
        c.model = f.path().string();
        c.dir = (suite.path() / (stem + "_output_0.pb")).string();
        c.light = true;
        cases.push_back(std::move(c));
      }
      continue;
    }
    for (const auto& dir : fs::directory_iterator(suite.path())) {
      if (!fs::exists(dir.path() / "model.onnx")) continue;
      Case c;
      c.suite = label;
      c.suite.append("/").append(suite_name);
      c.id = c.suite;
      c.id.append("/").append(dir.path().filename().string());
      c.model = (dir.path() / "model.onnx").string();
      c.dir = dir.path().string();
      cases.push_back(std::move(c));
    }
  }
  for (Case& c : cases) {
    try {
      c.ops = TopLevelOps(ReadModel(c.model));
    } catch (const std::exception&) {
      c.ops = {"(unreadable model)"};
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.id < b.id; });
  return cases;
}

Result RunCase(const Case& c, const RunSettings& settings) {
  try {
    const onnx::ModelProto m = ReadModel(c.model);
    const std::vector<DataSet> sets = ReadDataSets(c, m);
    const RandomInfo random = RandomOf(m);
    const double rtol = c.light && c.id.find("densenet121") != std::string::npos ? 2e-3 : kRtol;

    kiln::Env env(KILN_LOGGING_LEVEL_ERROR, "conformance");
    kiln::SessionOptions options = kiln::SessionOptions::Create();
    options.SetIntraOpNumThreads(settings.threads);
    if (settings.optimization_level >= 0) {
      options.SetGraphOptimizationLevel(
          static_cast<KilnGraphOptimizationLevel>(settings.optimization_level));
    }
    if (settings.inter_op_threads > 0) {
      options.SetExecutionMode(KILN_EXECUTION_MODE_PARALLEL)
          .SetInterOpNumThreads(settings.inter_op_threads);
    }
    kiln::Session session;
    kiln::Session direct;  // round-trip mode: the session that wrote the model `session` loads
    try {
      if (settings.round_trip_dir.empty()) {
        session = kiln::Session::Create(env, c.model, options);
      } else {
        std::string file = c.id;
        for (char& ch : file) ch = ch == '/' ? '_' : ch;
        const std::string written = settings.round_trip_dir + "/" + file + ".onnx";
        options.SetOptimizedModelFilePath(written);
        direct = kiln::Session::Create(env, c.model, options);
        options.SetOptimizedModelFilePath("");
        session = kiln::Session::Create(env, written, options);
      }
    } catch (const kiln::Exception& e) {
      return Fail(OneLine(e.what()));
    }
    for (size_t s = 0; s < sets.size(); ++s) {
      const DataSet& set = sets[s];
      const std::string where = sets.size() > 1 ? "data set " + std::to_string(s) + ": " : "";
      std::vector<kiln::Value> inputs;
      for (const TestValue& v : set.inputs) inputs.push_back(ToKiln(v));
      std::vector<kiln::Value> outputs;
      try {
        outputs = session.Run(set.input_names, inputs, set.output_names);
      } catch (const kiln::Exception& e) {
        return Fail(where + OneLine(e.what()));
      }
      std::vector<kiln::Value> direct_outputs;
      if (direct) {
        try {
          direct_outputs = direct.Run(set.input_names, inputs, set.output_names);
        } catch (const kiln::Exception& e) {
          return Fail(where + "the writing session: " + OneLine(e.what()));
        }
      }
      for (size_t j = 0; j < outputs.size(); ++j) {
        const TestValue actual = FromKiln(outputs[j]);
        if (direct && random.kind == Random::kNone) {
          const std::string diff = Compare(FromKiln(direct_outputs[j]), actual, 0, 0);
          if (!diff.empty()) {
            return Fail(where + "output " + std::to_string(j) + " ('" + set.output_names[j] +
                        "') differs from the writing session's: " + OneLine(diff));
          }
        }
        const std::string diff = random.kind != Random::kNone
                                     ? CheckRandom(random, j, set.outputs[j], actual)
                                     : Compare(set.outputs[j], actual, rtol, kAtol);
        if (!diff.empty()) {
          return Fail(where + "output " + std::to_string(j) + " ('" + set.output_names[j] +
                      "'): " + OneLine(diff));
        }
      }
    }
    if (random.kind != Random::kNone) {
      return {Outcome::kRandomChecked, "shape, type and values the op can produce"};
    }
    return {Outcome::kPassed, ""};
  } catch (const std::exception& e) {
    return Fail("runner: " + OneLine(e.what()));
  }
}

}  // namespace conformance
