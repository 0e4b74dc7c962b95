// The parallel execution mode (RunContext::inter_op): independent steps run at once, values are
// freed when their last reader is done whatever the order, a failure stops the run cleanly, and
// results are those of the sequential mode.
#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/registry.h"
#include "onnx/loader.h"
#include "runtime/executor.h"
#include "runtime/plan.h"
#include "runtime/session.h"

namespace kiln::runtime {
namespace {

// Every Meet step waits until `expected` of them have arrived (or `patience` has passed, when it
// throws): in order, one step after another, a graph of two Meets cannot get past the first.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  int expected = 2;
  std::chrono::milliseconds patience{10000};
};
Rendezvous& Meeting() {
  static Rendezvous r;
  return r;
}

class MeetKernel final : public Kernel {
 public:
  explicit MeetKernel(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    Rendezvous& r = Meeting();
    {
      std::unique_lock<std::mutex> lock(r.mu);
      ++r.arrived;
      r.cv.notify_all();
      if (!r.cv.wait_for(lock, r.patience, [&] { return r.arrived >= r.expected; })) {
        throw Error(ErrorCode::kFail, "the other branch never ran alongside");
      }
    }
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    std::memcpy(y.data(), x.data(), x.byte_size());
  }
};

class FailKernel final : public Kernel {
 public:
  explicit FailKernel(const KernelInfo&) {}
  void Compute(KernelContext&) const override {
    throw Error(ErrorCode::kInvalidArgument, "this step always fails");
  }
};

const KernelRegistry& TestKernels() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    static const KernelDef defs[] = {
        {"test.parallel", "Meet", 1, 1, &Make<MeetKernel>},
        {"test.parallel", "Fail", 1, 1, &Make<FailKernel>},
        {"", "Add", 7, kLatestOpset, CpuKernels().Find("", "Add", 14)->create},
        {"", "Relu", 6, kLatestOpset, CpuKernels().Find("", "Relu", 14)->create},
    };
    r->Add(defs);
    return r;
  }();
  return *registry;
}

void SetType(::kiln_onnx::ValueInfoProto* vi, const std::string& name,
             const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

::kiln_onnx::NodeProto* AddNode(::kiln_onnx::GraphProto* g, const std::string& name,
                                const std::string& op, const std::vector<std::string>& inputs,
                                const std::string& output, const std::string& domain = "") {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  n->set_domain(domain);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

::kiln_onnx::ModelProto NewModel() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* test = m.add_opset_import();
  test->set_domain("test.parallel");
  test->set_version(1);
  return m;
}

// y = Meet(Relu(x)) + Meet(x): two branches that can only finish together. With `fail`, a third
// branch y2 = Fail(x) + x.
ir::Model TwoBranches(bool fail = false) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", {4});
  SetType(g->add_output(), "y", {4});
  AddNode(g, "relu", "Relu", {"x"}, "r");
  AddNode(g, "meet_left", "Meet", {"r"}, "a", "test.parallel");
  AddNode(g, "meet_right", "Meet", {"x"}, "b", "test.parallel");
  AddNode(g, "join", "Add", {"a", "b"}, "y");
  if (fail) {
    SetType(g->add_output(), "y2", {4});
    AddNode(g, "always_fails", "Fail", {"x"}, "f", "test.parallel");
    AddNode(g, "after_failure", "Add", {"f", "x"}, "y2");
  }
  const std::string bytes = m.SerializeAsString();
  return onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
}

std::shared_ptr<Tensor> Ramp() {
  auto t = std::shared_ptr<Tensor>(Tensor::Allocate(DataType::kFloat, Shape({4}), CpuAllocator()));
  float* p = static_cast<float*>(t->data());
  for (int i = 0; i < 4; ++i) p[i] = static_cast<float>(i) - 1.5f;
  return t;
}

std::vector<float> Floats(const Value& v) {
  const Tensor& t = *v.tensor();
  const float* p = static_cast<const float*>(t.data());
  return std::vector<float>(p, p + t.element_count());
}

