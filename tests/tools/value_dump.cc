// kiln_value_dump: reads value files with the `kiln` tool's reader (tools/kiln/tensor_file.h) and
// writes what it read, for check_value_files.py to compare with ONNX's own decoding.
//
// Each line of stdin is "KIND ELEM_TYPE PATH": KIND is tensor, sequence, optional_tensor or
// optional_sequence (what the model declares for the value), ELEM_TYPE the declared element type
// of its tensors (0 when not declared). For each line stdout gets either
//   error MESSAGE\n
// or a header and the tensors read, in order:
//   tensor\n | sequence N\n | optional empty\n | optional tensor\n | optional sequence N\n
// and per tensor "t TYPE RANK D0 D1 ... NBYTES\n" and its NBYTES data bytes, or for strings
// "s RANK D0 D1 ... COUNT\n" and per string "LENGTH\n" and its bytes.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "tensor_file.h"

namespace {

void WriteTensor(const kiln::Value& t) {
  const kiln::TensorTypeAndShapeInfo info = t.type_and_shape();
  const std::vector<int64_t> dims = info.shape();
  const bool strings = info.element_type() == KILN_ELEMENT_TYPE_STRING;
  std::cout << (strings ? "s " : "t " + std::to_string(info.element_type()) + " ") << dims.size();
  for (const int64_t d : dims) std::cout << " " << d;
  if (strings) {
    const std::vector<std::string> values = t.strings();
    std::cout << " " << values.size() << "\n";
    for (const std::string& s : values) std::cout << s.size() << "\n" << s;
    return;
  }
  const size_t n = t.size_in_bytes();
  std::cout << " " << n << "\n";
  if (n != 0) std::cout.write(t.data<char>(), static_cast<std::streamsize>(n));
}

void WriteSequence(const kiln::Value& seq) {
  std::cout << seq.count() << "\n";
  for (size_t i = 0; i < seq.count(); ++i) WriteTensor(seq.element(i));
}

void Dump(const std::string& kind, KilnElementType declared, const std::string& path) {
  if (kind == "tensor") {
    const kiln::Value t = kiln::cli::LoadTensorFile(path);
    std::cout << "tensor\n";
    WriteTensor(t);
  } else if (kind == "sequence") {
    const kiln::Value seq = kiln::cli::LoadSequenceFile(path, declared);
    std::cout << "sequence ";
    WriteSequence(seq);
  } else if (kind == "optional_tensor" || kind == "optional_sequence") {
    const bool holds_sequence = kind == "optional_sequence";
    const kiln::Value opt = kiln::cli::LoadOptionalFile(path, holds_sequence, declared);
    if (!opt.has_value()) {
      std::cout << "optional empty\n";
    } else if (holds_sequence) {
      std::cout << "optional sequence ";
      WriteSequence(opt.element(0));
    } else {
      std::cout << "optional tensor\n";
      WriteTensor(opt.element(0));
    }
  } else {
    std::cout << "error unknown kind '" << kind << "'\n";
  }
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream fields(line);
    std::string kind;
    int declared = 0;
    fields >> kind >> declared;
    std::string path;
    std::getline(fields >> std::ws, path);
    try {
      Dump(kind, static_cast<KilnElementType>(declared), path);
    } catch (const std::exception& e) {
      std::string message = e.what();
      for (char& c : message) c = c == '\n' ? ' ' : c;
      std::cout << "error " << message << "\n";
    }
  }
  std::cout << std::flush;
  return 0;
}
