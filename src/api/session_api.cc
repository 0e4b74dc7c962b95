// Entries: CreateSession … ReleaseSession (slots 50-65).
#include <memory>
#include <string>
#include <vector>

#include "api/allocators.h"
#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "onnx/loader.h"

namespace kiln::api {

void MakeSession(const KilnEnv& env, ir::Model model, const KilnSessionOptions* options,
                 KilnSession** out) {
  runtime::SessionOptions o = options != nullptr ? options->options : runtime::SessionOptions();
  // The session logs through the Env's sink, at its own level and under its own id.
  Logger logger(o.log_level, o.log_id.empty() ? env.logger.id() : o.log_id, env.logger.sink());
  const size_t nodes = model.graph->nodes().size();
  auto session = std::make_shared<runtime::Session>(std::move(model), std::move(o),
                                                    std::make_shared<const Logger>(logger));
  const std::string message = "session created: " + std::to_string(nodes) + " nodes, " +
                              std::to_string(session->inputs().size()) + " inputs, " +
                              std::to_string(session->outputs().size()) + " outputs";
  logger.Log(LogLevel::kInfo, "kiln.session", KILN_LOCATION, message.c_str());
  Publish(std::unique_ptr<KilnSession>(new KilnSession{std::move(session), std::move(logger),
                                                       nullptr, std::make_unique<std::mutex>()}),
          out);
}

namespace {

const KilnSessionOptions* CheckedOptions(const KilnSessionOptions* options) {
  if (options != nullptr) Unwrap(options, "options");
  return options;
}

const runtime::Session::IoDesc& Io(const KilnSession& s, size_t index, bool input) {
  const auto& list = input ? s.session->inputs() : s.session->outputs();
  if (index >= list.size()) {
    ThrowInvalidArgument("index", std::to_string(index) + " is out of range: the model has " +
                                      std::to_string(list.size()) +
                                      (input ? " inputs" : " outputs"));
  }
  return list[index];
}

KilnValueType ValueTypeOf(ir::ValueKind kind) {
  switch (kind) {
    case ir::ValueKind::kTensor:
      return KILN_VALUE_TYPE_TENSOR;
    case ir::ValueKind::kSequence:
      return KILN_VALUE_TYPE_SEQUENCE;
    case ir::ValueKind::kMap:
      return KILN_VALUE_TYPE_MAP;
    case ir::ValueKind::kOptional:
      return KILN_VALUE_TYPE_OPTIONAL;
    case ir::ValueKind::kSparseTensor:
      return KILN_VALUE_TYPE_SPARSE_TENSOR;
    case ir::ValueKind::kUnknown:
      break;
  }
  return KILN_VALUE_TYPE_UNKNOWN;
}

}  // namespace

void PublishTensorInfo(const ir::TypeInfo& type, KilnTensorTypeAndShapeInfo** out) {
  const ir::TypeInfo* t = &type;
  while ((t->kind == ir::ValueKind::kSequence || t->kind == ir::ValueKind::kOptional) &&
         t->contained != nullptr) {
    t = t->contained.get();
  }
  auto info = std::unique_ptr<KilnTensorTypeAndShapeInfo>(
      new KilnTensorTypeAndShapeInfo{t->elem, t->shape.value_or(Shape())});
  Publish(std::move(info), out);
}

KilnStatus* KILN_API_CALL CreateSession(const KilnEnv* env, const char* path,
                                        const KilnSessionOptions* options, KilnSession** out) {
  return Guard("CreateSession", [&] {
    const auto& e = Unwrap(env, "env");
    const std::string p = CheckedUtf8(path, "path");
    CheckedOptions(options);
    CheckOut(out, "out");
    MakeSession(e, onnx::LoadModelFile(p), options, out);
  });
}

KilnStatus* KILN_API_CALL CreateSessionFromArray(const KilnEnv* env, const void* data,
                                                 size_t data_len, const KilnSessionOptions* options,
                                                 KilnSession** out) {
  return Guard("CreateSessionFromArray", [&] {
    const auto& e = Unwrap(env, "env");
    if (data == nullptr) ThrowInvalidArgument("data", "is NULL");
    if (data_len == 0) ThrowInvalidArgument("data_len", "is 0");
    CheckedOptions(options);
    CheckOut(out, "out");
    MakeSession(e, onnx::LoadModelBytes(data, data_len, ""), options, out);
  });
}

KilnStatus* KILN_API_CALL SessionGetInputCount(const KilnSession* session, size_t* out) {
  return Guard("SessionGetInputCount", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    *out = s.session->inputs().size();
  });
}

KilnStatus* KILN_API_CALL SessionGetOutputCount(const KilnSession* session, size_t* out) {
  return Guard("SessionGetOutputCount", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    *out = s.session->outputs().size();
  });
}

KilnStatus* KILN_API_CALL SessionGetInputName(const KilnSession* session, size_t index,
                                              KilnAllocator* allocator, char** out) {
  return Guard("SessionGetInputName", [&] {
    const auto& s = Unwrap(session, "session");
    const auto& io = Io(s, index, true);
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    *out = CopyString(allocator, io.name);
  });
}

KilnStatus* KILN_API_CALL SessionGetOutputName(const KilnSession* session, size_t index,
                                               KilnAllocator* allocator, char** out) {
  return Guard("SessionGetOutputName", [&] {
    const auto& s = Unwrap(session, "session");
    const auto& io = Io(s, index, false);
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    *out = CopyString(allocator, io.name);
  });
}

