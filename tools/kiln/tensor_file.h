// Value files: ONNX TensorProto, SequenceProto and OptionalProto (.pb) and numpy (.npy) in,
// the same protos out.
//
//   kiln::Value x = LoadTensorFile("input_0.npy");   // or a .pb TensorProto
//   kiln::Value s = LoadSequenceFile("input_1.pb", KILN_ELEMENT_TYPE_FLOAT);
//   WriteProtoFile(TensorToProto(y, "logits"), "out/output_0.pb");
#ifndef KILN_TOOLS_KILN_TENSOR_FILE_H_
#define KILN_TOOLS_KILN_TENSOR_FILE_H_

#include <kiln/kiln_cxx_api.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <string>

namespace kiln::cli {

// Reads a whole file; throws Error naming it when it cannot be read.
std::string ReadFile(const std::string& path);

// The folder a file is in: its path's parent, or "." for a bare name.
std::string FolderOf(const std::string& path);

// Loads a tensor from a .npy file (recognised by its magic bytes) or else from a serialized
// TensorProto (external data found beside the file). Throws Error naming the file: unreadable,
// corrupt, an unsupported dtype, or a SequenceProto/OptionalProto.
kiln::Value LoadTensorFile(const std::string& path);

// A tensor with the element type, dims and data of a TensorProto, in every encoding Kiln's
// loader reads for an initializer: raw_data; the typed field of its type (int32_data holds
// float16 and bfloat16 as their bits, the 8-bit floats as theirs, and the 4- and 2-bit types
// packed, one byte of two or four elements per entry, the first in the low bits); string_data;
// or external data, its 'location' relative to `base_dir` and inside it. `what` names the source
// in errors. Throws Error for anything else (segments, a size that does not match the dims).
kiln::Value TensorFromProto(const onnx::TensorProto& proto, const std::string& what,
                            const std::string& base_dir);

// A TensorProto holding a copy of a tensor: `name`, data_type, dims, and raw_data (string_data
// for strings).
onnx::TensorProto TensorToProto(const kiln::Value& value, const std::string& name);

// Loads a SequenceProto of tensors (elem_type TENSOR) as a sequence. Every tensor must have
// `declared` (when it is not KILN_ELEMENT_TYPE_UNDEFINED), which is also the element type of an
// empty sequence. Throws Error naming the file.
kiln::Value LoadSequenceFile(const std::string& path, KilnElementType declared);

// Loads an OptionalProto: elem_type TENSOR or SEQUENCE (of tensors) with its value, or empty
// (elem_type UNDEFINED, or no value). `holds_sequence` and `declared` say what the model expects:
// an empty optional gets them, and a value must match them. Throws Error naming the file.
kiln::Value LoadOptionalFile(const std::string& path, bool holds_sequence,
                             KilnElementType declared);

// A SequenceProto (elem_type TENSOR, `name` set) holding a copy of a sequence's tensors.
onnx::SequenceProto SequenceToProto(const kiln::Value& value, const std::string& name);

// An OptionalProto (`name` set) holding a copy of an optional's content; elem_type is TENSOR or
// SEQUENCE by the content, or for an empty optional by `holds_sequence`.
onnx::OptionalProto OptionalToProto(const kiln::Value& value, const std::string& name,
                                    bool holds_sequence);

// Serializes a TensorProto, SequenceProto or OptionalProto to `path`; throws Error when it
// cannot be written.
void WriteProtoFile(const google::protobuf::MessageLite& proto, const std::string& path);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_TENSOR_FILE_H_