struct Runner {
  ThreadPool intra{1};
  ThreadPool inter{2};
  RunContext run{intra, CpuAllocator(), nullptr, nullptr, false, &inter};
};

TEST(ParallelExecution, IndependentBranchesRunAtOnce) {
  const ir::Model model = TwoBranches();
  const GraphPlan plan(*model.graph, TestKernels(), {.infer = true});
  Runner r;
  Frame frame(plan, nullptr, r.run);
  ASSERT_TRUE(frame.parallel());
  for (int round = 0; round < 3; ++round) {  // a frame is reused run after run
    Meeting().arrived = 0;
    frame.Reset(r.run);
    frame.SetInput(0, Value(Ramp()));
    frame.Execute();
    EXPECT_EQ(Floats(frame.Output(0)), (std::vector<float>{-1.5f, -0.5f, 1.0f, 3.0f}));
    frame.Clear();
  }
}

TEST(ParallelExecution, InOrderTheSameGraphCannotMeetWhichShowsTheTestCanFail) {
  const ir::Model model = TwoBranches();
  const GraphPlan plan(*model.graph, TestKernels(), {.infer = true});
  ThreadPool intra(1);
  RunContext run{intra, CpuAllocator()};
  Frame frame(plan, nullptr, run);
  ASSERT_FALSE(frame.parallel());
  Meeting().arrived = 0;
  Meeting().patience = std::chrono::milliseconds(50);
  frame.SetInput(0, Value(Ramp()));
  try {
    frame.Execute();
    ADD_FAILURE() << "two Meet steps met in the sequential mode";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("never ran alongside"), std::string::npos) << e.what();
  }
  Meeting().patience = std::chrono::milliseconds(10000);
}

TEST(ParallelExecution, AFailingStepStopsTheRunWithItsErrorAndTheFrameRunsAgain) {
  const ir::Model model = TwoBranches(/*fail=*/true);
  const GraphPlan plan(*model.graph, TestKernels(), {.infer = true});
  Runner r;
  Frame frame(plan, nullptr, r.run);
  for (int round = 0; round < 3; ++round) {
    Meeting().arrived = 0;
    // The failing branch may stop the run before both Meets have started: let a lone one go.
    Meeting().patience = std::chrono::milliseconds(200);
    frame.Reset(r.run);
    frame.SetInput(0, Value(Ramp()));
    try {
      frame.Execute();
      ADD_FAILURE() << "the run did not fail";
    } catch (const Error& e) {
      const std::string what = e.what();
      // Which branch fails first depends on timing; the always-failing step, unless a lone Meet
      // timed out first.
      if (what.find("never ran alongside") == std::string::npos) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << what;
        EXPECT_NE(what.find("always_fails"), std::string::npos) << what;
      }
    }
    frame.Clear();
  }
  Meeting().patience = std::chrono::milliseconds(10000);
}

TEST(ParallelExecution, TerminateStopsTheRun) {
  const ir::Model model = TwoBranches();
  const GraphPlan plan(*model.graph, TestKernels(), {.infer = true});
  Runner r;
  std::atomic<bool> terminate{true};
  r.run.terminate = &terminate;
  Frame frame(plan, nullptr, r.run);
  frame.SetInput(0, Value(Ramp()));
  try {
    frame.Execute();
    ADD_FAILURE() << "a terminated run went on";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTerminated) << e.what();
  }
}

