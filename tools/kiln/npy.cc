#include "npy.h"

#include <bit>
#include <cctype>
#include <limits>
#include <map>

#include "args.h"
#include "elements.h"

namespace kiln::cli {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr const char* kSupported = "f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1";

// The part of Python's literal syntax a .npy header uses: a dict of strings, booleans, integers
// and tuples of integers.
struct Literal {
  enum Kind { kString, kBool, kInt, kTuple } kind = kString;
  std::string text;
  bool flag = false;
  int64_t number = 0;
  std::vector<int64_t> items;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  std::map<std::string, Literal> Dict() {
    std::map<std::string, Literal> dict;
    Expect('{');
    while (!Peek('}')) {
      const Literal key = Value();
      if (key.kind != Literal::kString) Fail("a key of the header is not a string");
      Expect(':');
      if (!dict.emplace(key.text, Value()).second) Fail("key '" + key.text + "' is repeated");
      if (!Peek('}')) Expect(',');
    }
    Expect('}');
    SkipSpace();
    if (pos_ != s_.size()) Fail("text after the header's dict");
    return dict;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw Error(what_ + ": corrupt .npy header: " + why);
  }

  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  void Expect(char c) {
    if (!Peek(c)) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  int64_t Integer() {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    int64_t v = 0;
    bool any = false;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      const int digit = s_[pos_++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) Fail("an integer overflows");
      v = v * 10 + digit;
      any = true;
    }
    if (!any) Fail("expected a value at offset " + std::to_string(start));
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long literals
    return s_[start] == '-' ? -v : v;
  }

  Literal Value() {
    SkipSpace();
    Literal v;
    if (pos_ >= s_.size()) Fail("it ends early");
    const char c = s_[pos_];
    if (c == '\'' || c == '"') {
      const size_t end = s_.find(c, pos_ + 1);
      if (end == std::string_view::npos) Fail("a string is not closed");
      v.kind = Literal::kString;
      v.text = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
    } else if (s_.substr(pos_, 4) == "True" || s_.substr(pos_, 5) == "False") {
      v.kind = Literal::kBool;
      v.flag = c == 'T';
      pos_ += v.flag ? 4 : 5;
    } else if (c == '(') {
      ++pos_;
      v.kind = Literal::kTuple;
      while (!Peek(')')) {
        v.items.push_back(Integer());
        if (!Peek(')')) Expect(',');
      }
      ++pos_;
    } else if (c == '[') {
      Fail("structured dtypes (a list as 'descr') are not supported");
    } else {
      v.kind = Literal::kInt;
      v.number = Integer();
    }
    return v;
  }

  std::string_view s_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint32_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t size) {
  uint32_t v = 0;
  for (size_t i = 0; i < size; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

}  // namespace

KilnElementType NpyElementType(const std::string& descr, const std::string& what) {
  if (descr.size() < 2) throw Error(what + ": .npy dtype '" + descr + "' is not supported");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  if (order == '>' && code != "i1" && code != "u1" && code != "b1") {
    throw Error(what + ": .npy dtype '" + descr +
                "' is big-endian, which is not supported: save it little-endian, e.g. with "
                "a.astype(a.dtype.newbyteorder('<'))");
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    throw Error(what + ": .npy dtype '" + descr + "' has no byte order the reader knows");
  }
  struct Code {
    std::string_view code;
    KilnElementType type;
  };
  static constexpr Code kCodes[] = {
      {"f2", KILN_ELEMENT_TYPE_FLOAT16}, {"f4", KILN_ELEMENT_TYPE_FLOAT},
      {"f8", KILN_ELEMENT_TYPE_DOUBLE},  {"i1", KILN_ELEMENT_TYPE_INT8},
      {"i2", KILN_ELEMENT_TYPE_INT16},   {"i4", KILN_ELEMENT_TYPE_INT32},
      {"i8", KILN_ELEMENT_TYPE_INT64},   {"u1", KILN_ELEMENT_TYPE_UINT8},
      {"u2", KILN_ELEMENT_TYPE_UINT16},  {"u4", KILN_ELEMENT_TYPE_UINT32},
      {"u8", KILN_ELEMENT_TYPE_UINT64},  {"b1", KILN_ELEMENT_TYPE_BOOL}};
  for (const Code& c : kCodes) {
    if (c.code == code) return c.type;
  }
  throw Error(what + ": .npy dtype '" + descr + "' is not supported (supported: " + kSupported +
              ")");
}

NpyArray ParseNpy(std::string_view bytes, const std::string& what) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    throw Error(what + ": not a .npy file (it does not start with \\x93NUMPY)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    throw Error(what + ": .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)");
  }
  const size_t length_size = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_size) throw Error(what + ": corrupt .npy: the header is cut off");
  const size_t header_len = ReadLittleEndian(bytes, 8, length_size);
  const size_t data_start = 8 + length_size + header_len;
  if (data_start > bytes.size()) {
    throw Error(what + ": corrupt .npy: the header is cut off (it claims " +
                std::to_string(header_len) + " bytes)");
  }
  HeaderParser parser(bytes.substr(8 + length_size, header_len), what);
  const std::map<std::string, Literal> header = parser.Dict();
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (header.find(key) == header.end()) {
      throw Error(what + ": corrupt .npy header: no '" + std::string(key) + "'");
    }
  }
  if (header.size() != 3) throw Error(what + ": corrupt .npy header: unexpected keys");
  const Literal& descr = header.at("descr");
  const Literal& fortran = header.at("fortran_order");
  const Literal& shape = header.at("shape");
  if (descr.kind != Literal::kString || fortran.kind != Literal::kBool ||
      shape.kind != Literal::kTuple) {
    throw Error(what +
                ": corrupt .npy header: 'descr', 'fortran_order' or 'shape' has the "
                "wrong type");
  }
  if (fortran.flag) {
    throw Error(what +
                ": the array is in Fortran order, which is not supported: save it in C "
                "order, e.g. with numpy.ascontiguousarray(a)");
  }
  NpyArray array;
  array.type = NpyElementType(descr.text, what);
  size_t count = 1;
  for (const int64_t d : shape.items) {
    if (d < 0) throw Error(what + ": corrupt .npy header: negative dimension");
    if (d != 0 && count > std::numeric_limits<size_t>::max() / static_cast<size_t>(d)) {
      throw Error(what + ": corrupt .npy header: the shape's size overflows");
    }
    count *= static_cast<size_t>(d);
  }
  const size_t element_size = ElementSize(array.type);
  if (count > std::numeric_limits<size_t>::max() / element_size) {
    throw Error(what + ": corrupt .npy header: the shape's size overflows");
  }
  const size_t want = count * element_size;
  const size_t have = bytes.size() - data_start;
  if (have != want) {
    throw Error(what + ": corrupt .npy: the data is " + std::to_string(have) +
                " bytes but the header's shape and dtype need " + std::to_string(want));
  }
  array.shape = shape.items;
  array.data = bytes.substr(data_start);
  if (array.type == KILN_ELEMENT_TYPE_BOOL) {
    for (const char c : array.data) {
      if (c != 0 && c != 1) throw Error(what + ": corrupt .npy: a bool element is not 0 or 1");
    }
  }
  return array;
}

}  // namespace kiln::cli
