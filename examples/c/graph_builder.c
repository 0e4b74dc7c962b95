/*
 * graph_builder: the graph API (kiln/kiln_graph_api.h) in one program. Builds
 *
 *     y = If(flag) then (x · W + b) else (-x · W)
 *
 * in memory (no protobuf, no file), checks it with ModelVerify, prints it in ONNX's textual
 * syntax, runs it twice, saves it to an .onnx file and reads it back, and prints the graph a
 * session made from it runs, with each node's kernel.
 *
 * Usage: graph_builder [OUT.onnx]   (default: graph_builder.onnx in the current folder)
 * Exits 0 after "graph_builder: OK" when everything behaved as described, 1 otherwise. The manual
 * (docs/manual) shows the parts between the marker comments that name them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <kiln/kiln_c_api.h>

static const KilnApi* api;
static const KilnGraphApi* g;

/* Prints and releases a status; returns 1 when there was an error. */
static int report(KilnStatus* status, const char* what) {
  if (status == NULL) return 0;
  fprintf(stderr, "%s failed (code %d): %s\n", what, (int)api->GetErrorCode(status),
          api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  return 1;
}

/* [print callback] */
static void KILN_API_CALL write_text(const char* data, size_t length, void* user) {
  fwrite(data, 1, length, (FILE*)user);
}
/* [print callback] */

/* [add node] */
/* out = op(in_a, in_b) as a node of `graph`. */
static KilnStatus* add_node(KilnGraph* graph, const char* op, const char* name, const char* a,
                            const char* b, const char* out) {
  const char* inputs[2] = {a, b};
  KilnNode* node = NULL;
  KilnStatus* st = g->CreateNode(op, "", name, inputs, b != NULL ? 2 : 1, &out, 1, &node);
  if (st == NULL) st = g->GraphAddOwnedNode(graph, node);
  if (st != NULL) g->ReleaseNode(node); /* still ours when the graph refused it */
  return st;
}
/* [add node] */

/* [branch] */
/* A branch of the If: no inputs, one output, reading x, W and b from the main graph. */
static KilnStatus* make_branch(const char* name, int positive, KilnGraph** out) {
  KilnGraph* branch = NULL;
  KilnValueInfo* result = NULL;
  KilnStatus* st = g->CreateGraph(name, &branch);
  if (st == NULL && positive) st = add_node(branch, "MatMul", "then_mm", "x", "W", "then_xw");
  if (st == NULL && positive) st = add_node(branch, "Add", "then_add", "then_xw", "b", "then_y");
  if (st == NULL && !positive) st = add_node(branch, "Neg", "else_neg", "x", NULL, "else_nx");
  if (st == NULL && !positive) st = add_node(branch, "MatMul", "else_mm", "else_nx", "W", "else_y");
  if (st == NULL) st = g->CreateValueInfo(positive ? "then_y" : "else_y", NULL, &result);
  if (st == NULL) st = g->GraphSetOwnedOutputs(branch, &result, 1);
  if (st != NULL) {
    g->ReleaseValueInfo(result);
    g->ReleaseGraph(branch);
    return st;
  }
  *out = branch;
  return NULL;
}
/* [branch] */

/* [build] */
static KilnStatus* build(KilnValue* w, KilnValue* b, KilnModel** out) {
  const char* domains[1] = {""};
  const int64_t versions[1] = {17};
  const int64_t x_dims[2] = {-1, 3};
  const char* x_params[2] = {"N", NULL};
  KilnModel* model = NULL;
  KilnGraph* graph = NULL;
  KilnGraph* branches[2] = {NULL, NULL};
  KilnTypeInfo *x_type = NULL, *flag_type = NULL;
  KilnValueInfo* inputs[2] = {NULL, NULL};
  KilnValueInfo* output = NULL;
  KilnAttribute *then_attr = NULL, *else_attr = NULL;
  KilnNode* node = NULL;
  const char* if_in[1] = {"flag"};
  const char* if_out[1] = {"y"};

  KilnStatus* st = g->CreateModel(9, domains, versions, 1, &model);
  if (st == NULL) st = g->CreateGraph("affine_or_negated", &graph);
  if (st == NULL)
    st = g->CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, x_dims, x_params, 2, &x_type);
  if (st == NULL) st = g->CreateTensorTypeInfo(KILN_ELEMENT_TYPE_BOOL, NULL, NULL, 0, &flag_type);
  if (st == NULL) st = g->CreateValueInfo("x", x_type, &inputs[0]);
  if (st == NULL) st = g->CreateValueInfo("flag", flag_type, &inputs[1]);
  if (st == NULL) st = g->GraphSetOwnedInputs(graph, inputs, 2); /* the graph owns both now */
  if (st == NULL) inputs[0] = inputs[1] = NULL;
  if (st == NULL) st = g->GraphAddInitializer(graph, "W", w); /* shared, not copied */
  if (st == NULL) st = g->GraphAddInitializer(graph, "b", b);
  if (st == NULL) st = make_branch("then_branch", 1, &branches[0]);
  if (st == NULL) st = make_branch("else_branch", 0, &branches[1]);
  if (st == NULL) st = g->CreateAttributeWithOwnedGraph("then_branch", branches[0], &then_attr);
  if (st == NULL) branches[0] = NULL;
  if (st == NULL) st = g->CreateAttributeWithOwnedGraph("else_branch", branches[1], &else_attr);
  if (st == NULL) branches[1] = NULL;
  if (st == NULL) st = g->CreateNode("If", "", "choose", if_in, 1, if_out, 1, &node);
  if (st == NULL) st = g->NodeAddOwnedAttribute(node, then_attr);
  if (st == NULL) then_attr = NULL;
  if (st == NULL) st = g->NodeAddOwnedAttribute(node, else_attr);
  if (st == NULL) else_attr = NULL;
  if (st == NULL) st = g->GraphAddOwnedNode(graph, node);
  if (st == NULL) node = NULL;
  if (st == NULL) st = g->CreateValueInfo("y", NULL, &output);
  if (st == NULL) st = g->GraphSetOwnedOutputs(graph, &output, 1);
  if (st == NULL) output = NULL;
  if (st == NULL) st = g->ModelSetOwnedGraph(model, graph);
  if (st == NULL) graph = NULL;
  /* Whatever is still ours (only on failure) goes; the model owns the rest. */
  g->ReleaseTypeInfo(x_type);
  g->ReleaseTypeInfo(flag_type);
  g->ReleaseValueInfo(inputs[0]);
  g->ReleaseValueInfo(inputs[1]);
  g->ReleaseValueInfo(output);
  g->ReleaseAttribute(then_attr);
  g->ReleaseAttribute(else_attr);
  g->ReleaseNode(node);
  g->ReleaseGraph(branches[0]);
  g->ReleaseGraph(branches[1]);
  g->ReleaseGraph(graph);
  if (st != NULL) {
    g->ReleaseModel(model);
    return st;
  }
  *out = model;
  return NULL;
}
/* [build] */

