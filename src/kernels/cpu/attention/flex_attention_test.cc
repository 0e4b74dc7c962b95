// FlexAttention (ai.onnx.preview): numbers against a reference computed here (GQA, scale, double),
// the score_mod/mask_mod/prob_mod graphs run through a session, and the errors the kernel raises.
#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"
#include "onnx/loader.h"
#include "runtime/session.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

F Ramp(int64_t n, float step, float offset = 0.0f) {
  F v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * step + offset);
  return v;
}

// Y for Q [1, hq, l, e], K [1, hkv, s, e], V [1, hkv, s, ev]; `neg` negates the scores first (a
// score_mod).
F Reference(const F& q, const F& k, const F& v, int64_t hq, int64_t hkv, int64_t l, int64_t s,
            int64_t e, int64_t ev, double scale, bool neg = false) {
  F y(static_cast<size_t>(hq * l * ev), 0.0f);
  for (int64_t h = 0; h < hq; ++h) {
    const int64_t kh = h / (hq / hkv);
    for (int64_t i = 0; i < l; ++i) {
      std::vector<double> p(static_cast<size_t>(s));
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j < s; ++j) {
        double acc = 0;
        for (int64_t d = 0; d < e; ++d) acc += q[(h * l + i) * e + d] * k[(kh * s + j) * e + d];
        p[j] = neg ? -acc * scale : acc * scale;
        mx = std::max(mx, p[j]);
      }
      for (double& x : p) sum += (x = std::exp(x - mx));
      for (int64_t j = 0; j < s; ++j) {
        for (int64_t d = 0; d < ev; ++d) {
          y[(h * l + i) * ev + d] += static_cast<float>(p[j] / sum * v[(kh * s + j) * ev + d]);
        }
      }
    }
  }
  return y;
}

TEST(FlexAttention, GqaAndScaleAgainstReference) {
  const F q = Ramp(int64_t{4} * 3 * 2, 0.4f), k = Ramp(int64_t{2} * 5 * 2, 0.7f, 1.0f),
          v = Ramp(int64_t{2} * 5 * 3, 0.3f);
  auto out = NodeTest("FlexAttention", 1, "ai.onnx.preview")
                 .Input<float>({1, 4, 3, 2}, q)
                 .Input<float>({1, 2, 5, 2}, k)
                 .Input<float>({1, 2, 5, 3}, v)
                 .Attr("scale", 0.5f)
                 .Run();
  const F want = Reference(q, k, v, 4, 2, 3, 5, 2, 3, 0.5);
  const F got = Values<float>(*out[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
}

TEST(FlexAttention, DoubleUsesTheDefaultScale) {
  auto out = NodeTest("FlexAttention", 1, "ai.onnx.preview")
                 .Input<double>({1, 1, 1, 4}, {1, 1, 1, 1})
                 .Input<double>({1, 1, 2, 4}, {1, 1, 1, 1, 0, 0, 0, 0})
                 .Input<double>({1, 1, 2, 1}, {2, 4})
                 .Run();
  // scores [2, 0] (4 / √4); softmax · [2, 4] = 2 + 2 / (1 + e²)
  EXPECT_NEAR(Values<double>(*out[0])[0], 2.0 + 2.0 / (1.0 + std::exp(2.0)), 1e-12);
}

TEST(FlexAttention, Errors) {
  ExpectNodeError(NodeTest("FlexAttention", 1, "ai.onnx.preview")
                      .Input<float>({1, 3, 2}, F(6))
                      .Input<float>({1, 1, 2, 2}, F(4))
                      .Input<float>({1, 1, 2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "input 'Q' has shape [1,3,2]");
  ExpectNodeError(NodeTest("FlexAttention", 1, "ai.onnx.preview")
                      .Input<float>({1, 3, 2, 2}, F(12))
                      .Input<float>({1, 2, 2, 2}, F(8))
                      .Input<float>({1, 2, 2, 2}, F(8)),
                  ErrorCode::kInvalidArgument, "do not agree");
  ExpectNodeError(NodeTest("FlexAttention", 1, "ai.onnx.preview")
                      .Input<int32_t>({1, 1, 1, 1}, {1})
                      .Input<int32_t>({1, 1, 1, 1}, {1})
                      .Input<int32_t>({1, 1, 1, 1}, {1}),
                  ErrorCode::kNotImplemented, "element type int32");
}

// A model of one FlexAttention node whose `attr` graph applies the one-input op `op`.
std::shared_ptr<runtime::Session> ModGraphSession(const std::string& attr, const std::string& op) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(23);
  auto* preview = m.add_opset_import();
  preview->set_domain("ai.onnx.preview");
  preview->set_version(1);
  auto* g = m.mutable_graph();
  for (const char* name : {"Q", "K", "V"}) {
    auto* in = g->add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  }
  auto* y = g->add_output();
  y->set_name("Y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  auto* n = g->add_node();
  n->set_name("flex");
  n->set_op_type("FlexAttention");
  n->set_domain("ai.onnx.preview");
  for (const char* name : {"Q", "K", "V"}) n->add_input(name);
  n->add_output("Y");
  auto* a = n->add_attribute();
  a->set_name(attr);
  a->set_type(::kiln_onnx::AttributeProto::GRAPH);
  auto* body = a->mutable_g();
  auto* in = body->add_input();
  in->set_name("s");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  auto* out = body->add_output();
  out->set_name("t");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  auto* node = body->add_node();
  node->set_op_type(op);
  node->add_input("s");
  node->add_output("t");
  return std::make_shared<runtime::Session>(
      ::kiln::onnx::LoadModelBytes(m.SerializeAsString().data(), m.ByteSizeLong(), ""),
      runtime::SessionOptions());
}

F RunSession(runtime::Session& session, const F& q, const F& k, const F& v) {
  std::vector<Value> in = {MakeTensor<float>({1, 1, 3, 2}, q), MakeTensor<float>({1, 1, 3, 2}, k),
                           MakeTensor<float>({1, 1, 3, 2}, v)};
  std::vector<std::string> in_names = {"Q", "K", "V"};
  std::vector<std::string> out_names = {"Y"};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  session.Run(runtime::RunOptions(), in_names, in, out_names, out, others);
  return Values<float>(*out[0]);
}

TEST(FlexAttention, RunsTheModGraphs) {
  const F q = Ramp(6, 0.9f), k = Ramp(6, 0.5f, 1.0f), v = Ramp(6, 0.3f, 2.0f);
  const double scale = 1.0 / std::sqrt(2.0);
  // score_mod = Neg.
  F got = RunSession(*ModGraphSession("score_mod", "Neg"), q, k, v);
  F want = Reference(q, k, v, 1, 1, 3, 3, 2, 2, scale, /*neg=*/true);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
  // prob_mod = Neg: Y is the negated plain attention.
  got = RunSession(*ModGraphSession("prob_mod", "Neg"), q, k, v);
  want = Reference(q, k, v, 1, 1, 3, 3, 2, 2, scale);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], -want[i], 1e-5f) << i;
  // mask_mod = ReduceSum gives a tensor of another shape: an error naming the attribute.
  try {
    RunSession(*ModGraphSession("mask_mod", "ReduceSum"), q, k, v);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("attribute 'mask_mod'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
