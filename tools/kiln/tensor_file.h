// Tensor files: ONNX TensorProto (.pb) and numpy (.npy) in, TensorProto out.
//
//   kiln::Value x = LoadTensorFile("input_0.npy");   // or a .pb TensorProto
//   WriteTensorFile(TensorToProto(y, "logits"), "out/output_0.pb");
#ifndef KILN_TOOLS_KILN_TENSOR_FILE_H_
#define KILN_TOOLS_KILN_TENSOR_FILE_H_

#include <kiln/kiln_cxx_api.h>
#include <onnx/onnx_pb.h>

#include <string>

namespace kiln::cli {

// Reads a whole file; throws Error naming it when it cannot be read.
std::string ReadFile(const std::string& path);

// Loads a tensor from a .npy file (recognised by its magic bytes) or else from a serialized
// TensorProto. Throws Error naming the file: unreadable, corrupt, an unsupported dtype or
// encoding, external data, or a SequenceProto/OptionalProto (not supported yet).
kiln::Value LoadTensorFile(const std::string& path);

// A tensor with the element type, dims and data of a TensorProto (typed fields or raw_data).
// `what` names the source in errors. Throws Error.
kiln::Value TensorFromProto(const onnx::TensorProto& proto, const std::string& what);

// A TensorProto holding a copy of a tensor: `name`, data_type, dims, and raw_data (string_data
// for strings).
onnx::TensorProto TensorToProto(const kiln::Value& value, const std::string& name);

// Serializes a TensorProto to `path`; throws Error when it cannot be written.
void WriteTensorFile(const onnx::TensorProto& proto, const std::string& path);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_TENSOR_FILE_H_