// A wide and deep graph of CPU kernels: h_i = Relu(x + c_i) for 8 branches, then a chain that adds
// them in a fixed order with reads far apart, so a value's last reader in the plan's order is
// often not the last to finish.
::kiln_onnx::ModelProto Lattice() {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", {64});
  SetType(g->add_output(), "y", {64});
  SetType(g->add_output(), "h3_out", {64});
  std::vector<std::string> h;
  for (int i = 0; i < 8; ++i) {
    const std::string c = "c" + std::to_string(i);
    auto* t = g->add_initializer();
    t->set_name(c);
    t->set_data_type(::kiln_onnx::TensorProto::FLOAT);
    t->add_dims(64);
    for (int k = 0; k < 64; ++k) t->add_float_data(static_cast<float>((k * 7 + i * 13) % 17) - 8);
    AddNode(g, "add" + std::to_string(i), "Add", {"x", c}, "s" + std::to_string(i));
    h.push_back("h" + std::to_string(i));
    AddNode(g, "relu" + std::to_string(i), "Relu", {"s" + std::to_string(i)}, h.back());
  }
  std::string acc = h[0];
  for (int i = 1; i < 8; ++i) {
    const std::string next = i == 7 ? "y" : "acc" + std::to_string(i);
    AddNode(g, "sum" + std::to_string(i), "Add", {acc, h[(i * 5) % 8 == 0 ? 1 : (i * 5) % 8]},
            next);
    acc = next;
  }
  AddNode(g, "copy_h3", "Relu", {"h3"}, "h3_out");
  return m;
}

TEST(ParallelExecution, ASessionGivesTheSequentialResultsRunAfterRunAndFromManyThreads) {
  const std::string bytes = Lattice().SerializeAsString();
  const auto session = [&](bool parallel) {
    SessionOptions o;
    o.intra_op_threads = 1;
    o.parallel = parallel;
    o.inter_op_threads = 3;
    return std::make_unique<Session>(onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), o);
  };
  const std::unique_ptr<Session> in_order = session(false);
  const std::unique_ptr<Session> parallel = session(true);
  std::shared_ptr<Tensor> x = Tensor::Allocate(DataType::kFloat, Shape({64}), CpuAllocator());
  for (int k = 0; k < 64; ++k) static_cast<float*>(x->data())[k] = static_cast<float>(k % 9) - 4;
  const std::vector<std::string> in_names = {"x"};
  const std::vector<Value> inputs = {Value(x)};
  const std::vector<std::string> out_names = {"y", "h3_out"};
  const auto run = [&](const Session& s) {
    std::vector<std::shared_ptr<Tensor>> results(2);
    std::vector<Value> others(2);
    s.Run(RunOptions(), in_names, inputs, out_names, results, others);
    std::vector<float> all = Floats(Value(results[0]));
    const std::vector<float> h3 = Floats(Value(results[1]));
    all.insert(all.end(), h3.begin(), h3.end());
    return all;
  };
  const std::vector<float> want = run(*in_order);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(run(*parallel), want) << "run " << i;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        if (run(*parallel) != want) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ParallelExecution, EachSlotIsReadCountedOnceAndStepsKnowTheirDependents) {
  const ir::Model model = TwoBranches();
  const GraphPlan plan(*model.graph, TestKernels(), {.infer = false});
  // relu -> meet_left -> join; meet_right -> join.
  const auto& steps = plan.steps();
  const auto index = [&](const std::string& name) {
    for (size_t k = 0; k < steps.size(); ++k) {
      if (steps[k].node->name() == name) return k;
    }
    return steps.size();
  };
  const size_t relu = index("relu");
  const size_t left = index("meet_left");
  const size_t right = index("meet_right");
  const size_t join = index("join");
  ASSERT_LT(std::max({relu, left, right, join}), steps.size());
  EXPECT_EQ(steps[relu].producers, 0);
  EXPECT_EQ(steps[right].producers, 0);
  EXPECT_EQ(steps[left].producers, 1);
  EXPECT_EQ(steps[join].producers, 2);
  EXPECT_EQ(steps[relu].next, std::vector<size_t>{left});
  EXPECT_TRUE(steps[join].next.empty());
  // r: made by relu, read by meet_left: two readings; x and y live for the whole run.
  EXPECT_EQ(plan.reading_counts()[plan.SlotNamed("r")], 2);
  EXPECT_EQ(plan.reading_counts()[plan.SlotNamed("x")], 0);
  EXPECT_EQ(plan.reading_counts()[plan.SlotNamed("y")], 0);
}

}  // namespace
}  // namespace kiln::runtime
