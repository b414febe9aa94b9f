#include <poslsh/input_error.h>
#include <poslsh/npy.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "internal/printable.h"

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
        throw InputError("unknown header key '" + detail::printable(key) + "'");
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
constexpr char kAcceptedDtypes[] =
    "'<f8' float64, '<f4' float32, '<f2' float16, '<V2' or 'bfloat16' bfloat16 as np.save writes "
    "an ml_dtypes.bfloat16 array; little-endian only";

std::uint16_t le16(const unsigned char* p) {
  return static_cast<std::uint16_t>(std::uint16_t(p[0]) | std::uint16_t(p[1]) << 8);
}

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}
std::uint64_t le64(const unsigned char* p) {
  return std::uint64_t(le32(p)) | std::uint64_t(le32(p + 4)) << 32;
}

}  // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h >> 15) << 31;
  const std::uint32_t exponent = (h >> 10) & 0x1f;
  std::uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f)  // inf (mantissa 0) or NaN (payload kept, so still a NaN)
    return std::bit_cast<float>(sign | 0x7f800000u | mantissa << 13);
  if (exponent != 0)  // normal: rebias 15 -> 127
    return std::bit_cast<float>(sign | (exponent + 112) << 23 | mantissa << 13);
  if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0
  // Subnormal, mantissa * 2^-24: normalise until the implicit bit (0x400)
  // is set; each shift lowers the exponent by one.
  std::uint32_t e = 113;  // 2^(113 - 127) = 2^-14 with the implicit bit at 0x400
  while ((mantissa & 0x400) == 0) {
    mantissa <<= 1;
    --e;
  }
  return std::bit_cast<float>(sign | e << 23 | (mantissa & 0x3ff) << 13);
}

float bfloat16_to_float(std::uint16_t b) {
  // bfloat16 is the top half of a float32: same sign, exponent and bias.
  return std::bit_cast<float>(std::uint32_t(b) << 16);
}

NpyHeader parse_npy_header(const std::string& header) { return HeaderParser(header).parse(); }

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::string bytes;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0)
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
  return parse_npy(bytes, path);
}