KilnStatus* KILN_API_CALL SessionGetInputValueType(const KilnSession* session, size_t index,
                                                   KilnValueType* out) {
  return Guard("SessionGetInputValueType", [&] {
    const auto& io = Io(Unwrap(session, "session"), index, true);
    CheckOut(out, "out");
    *out = ValueTypeOf(io.type.kind);
  });
}

KilnStatus* KILN_API_CALL SessionGetOutputValueType(const KilnSession* session, size_t index,
                                                    KilnValueType* out) {
  return Guard("SessionGetOutputValueType", [&] {
    const auto& io = Io(Unwrap(session, "session"), index, false);
    CheckOut(out, "out");
    *out = ValueTypeOf(io.type.kind);
  });
}

KilnStatus* KILN_API_CALL CreateSessionInputTensorInfo(const KilnSession* session, size_t index,
                                                       KilnTensorTypeAndShapeInfo** out) {
  return Guard("CreateSessionInputTensorInfo", [&] {
    const auto& io = Io(Unwrap(session, "session"), index, true);
    CheckOut(out, "out");
    PublishTensorInfo(io.type, out);
  });
}

KilnStatus* KILN_API_CALL CreateSessionOutputTensorInfo(const KilnSession* session, size_t index,
                                                        KilnTensorTypeAndShapeInfo** out) {
  return Guard("CreateSessionOutputTensorInfo", [&] {
    const auto& io = Io(Unwrap(session, "session"), index, false);
    CheckOut(out, "out");
    PublishTensorInfo(io.type, out);
  });
}

KilnStatus* KILN_API_CALL SessionGetModelMetadataString(const KilnSession* session,
                                                        KilnModelMetadataField field,
                                                        KilnAllocator* allocator, char** out) {
  return Guard("SessionGetModelMetadataString", [&] {
    const auto& s = Unwrap(session, "session");
    const ir::Model& m = s.session->model();
    const std::string* text = nullptr;
    switch (EnumValue(field)) {
      case KILN_METADATA_PRODUCER_NAME:
        text = &m.producer_name;
        break;
      case KILN_METADATA_PRODUCER_VERSION:
        text = &m.producer_version;
        break;
      case KILN_METADATA_GRAPH_NAME:
        text = &m.graph->name();
        break;
      case KILN_METADATA_DOMAIN:
        text = &m.domain;
        break;
      case KILN_METADATA_DESCRIPTION:
        text = &m.doc_string;
        break;
      case KILN_METADATA_GRAPH_DESCRIPTION:
        text = &m.graph_doc_string;
        break;
      default:
        ThrowInvalidArgument("field", std::to_string(EnumValue(field)) +
                                          " is not a KilnModelMetadataField (0 to 5)");
    }
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    *out = CopyString(allocator, *text);
  });
}

KilnStatus* KILN_API_CALL SessionGetModelVersion(const KilnSession* session, int64_t* out) {
  return Guard("SessionGetModelVersion", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    *out = s.session->model().model_version;
  });
}

KilnStatus* KILN_API_CALL SessionGetCustomMetadataKeys(const KilnSession* session,
                                                       KilnAllocator* allocator, char*** keys,
                                                       size_t* count) {
  return Guard("SessionGetCustomMetadataKeys", [&] {
    const auto& s = Unwrap(session, "session");
    CheckAllocator(allocator, "allocator");
    CheckOut(keys, "keys");
    CheckOut(count, "count");
    const auto& metadata = s.session->model().metadata;  // a std::map: sorted keys
    if (metadata.empty()) {
      *keys = nullptr;
      *count = 0;
      return;
    }
    auto** array =
        static_cast<char**>(allocator->Alloc(allocator, metadata.size() * sizeof(char*)));
    if (array == nullptr) throw Error(ErrorCode::kOutOfMemory, "the allocator returned NULL");
    size_t made = 0;
    try {
      for (const auto& kv : metadata) {
        array[made] = CopyString(allocator, kv.first);
        ++made;  // only once the copy exists
      }
    } catch (...) {
      for (size_t i = 0; i < made; ++i) allocator->Free(allocator, array[i]);
      allocator->Free(allocator, array);
      throw;
    }
    *keys = array;
    *count = made;
  });
}

KilnStatus* KILN_API_CALL SessionLookupCustomMetadata(const KilnSession* session,
                                                      KilnAllocator* allocator, const char* key,
                                                      char** out) {
  return Guard("SessionLookupCustomMetadata", [&] {
    const auto& s = Unwrap(session, "session");
    CheckAllocator(allocator, "allocator");
    const std::string k = CheckedUtf8(key, "key");
    CheckOut(out, "out");
    const auto& metadata = s.session->model().metadata;
    auto it = metadata.find(k);
    *out = it == metadata.end() ? nullptr : CopyString(allocator, it->second);
  });
}

KilnStatus* KILN_API_CALL SessionEndProfiling(KilnSession* session, KilnAllocator* allocator,
                                              char** out) {
  return Guard("SessionEndProfiling", [&] {
    auto& s = Unwrap(session, "session");
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    const std::string path = s.session->EndProfiling();
    *out = CopyString(allocator, path);
  });
}

void KILN_API_CALL ReleaseSession(KilnSession* session) {
  Release(session, "ReleaseSession");
}

}  // namespace kiln::api
