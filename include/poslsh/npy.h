// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0),
// C order, little-endian. Read: float64 ('<f8'), float32 ('<f4'), float16
// ('<f2', IEEE binary16, what torch.float16 tensors save as) and bfloat16
// ('<V2', what np.save writes for an ml_dtypes.bfloat16 array, or
// 'bfloat16'; see parse_npy). Every float16 and bfloat16 value, subnormals,
// infinities and NaN included, widens exactly to float32 (and to the double
// held here). Written: float32 or float64. No maintained Debian package offers
// this for C++, hence this small implementation.
//
// Anything else — bad magic, an unsupported dtype or byte order, Fortran
// order, a malformed header, a shape of the wrong rank, truncated or trailing
// data — throws InputError with a one-line message naming the file.
#pragma once

#include <poslsh/exact_attention.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslsh {

enum class NpyDtype { kFloat32, kFloat64, kFloat16, kBFloat16 };

struct NpyArray {
  std::vector<std::int64_t> shape;
  NpyDtype dtype = NpyDtype::kFloat64;
  std::vector<double> data;  // C order; narrower values widen exactly
};

// The exact float32 value of an IEEE binary16 bit pattern (subnormals, +-inf
// and NaN included; a NaN keeps its payload in the top mantissa bits) and of a
// bfloat16 bit pattern (the top 16 bits of a float32).
float half_to_float(std::uint16_t bits);
float bfloat16_to_float(std::uint16_t bits);

// Reads any rank >= 1 with every dimension >= 1.
NpyArray read_npy(const std::string& path);
// The same from the bytes of a whole file held in memory (read_npy reads the
// file and calls this); `name` starts every error message, as the path does.
NpyArray parse_npy(std::string_view bytes, const std::string& name);

// Reads Q, K or V: shape (n, d) (one head, shared) or (H, n, d).
HeadStack<double> read_head_stack_npy(const std::string& path);
HeadStack<double> parse_head_stack_npy(std::string_view bytes, const std::string& name);

// Writes data (C order, product of shape entries) as dtype: kFloat32 or
// kFloat64 (std::logic_error otherwise).
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const double* data,
               NpyDtype dtype);

// Parses the header dictionary, e.g. "{'descr': '<f8', 'fortran_order': False,
// 'shape': (3, 4), }". Exposed for tests; throws InputError.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};
NpyHeader parse_npy_header(const std::string& header);

}  // namespace poslsh