/* Runs the session on x = [[1, 2, 3], [4, 5, 6]] and checks y against the same sums in C. */
static int run_and_check(KilnSession* session, KilnMemoryInfo* cpu, const float* w, const float* b,
                         int flag) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  const int64_t x_shape[2] = {2, 3};
  unsigned char flag_data = (unsigned char)flag;
  KilnValue* inputs[2] = {NULL, NULL};
  KilnValue* y = NULL;
  const char* names[2] = {"x", "flag"};
  const char* out_name = "y";
  float* got = NULL;
  int bad = 0;
  KilnStatus* st = api->CreateTensorWithDataAsValue(cpu, x, sizeof x, x_shape, 2,
                                                    KILN_ELEMENT_TYPE_FLOAT, &inputs[0]);
  if (st == NULL)
    st = api->CreateTensorWithDataAsValue(cpu, &flag_data, 1, NULL, 0, KILN_ELEMENT_TYPE_BOOL,
                                          &inputs[1]);
  if (st == NULL)
    st = api->Run(session, NULL, names, (const KilnValue* const*)inputs, 2, &out_name, 1, &y);
  if (st == NULL) st = api->GetTensorMutableData(y, (void**)&got);
  bad = report(st, "Run");
  for (int r = 0; !bad && r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      float want = 0.0f;
      for (int k = 0; k < 3; ++k) want += (flag ? 1.0f : -1.0f) * x[r * 3 + k] * w[k * 2 + c];
      if (flag) want += b[c];
      if (fabsf(got[r * 2 + c] - want) > 1e-4f) {
        fprintf(stderr, "y[%d][%d] = %g, expected %g\n", r, c, got[r * 2 + c], want);
        bad = 1;
      }
    }
  }
  api->ReleaseValue(y);
  api->ReleaseValue(inputs[0]);
  api->ReleaseValue(inputs[1]);
  return bad;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "graph_builder.onnx";
  float w_data[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}; /* [3, 2] */
  float b_data[2] = {10.0f, -10.0f};
  const int64_t w_shape[2] = {3, 2};
  const int64_t b_shape[1] = {2};
  KilnEnv* env = NULL;
  KilnMemoryInfo* cpu = NULL;
  KilnValue *w = NULL, *b = NULL;
  KilnModel *model = NULL, *reloaded = NULL, *view_model = NULL;
  KilnSession *session = NULL, *from_file = NULL;
  KilnGraph* optimized = NULL;
  int failed = 0;

  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == NULL) return 1;
  /* [get graph api] */
  g = api->GetGraphApi(KILN_GRAPH_API_VERSION);
  if (g == NULL) return 1;
  /* [get graph api] */

  failed |= report(api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "graph_builder", &env), "CreateEnv");
  if (!failed)
    failed |= report(api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu),
                     "CreateCpuMemoryInfo");
  if (!failed)
    failed |= report(api->CreateTensorWithDataAsValue(cpu, w_data, sizeof w_data, w_shape, 2,
                                                      KILN_ELEMENT_TYPE_FLOAT, &w),
                     "CreateTensorWithDataAsValue");
  if (!failed)
    failed |= report(api->CreateTensorWithDataAsValue(cpu, b_data, sizeof b_data, b_shape, 1,
                                                      KILN_ELEMENT_TYPE_FLOAT, &b),
                     "CreateTensorWithDataAsValue");
  if (!failed) failed |= report(build(w, b, &model), "building the model");
  /* [verify print run] */
  if (!failed) failed |= report(g->ModelVerify(model, NULL), "ModelVerify");
  if (!failed) {
    printf("--- the model as built\n");
    failed |=
        report(g->ModelPrint(model, -1, KILN_PRINT_DEFAULT, write_text, stdout), "ModelPrint");
  }
  if (!failed)
    failed |=
        report(g->CreateSessionFromModel(env, model, NULL, &session), "CreateSessionFromModel");
  if (!failed) failed |= run_and_check(session, cpu, w_data, b_data, 1);
  if (!failed) failed |= run_and_check(session, cpu, w_data, b_data, 0);
  /* [verify print run] */

  /* Saved and read back, the model runs the same. */
  /* [save and read back] */
  if (!failed) failed |= report(g->ModelSave(model, path), "ModelSave");
  if (!failed) failed |= report(g->CreateModelFromFile(path, &reloaded), "CreateModelFromFile");
  if (!failed)
    failed |= report(g->CreateSessionFromModel(env, reloaded, NULL, &from_file),
                     "CreateSessionFromModel (read back)");
  if (!failed) failed |= run_and_check(from_file, cpu, w_data, b_data, 1);
  /* [save and read back] */

  /* What the session runs: each node with its kernel, as `#` comments. */
  /* [optimized view] */
  if (!failed)
    failed |=
        report(g->SessionGetGraph(session, KILN_GRAPH_OPTIMIZED, &optimized), "SessionGetGraph");
  if (!failed) failed |= report(g->GraphGetModel(optimized, &view_model), "GraphGetModel");
  if (!failed) {
    printf("--- what the session runs\n");
    failed |= report(g->ModelPrint(view_model, 16, KILN_PRINT_DEBUG, write_text, stdout),
                     "ModelPrint (debug)");
  }
  /* [optimized view] */

  api->ReleaseSession(from_file);
  api->ReleaseSession(session); /* optimized and view_model go with it */
  g->ReleaseModel(reloaded);
  g->ReleaseModel(model);
  api->ReleaseValue(w);
  api->ReleaseValue(b);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseEnv(env);
  if (failed) return 1;
  printf("graph_builder: OK\n");
  return 0;
}