namespace {

// The header text after the magic, version and length fields; `pos` is left
// at the first data byte.
std::string npy_header_text(std::string_view bytes, const std::string& name, std::size_t& pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  if (size < 8 || std::memcmp(p, kMagic, 6) != 0) fail(name, "not a .npy file (bad magic)");
  const int major = p[6];
  pos = 8;
  std::size_t header_len = 0;
  if (major == 1) {
    if (size < pos + 2) fail(name, "truncated header");
    header_len = std::size_t(p[8]) | std::size_t(p[9]) << 8;
    pos += 2;
  } else if (major == 2 || major == 3) {
    if (size < pos + 4) fail(name, "truncated header");
    header_len = le32(p + 8);
    pos += 4;
    if (header_len > (1u << 24))
      fail(name, "header length " + std::to_string(header_len) + " is implausible");
  } else {
    fail(name, "unsupported .npy format version " + std::to_string(major));
  }
  if (size - pos < header_len) fail(name, "truncated header");
  const std::string header(bytes.substr(pos, header_len));
  pos += header_len;
  return header;
}

// The element type a header's descr names, and its size in bytes.
std::pair<NpyDtype, std::size_t> npy_element_type(const std::string& descr,
                                                  const std::string& name) {
  if (descr == "<f4") return {NpyDtype::kFloat32, 4};
  if (descr == "<f8") return {NpyDtype::kFloat64, 8};
  if (descr == "<f2") return {NpyDtype::kFloat16, 2};
  // NumPy has no bfloat16. ml_dtypes registers it with kind 'V', byte order
  // '=' and 2 bytes, so np.save writes dtype.str: '<V2' on every
  // little-endian machine (np.load then returns raw 2-byte voids; a plain
  // NumPy void is '|V2', refused). Files written with str(dtype) as descr,
  // the usual workaround that np.load with ml_dtypes imported reads back,
  // say 'bfloat16'. A torch bfloat16 tensor saved via .view(torch.int16) is
  // '<i2', indistinguishable from integers, and stays refused.
  if (descr == "<V2" || descr == "bfloat16") return {NpyDtype::kBFloat16, 2};
  fail(name, "unsupported dtype '" + detail::printable(descr) +
                 "' (accepted: " + std::string(kAcceptedDtypes) + ")");
}

// The number of elements of a C-order array of `shape`, refused when it is
// not an array poslsh reads (Fortran order, 0-d, a dimension < 1, too large).
std::uint64_t npy_element_count(const NpyHeader& h, const std::string& name) {
  if (h.fortran_order) fail(name, "Fortran-order arrays are not supported (save in C order)");
  if (h.shape.empty()) fail(name, "0-dimensional arrays are not supported");
  std::uint64_t count = 1;
  for (std::int64_t dim : h.shape) {
    if (dim < 1) fail(name, "every dimension must be >= 1");
    if (count > std::numeric_limits<std::uint64_t>::max() / 8 / static_cast<std::uint64_t>(dim))
      fail(name, "array too large");
    count *= static_cast<std::uint64_t>(dim);
  }
  return count;
}

// The little-endian elements at `d` as doubles.
void decode_npy_elements(const unsigned char* d, NpyDtype dtype, std::vector<double>& out) {
  const std::size_t count = out.size();
  switch (dtype) {
    case NpyDtype::kFloat64:
      for (std::uint64_t i = 0; i < count; ++i) out[i] = std::bit_cast<double>(le64(d + i * 8));
      break;
    case NpyDtype::kFloat32:
      for (std::uint64_t i = 0; i < count; ++i)
        out[i] = static_cast<double>(std::bit_cast<float>(le32(d + i * 4)));
      break;
    case NpyDtype::kFloat16:
      for (std::uint64_t i = 0; i < count; ++i)
        out[i] = static_cast<double>(half_to_float(le16(d + i * 2)));
      break;
    case NpyDtype::kBFloat16:
      for (std::uint64_t i = 0; i < count; ++i)
        out[i] = static_cast<double>(bfloat16_to_float(le16(d + i * 2)));
      break;
  }
}

}  // namespace

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  std::size_t pos = 0;
  const std::string header = npy_header_text(bytes, name, pos);
  NpyHeader h;
  try {
    h = parse_npy_header(header);
  } catch (const InputError& e) {
    fail(name, std::string("malformed header: ") + e.what());
  }
  NpyArray arr;
  std::size_t word = 0;
  std::tie(arr.dtype, word) = npy_element_type(h.descr, name);
  const std::uint64_t count = npy_element_count(h, name);
  arr.shape = h.shape;
  // Sizes are compared before anything is allocated: a header that claims
  // more data than the file holds costs nothing.
  const std::uint64_t expected = count * word;
  const std::size_t found = bytes.size() - pos;
  if (found < expected)
    fail(name, "truncated data: expected " + std::to_string(expected) + " bytes, found " +
                   std::to_string(found));
  if (found > expected) fail(name, "trailing bytes after the data");
  arr.data.resize(count);
  decode_npy_elements(reinterpret_cast<const unsigned char*>(bytes.data()) + pos, arr.dtype,
                      arr.data);
  return arr;
}

namespace {

HeadStack<double> head_stack(const NpyArray& a, const std::string& name) {
  if (a.shape.size() != 2 && a.shape.size() != 3)
    fail(name, "expected shape (n, d) or (H, n, d), got rank " + std::to_string(a.shape.size()));
  const std::int64_t heads = a.shape.size() == 3 ? a.shape[0] : 1;
  const std::int64_t n = a.shape[a.shape.size() - 2], d = a.shape.back();
  HeadStack<double> stack{heads, RowMatrix<double>(heads * n, d)};
  std::memcpy(stack.data.data(), a.data.data(), a.data.size() * sizeof(double));
  return stack;
}

}  // namespace

HeadStack<double> read_head_stack_npy(const std::string& path) {
  return head_stack(read_npy(path), path);
}

HeadStack<double> parse_head_stack_npy(std::string_view bytes, const std::string& name) {
  return head_stack(parse_npy(bytes, name), name);
}

void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const double* data,
               NpyDtype dtype) {
  if (dtype != NpyDtype::kFloat32 && dtype != NpyDtype::kFloat64)
    throw std::logic_error("write_npy: writes float32 or float64 only");
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
