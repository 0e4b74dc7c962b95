#include "custom_op_probe.h"

#include <onnx/onnx_pb.h>

#include <cstring>

#include "api_test_util.h"

namespace kiln_test::probe {
namespace {

// The call waiting for its callback, while Run runs.
struct Pending {
  Stage stage;
  const Call* call;
  Outcome* outcome;
};
Pending* g_pending = nullptr;
Stale g_seen;  // the handles the callbacks had most recently

void Visit(Stage stage, const Live& live) {
  if (live.registry != nullptr) g_seen.registry = live.registry;
  if (live.info != nullptr) g_seen.info = live.info;
  if (live.infer != nullptr) g_seen.infer = live.infer;
  if (live.ctx != nullptr) g_seen.ctx = live.ctx;
  if (g_pending == nullptr || g_pending->stage != stage || g_pending->outcome->reached) return;
  g_pending->outcome->reached = true;
  g_pending->outcome->inner = (*g_pending->call)(live);
}

KilnStatus* KILN_API_CALL InferShapes(void*, KilnShapeInferContext* ctx) {
  Live live;
  live.infer = ctx;
  Visit(Stage::kInferShapes, live);
  return nullptr;  // the description decides Y's type; its shape is found at run time
}

KilnStatus* KILN_API_CALL CreateKernel(void*, const KilnKernelInfo* info, void** kernel) {
  Live live;
  live.info = info;
  Visit(Stage::kCreateKernel, live);
  *kernel = nullptr;
  return nullptr;
}

// Y = X; when the call allocated Y already, its contents are left as they are.
KilnStatus* KILN_API_CALL Compute(void*, KilnKernelContext* ctx) {
  Live live;
  live.ctx = ctx;
  Visit(Stage::kCompute, live);
  const int64_t dims[] = {3, 2};
  KilnValue* y = nullptr;
  if (KilnStatus* s = api().KernelContextGetOutput(ctx, 0, dims, 2, &y)) {
    api().ReleaseStatus(s);
    return nullptr;
  }
  const KilnValue* x = nullptr;
  void* from = nullptr;
  void* to = nullptr;
  KilnStatus* s = api().KernelContextGetInput(ctx, 0, &x);
  if (s == nullptr) s = api().GetTensorMutableData(const_cast<KilnValue*>(x), &from);
  if (s == nullptr) s = api().GetTensorMutableData(y, &to);
  if (s == nullptr) std::memcpy(to, from, 6 * sizeof(float));
  return s;
}

KilnStatus* KILN_API_CALL SecondCompute(void*, KilnKernelContext*) {
  return api().CreateStatus(KILN_FAIL, "Probe2 is never run");
}

const KilnElementType kFloat[] = {KILN_ELEMENT_TYPE_FLOAT};
const KilnCustomOpTypeParam kT[] = {{sizeof(KilnCustomOpTypeParam), "T", kFloat, 1}};
const KilnCustomOpArg kX[] = {
    {sizeof(KilnCustomOpArg), "X", "T", KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
const KilnCustomOpArg kY[] = {
    {sizeof(KilnCustomOpArg), "Y", "T", KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};

KilnCustomOpAttribute Declared(const char* name, KilnAttributeType type) {
  KilnCustomOpAttribute a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.name = name;
  a.type = type;
  return a;
}

// The probe's attributes, declared with Defaults() as their defaults.
const KilnCustomOpAttribute* DeclaredAttributes() {
  static const std::vector<KilnCustomOpAttribute> attributes = [] {
    const Attributes& d = Defaults();
    static std::vector<const char*> strings;
    for (const std::string& s : d.strings) strings.push_back(s.c_str());
    std::vector<KilnCustomOpAttribute> a = {
        Declared("i", KILN_ATTRIBUTE_INT),         Declared("f", KILN_ATTRIBUTE_FLOAT),
        Declared("s", KILN_ATTRIBUTE_STRING),      Declared("ints", KILN_ATTRIBUTE_INTS),
        Declared("floats", KILN_ATTRIBUTE_FLOATS), Declared("strings", KILN_ATTRIBUTE_STRINGS)};
    a[0].default_int = d.i;
    a[1].default_float = d.f;
    a[2].default_string = d.s.c_str();
    a[3].default_ints = d.ints.data();
    a[3].default_count = d.ints.size();
    a[4].default_floats = d.floats.data();
    a[4].default_count = d.floats.size();
    a[5].default_strings = strings.data();
    a[5].default_count = strings.size();
    return a;
  }();
  return attributes.data();
}

KilnCustomOp Description(const char* name) {
  KilnCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = kDomain;
  op.name = name;
  op.type_params = kT;
  op.type_param_count = 1;
  op.inputs = kX;
  op.input_count = 1;
  op.outputs = kY;
  op.output_count = 1;
  return op;
}

void Declare(::onnx::ValueInfoProto* vi, const char* name) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(3);
  t->mutable_shape()->add_dim()->set_dim_value(2);
}

// Keeps the first failure of a sequence of calls (releasing later ones) and returns it: NULL while
// all have succeeded.
KilnStatus* FirstFailure(KilnStatus*& first, KilnStatus* s) {
  if (first == nullptr) {
    first = s;
  } else {
    api().ReleaseStatus(s);
  }
  return first;
}

}  // namespace

const Attributes& Defaults() {
  static const Attributes a{7, 0.5f, "seven", {1, 2, 3}, {0.25f, 0.75f}, {"a", "bc"}};
  return a;
}

const Attributes& NodeAttributes() {
  static const Attributes a{-3, 2.5f, "from the node", {9}, {4.0f, -1.0f, 8.5f}, {"x", "", "z"}};
  return a;
}

std::string Model(bool attributes) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* onnx = m.add_opset_import();
  onnx->set_domain("");
  onnx->set_version(17);
  auto* custom = m.add_opset_import();
  custom->set_domain(kDomain);
  custom->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("probe");
  auto* n = g->add_node();
  n->set_name(kNode);
  n->set_op_type(kOp);
  n->set_domain(kDomain);
  n->add_input("x");
  n->add_output("y");
  if (attributes) {
    const Attributes& v = NodeAttributes();
    auto add = [&](const char* name, ::onnx::AttributeProto::AttributeType type) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(type);
      return a;
    };
    add("i", ::onnx::AttributeProto::INT)->set_i(v.i);
    add("f", ::onnx::AttributeProto::FLOAT)->set_f(v.f);
    add("s", ::onnx::AttributeProto::STRING)->set_s(v.s);
    auto* ints = add("ints", ::onnx::AttributeProto::INTS);
    for (int64_t i : v.ints) ints->add_ints(i);
    auto* floats = add("floats", ::onnx::AttributeProto::FLOATS);
    for (float f : v.floats) floats->add_floats(f);
    auto* strings = add("strings", ::onnx::AttributeProto::STRINGS);
    for (const std::string& s : v.strings) strings->add_strings(s);
  }
  Declare(g->add_input(), "x");
  Declare(g->add_output(), "y");
  return m.SerializeAsString();
}

KilnStatus* KILN_API_CALL Register(KilnCustomOpRegistry* registry, const KilnApiBase* base) {
  Live live;
  live.registry = registry;
  Visit(Stage::kRegister, live);
  KilnCustomOp op = Description(kOp);
  op.attributes = DeclaredAttributes();
  op.attribute_count = 6;
  op.InferShapes = &InferShapes;
  op.CreateKernel = &CreateKernel;
  op.Compute = &Compute;
  return base->GetApi(KILN_API_VERSION)->CustomOpRegistryAdd(registry, &op);
}

const KilnCustomOp* SecondOp() {
  static const KilnCustomOp op = [] {
    KilnCustomOp o = Description("Probe2");
    o.Compute = &SecondCompute;
    return o;
  }();
  return &op;
}

Outcome Run(KilnEnv* env, Stage stage, const Call& call, const Setup& setup) {
  (void)Defaults();  // built before any call runs (a call may run with allocations failing)
  (void)DeclaredAttributes();
  Outcome outcome;
  Pending pending{stage, &call, &outcome};
  g_pending = &pending;
  KilnSessionOptions* own = nullptr;
  KilnSessionOptions* options = setup.options;
  KilnSession* session = nullptr;
  KilnValue* x = nullptr;
  KilnValue* y = nullptr;
  KilnStatus*& failed = outcome.outer;
  if (options == nullptr && !FirstFailure(failed, api().CreateSessionOptions(&own))) options = own;
  if (options != nullptr &&
      !FirstFailure(failed, api().SessionOptionsRegisterCustomOps(options, &Register))) {
    FirstFailure(failed, api().CreateSessionFromArray(env, setup.model.data(), setup.model.size(),
                                                      options, &session));
  }
  if (session != nullptr) {
    KilnAllocator* allocator = nullptr;
    const int64_t dims[] = {3, 2};
    if (!FirstFailure(failed, api().GetAllocatorWithDefaultOptions(&allocator)) &&
        !FirstFailure(failed,
                      api().CreateTensorAsValue(allocator, dims, 2, KILN_ELEMENT_TYPE_FLOAT, &x))) {
      void* data = nullptr;
      if (!FirstFailure(failed, api().GetTensorMutableData(x, &data))) {
        for (int i = 0; i < 6; ++i) static_cast<float*>(data)[i] = static_cast<float>(i);
        const char* in[] = {"x"};
        const char* out[] = {"y"};
        FirstFailure(failed, api().Run(session, setup.run_options, in, &x, 1, out, 1, &y));
      }
    }
  }
  api().ReleaseValue(y);
  api().ReleaseValue(x);
  api().ReleaseSession(session);
  api().ReleaseSessionOptions(own);
  g_pending = nullptr;
  return outcome;
}

KilnStatus* InCallback(KilnEnv* env, Stage stage, const Call& call) {
  Outcome o = Run(env, stage, call);
  EXPECT_TRUE(o.reached) << "the probe's callback never ran the call";
  ExpectOk(o.outer);
  return o.inner;
}

const Stale& StaleHandles() {
  static const Stale stale = [] {
    KilnEnv* env = nullptr;
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "probe-stale", &env));
    ExpectOk(InCallback(env, Stage::kCompute, [](const Live&) -> KilnStatus* { return nullptr; }));
    api().ReleaseEnv(env);
    return g_seen;
  }();
  return stale;
}

}  // namespace kiln_test::probe
