#include "npy.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "input_error.h"

namespace poslsh {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError(path + ": " + what);
}

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : t_(text) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    skip_ws();
    while (peek() != '}') {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        throw InputError("unknown header key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != '}') {
        throw InputError("expected ',' or '}' in header at offset " + std::to_string(pos_));
      }
    }
    ++pos_;
    skip_ws();
    if (pos_ != t_.size()) throw InputError("trailing characters after header dictionary");
    if (!have_descr || !have_order || !have_shape)
      throw InputError("header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c)
      throw InputError(std::string("expected '") + c + "' in header at offset " +
                       std::to_string(pos_));
    ++pos_;
  }
  std::string string_literal() {
    skip_ws();
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      throw InputError("expected a quoted string in header at offset " + std::to_string(pos_));
    const std::size_t end = t_.find(quote, pos_ + 1);
    if (end == std::string::npos) throw InputError("unterminated string in header");
    std::string s = t_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_ws();
    if (t_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (t_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    throw InputError("fortran_order must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> dims;
    expect('(');
    skip_ws();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        throw InputError("shape must be a tuple of non-negative integers");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10)
          throw InputError("shape dimension too large");
        v = v * 10 + (t_[pos_++] - '0');
      }
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != ')') {
        throw InputError("shape must be a tuple of non-negative integers");
      }
    }
    ++pos_;
    return dims;
  }

  const std::string& t_;
  std::size_t pos_ = 0;
};

constexpr char kMagic[] = "\x93NUMPY";

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}
std::uint64_t le64(const unsigned char* p) {
  return std::uint64_t(le32(p)) | std::uint64_t(le32(p + 4)) << 32;
}

}  // namespace

NpyHeader parse_npy_header(const std::string& header) { return HeaderParser(header).parse(); }

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  unsigned char pre[10];
  in.read(reinterpret_cast<char*>(pre), 8);
  if (in.gcount() != 8 || std::memcmp(pre, kMagic, 6) != 0)
    fail(path, "not a .npy file (bad magic)");
  const int major = pre[6];
  std::size_t header_len = 0;
  if (major == 1) {
    in.read(reinterpret_cast<char*>(pre + 8), 2);
    if (in.gcount() != 2) fail(path, "truncated header");
    header_len = std::size_t(pre[8]) | std::size_t(pre[9]) << 8;
  } else if (major == 2 || major == 3) {
    unsigned char len[4];
    in.read(reinterpret_cast<char*>(len), 4);
    if (in.gcount() != 4) fail(path, "truncated header");
    header_len = le32(len);
    if (header_len > (1u << 24))
      fail(path, "header length " + std::to_string(header_len) + " is implausible");
  } else {
    fail(path, "unsupported .npy format version " + std::to_string(major));
  }
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (static_cast<std::size_t>(in.gcount()) != header_len) fail(path, "truncated header");
  NpyHeader h;
  try {
    h = parse_npy_header(header);
  } catch (const std::invalid_argument& e) {
    fail(path, std::string("malformed header: ") + e.what());
  }
  NpyArray arr;
  std::size_t word = 0;
  if (h.descr == "<f4") {
    arr.dtype = NpyDtype::kFloat32;
    word = 4;
  } else if (h.descr == "<f8") {
    arr.dtype = NpyDtype::kFloat64;
    word = 8;
  } else {
    fail(path, "unsupported dtype '" + h.descr + "' (accepted: '<f4' float32, '<f8' float64)");
  }
  if (h.fortran_order) fail(path, "Fortran-order arrays are not supported (save in C order)");
  if (h.shape.empty()) fail(path, "0-dimensional arrays are not supported");
  std::uint64_t count = 1;
  for (std::int64_t dim : h.shape) {
    if (dim < 1) fail(path, "every dimension must be >= 1");
    if (count > std::numeric_limits<std::uint64_t>::max() / 8 / static_cast<std::uint64_t>(dim))
      fail(path, "array too large");
    count *= static_cast<std::uint64_t>(dim);
  }
  arr.shape = h.shape;
  std::vector<unsigned char> bytes(count * word);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<std::size_t>(in.gcount()) != bytes.size())
    fail(path, "truncated data: expected " + std::to_string(bytes.size()) + " bytes, found " +
                   std::to_string(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof()) fail(path, "trailing bytes after the data");
  arr.data.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    arr.data[i] = word == 4 ? static_cast<double>(std::bit_cast<float>(le32(&bytes[i * 4])))
                            : std::bit_cast<double>(le64(&bytes[i * 8]));
  }
  return arr;
}

HeadStack<double> read_head_stack_npy(const std::string& path) {
  NpyArray a = read_npy(path);
  if (a.shape.size() != 2 && a.shape.size() != 3)
    fail(path, "expected shape (n, d) or (H, n, d), got rank " + std::to_string(a.shape.size()));
  const std::int64_t heads = a.shape.size() == 3 ? a.shape[0] : 1;
  const std::int64_t n = a.shape[a.shape.size() - 2], d = a.shape.back();
  HeadStack<double> stack{heads, RowMatrix<double>(heads * n, d)};
  std::memcpy(stack.data.data(), a.data.data(), a.data.size() * sizeof(double));
  return stack;
}

void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const double* data,
               NpyDtype dtype) {
  if (shape.empty()) throw InputError("write_npy: shape must have rank >= 1");
  std::uint64_t count = 1;
  std::string dims;
  for (std::int64_t dim : shape) {
    if (dim < 0) throw InputError("write_npy: dimensions must be >= 0");
    count *= static_cast<std::uint64_t>(dim);
    dims += std::to_string(dim) + ", ";
  }
  // "3, 4, " -> "3, 4"; rank 1 keeps its comma: "3, " -> "3," (a Python tuple).
  dims.erase(dims.size() - (shape.size() > 1 ? 2 : 1));
  std::string header = std::string("{'descr': '") + (dtype == NpyDtype::kFloat32 ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad with spaces so that data starts on a 64-byte boundary; end with '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 65535) throw InputError("write_npy: header too long");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path + ": cannot open for writing");
  out.write(kMagic, 6);
  const unsigned char version[2] = {1, 0};
  out.write(reinterpret_cast<const char*>(version), 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  std::vector<unsigned char> bytes(count * (dtype == NpyDtype::kFloat32 ? 4 : 8));
  for (std::uint64_t i = 0; i < count; ++i) {
    if (dtype == NpyDtype::kFloat32) {
      const auto u = std::bit_cast<std::uint32_t>(static_cast<float>(data[i]));
      for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<unsigned char>(u >> (8 * b));
    } else {
      const auto u = std::bit_cast<std::uint64_t>(data[i]);
      for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<unsigned char>(u >> (8 * b));
    }
  }
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InputError(path + ": write failed");
}

}  // namespace poslsh
