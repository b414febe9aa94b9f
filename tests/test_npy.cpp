#include <gtest/gtest.h>
#include <poslsh/npy.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_kinds.h"

namespace poslsh {
namespace {

class Npy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("poslsh_npy_" + std::to_string(::getpid()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A file with the given header text (padded as NumPy does) and raw data.
  std::string craft(const std::string& name, const std::string& header, const std::string& data,
                    int major = 1, const std::string& magic = "\x93NUMPY") {
    std::string h = header;
    const std::size_t pre = major == 1 ? 10 : 12;
    h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
    h.push_back('\n');
    std::ofstream out(path(name), std::ios::binary);
    out.write(magic.data(), static_cast<std::streamsize>(magic.size()));
    out.put(static_cast<char>(major));
    out.put(0);
    if (major == 1) {
      out.put(static_cast<char>(h.size() & 0xff));
      out.put(static_cast<char>(h.size() >> 8));
    } else {
      for (int b = 0; b < 4; ++b) out.put(static_cast<char>((h.size() >> (8 * b)) & 0xff));
    }
    out << h << data;
    return path(name);
  }

  static std::string f64_bytes(const std::vector<double>& x) {
    return std::string(reinterpret_cast<const char*>(x.data()), x.size() * 8);
  }

  void expect_rejected(const std::string& file, const std::string& fragment) {
    try {
      read_head_stack_npy(file);
      ADD_FAILURE() << "accepted " << file;
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "message must be one line: " << msg;
      EXPECT_NE(msg.find(file), std::string::npos) << "message must name the file: " << msg;
    }
  }

  std::filesystem::path dir_;
};

TEST_F(Npy, RoundTripsFloat64AndFloat32InEveryRank) {
  std::vector<double> x(2 * 3 * 5);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.1 * double(i) - 1.3;
  for (auto shape : {std::vector<std::int64_t>{30}, {6, 5}, {2, 3, 5}}) {
    write_npy(path("a.npy"), shape, x.data(), NpyDtype::kFloat64);
    const auto a = read_npy(path("a.npy"));
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.dtype, NpyDtype::kFloat64);
    EXPECT_EQ(a.data, x);
    write_npy(path("b.npy"), shape, x.data(), NpyDtype::kFloat32);
    const auto b = read_npy(path("b.npy"));
    EXPECT_EQ(b.dtype, NpyDtype::kFloat32);
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(b.data[i], static_cast<double>(static_cast<float>(x[i])));
    // Data starts on a 64-byte boundary, as NumPy writes it.
    EXPECT_EQ((std::filesystem::file_size(path("a.npy")) - x.size() * 8) % 64, 0u);
  }
}

TEST_F(Npy, ReadsHeadStacks) {
  std::vector<double> x(2 * 3 * 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i);
  write_npy(path("h.npy"), {2, 3, 4}, x.data(), NpyDtype::kFloat64);
  const auto h = read_head_stack_npy(path("h.npy"));
  EXPECT_EQ(h.heads, 2);
  EXPECT_EQ(h.n(), 3);
  EXPECT_EQ(h.d(), 4);
  EXPECT_EQ(h.head(1)(2, 3), 23.0);  // C order: [1][2][3] = 12 + 8 + 3
  write_npy(path("m.npy"), {6, 4}, x.data(), NpyDtype::kFloat32);
  const auto m = read_head_stack_npy(path("m.npy"));
  EXPECT_EQ(m.heads, 1);
  EXPECT_EQ(m.n(), 6);
  EXPECT_EQ(m.head(5)(1, 2), 6.0);  // a one-head stack is shared by every head
}

TEST_F(Npy, AcceptsNumpyHeaderVariants) {
  const std::vector<double> x = {1.5, -2.0, 3.25, 4.0};
  // Key order, quotes, spacing and the trailing comma vary between writers;
  // format 2.0 has a 4-byte header length.
  const auto a = read_npy(
      craft("v.npy", "{\"shape\":(2,2),'fortran_order':False,  'descr':'<f8'}", f64_bytes(x)));
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(a.data, x);
  const auto b = read_npy(
      craft("w.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", f64_bytes(x), 2));
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(b.data, x);
}

TEST_F(Npy, RejectsEveryMalformedFile) {
  const std::string good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string data = f64_bytes({1, 2, 3, 4});
  expect_rejected(path("missing.npy"), "cannot open");
  expect_rejected(craft("magic.npy", good, data, 1, "\x93NUMPX"), "bad magic");
  {
    std::ofstream(path("short.npy")) << "\x93NU";
    expect_rejected(path("short.npy"), "bad magic");
  }
  expect_rejected(craft("version.npy", good, data, 4), "version");
  expect_rejected(
      craft("big_endian.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", data),
      "unsupported dtype");
  expect_rejected(
      craft("int.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", data),
      "unsupported dtype");
  expect_rejected(
      craft("fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", data),
      "Fortran");
  expect_rejected(
      craft("rank1.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", data),
      "rank 1");
  expect_rejected(
      craft("rank4.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 2, 2), }", data),
      "rank 4");
  expect_rejected(
      craft("zero.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", ""), ">= 1");
  expect_rejected(craft("truncated.npy", good, data.substr(0, 31)), "truncated data");
  expect_rejected(craft("trailing.npy", good, data + "x"), "trailing bytes");
  expect_rejected(craft("nokey.npy", "{'descr': '<f8', 'shape': (2, 2), }", data), "header lacks");
  expect_rejected(
      craft("garbage.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, two)}", data),
      "malformed header");
  expect_rejected(craft("notdict.npy", "hello", data), "malformed header");
  expect_rejected(craft("unterminated.npy", "{'descr: <f8, }", data), "malformed header");
  expect_rejected(craft("extra.npy", good + " junk", data), "malformed header");
  expect_rejected(craft("unknown.npy",
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", data),
                  "unknown header key");
  {
    // Header length pointing past the end of the file.
    std::ofstream out(path("hlen.npy"), std::ios::binary);
    out << "\x93NUMPY" << '\x01' << '\x00' << '\xff' << '\x7f' << "{'descr'";
  }
  expect_rejected(path("hlen.npy"), "truncated header");
}

// ------------------------------------------------ float16 and bfloat16 ----

// Reference conversions written from the format definitions, independently of
// the bit manipulation in npy.cpp: sign, biased exponent and fraction fields,
// the value assembled with ldexp in double (exact) and rounded to float
// (exact too: every value has at most 11 significant bits and lies in
// float32's range).
double half_reference(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 31, fraction = bits & 1023;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(fraction, -24);  // subnormal: 0.fraction * 2^-14
  else if (exponent == 31)
    magnitude = fraction == 0 ? INFINITY : NAN;
  else
    magnitude = std::ldexp(1024 + fraction, exponent - 15 - 10);  // 1.fraction * 2^(e - 15)
  return sign ? -magnitude : magnitude;
}
double bfloat16_reference(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 7) & 255, fraction = bits & 127;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(fraction, -133);  // subnormal: 0.fraction * 2^-126
  else if (exponent == 255)
    magnitude = fraction == 0 ? INFINITY : NAN;
  else
    magnitude = std::ldexp(128 + fraction, exponent - 127 - 7);
  return sign ? -magnitude : magnitude;
}

// Same value and, for zeros, the same sign; NaN matches NaN.
void expect_same(float got, double want, std::uint16_t bits) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << std::hex << bits;
    return;
  }
  EXPECT_EQ(static_cast<double>(got), want) << std::hex << bits;
  EXPECT_EQ(std::signbit(got), std::signbit(want)) << std::hex << bits;
}

TEST(NpyHalf, HandComputedBitPatterns) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);  // largest finite
  EXPECT_EQ(half_to_float(0xFBFF), -65504.0f);
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));         // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));         // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), 1023 * std::ldexp(1.0f, -24));  // largest subnormal
  EXPECT_EQ(half_to_float(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x0200), std::ldexp(1.0f, -15));         // subnormal, one bit
  EXPECT_EQ(half_to_float(0x3BFF), 1.0f - std::ldexp(1.0f, -11));  // below 1
  EXPECT_EQ(half_to_float(0x3C01), 1.0f + std::ldexp(1.0f, -10));  // above 1
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);               // float16(1/3)
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x0000)), 0x00000000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x8000)), 0x80000000u);  // -0
  EXPECT_EQ(half_to_float(0x7C00), INFINITY);
  EXPECT_EQ(half_to_float(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));  // quiet NaN
  EXPECT_TRUE(std::isnan(half_to_float(0x7C01)));  // signalling NaN, smallest payload
  EXPECT_TRUE(std::isnan(half_to_float(0xFFFF)));
  // Bit-exact float32 images: the fraction moves up 13 bits, the exponent is
  // rebiased 15 -> 127.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x3C00)), 0x3F800000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x7BFF)), 0x477FE000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x0001)), 0x33800000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x7E00)), 0x7FC00000u);
}

TEST(NpyHalf, BFloat16HandComputedBitPatterns) {
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0xC000), -2.0f);
  EXPECT_EQ(bfloat16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(bfloat16_to_float(0x0080), std::ldexp(1.0f, -126));  // smallest normal
  EXPECT_EQ(bfloat16_to_float(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
  EXPECT_EQ(bfloat16_to_float(0x007F), 127 * std::ldexp(1.0f, -133));
  EXPECT_EQ(bfloat16_to_float(0x7F7F), std::ldexp(255.0f, 120));  // largest finite
  EXPECT_EQ(std::bit_cast<std::uint32_t>(bfloat16_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(bfloat16_to_float(0x7F80), INFINITY);
  EXPECT_EQ(bfloat16_to_float(0xFF80), -INFINITY);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0x7FC0)));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0x7F81)));
}

TEST(NpyHalf, EveryBitPatternMatchesTheFieldReference) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    expect_same(half_to_float(bits), half_reference(bits), bits);
    expect_same(bfloat16_to_float(bits), bfloat16_reference(bits), bits);
  }
}

TEST_F(Npy, ReadsEveryHalfBitPatternFromAFile) {
  // All 65536 patterns as one (256, 256) file of each 2-byte dtype.
  std::string data;
  for (std::uint32_t b = 0; b < 65536; ++b) {
    data += static_cast<char>(b & 0xff);
    data += static_cast<char>(b >> 8);
  }
  for (const char* descr : {"<f2", "<V2", "bfloat16"}) {
    SCOPED_TRACE(descr);
    const bool half = std::string(descr) == "<f2";
    const auto a = read_npy(craft(
        "all.npy",
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (256, 256), }",
        data));
    EXPECT_EQ(a.dtype, half ? NpyDtype::kFloat16 : NpyDtype::kBFloat16);
    EXPECT_EQ(a.shape, (std::vector<std::int64_t>{256, 256}));
    ASSERT_EQ(a.data.size(), 65536u);
    for (std::uint32_t b = 0; b < 65536; ++b) {
      const auto bits = static_cast<std::uint16_t>(b);
      const double want = half ? half_reference(bits) : bfloat16_reference(bits);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(a.data[b])) << b;
      else
        EXPECT_EQ(a.data[b], want) << b;
    }
  }
}

// Files written by NumPy 1.24 (np.save of np.float16 arrays) and headers as
// np.save writes them for ml_dtypes.bfloat16 ('<V2') or as the str(dtype)
// workaround does ('bfloat16'); they seed the .npy fuzz corpus too.
TEST(NpyHalfFixtures, MatchNumpysConversion) {
  const std::string dir = std::string(POSLSH_SOURCE_DIR) + "/fuzz/corpus/npy/";
  const auto a = read_npy(dir + "f16_2x4.npy");
  EXPECT_EQ(a.dtype, NpyDtype::kFloat16);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 4}));
  // np.float16([[0, -0, 1, -2], [65504, 2^-24, 1023 * 2^-24, 2^-14]]).astype(np.float32)
  const std::vector<double> want = {0.0,
                                    -0.0,
                                    1.0,
                                    -2.0,
                                    65504.0,
                                    std::ldexp(1.0, -24),
                                    1023 * std::ldexp(1.0, -24),
                                    std::ldexp(1.0, -14)};
  EXPECT_EQ(a.data, want);
  EXPECT_TRUE(std::signbit(a.data[1]));
  const auto s = read_npy(dir + "f16_special.npy");
  // np.float16([inf, -inf, nan, 1/3, -65504, 0.1]).astype(np.float32)
  ASSERT_EQ(s.data.size(), 6u);
  EXPECT_EQ(s.data[0], INFINITY);
  EXPECT_EQ(s.data[1], -INFINITY);
  EXPECT_TRUE(std::isnan(s.data[2]));
  EXPECT_EQ(s.data[3], 0.333251953125);
  EXPECT_EQ(s.data[4], -65504.0);
  EXPECT_EQ(s.data[5], 0.0999755859375);
  const auto b = read_npy(dir + "bf16_v2_2x3.npy");
  EXPECT_EQ(b.dtype, NpyDtype::kBFloat16);
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(b.data, (std::vector<double>{1.0, -2.0, std::ldexp(1.0, -133), std::ldexp(1.0, -126),
                                         std::ldexp(255.0, 120), -0.0}));
  const auto c = read_npy(dir + "bf16_named_3.npy");
  EXPECT_EQ(c.dtype, NpyDtype::kBFloat16);
  ASSERT_EQ(c.data.size(), 3u);
  EXPECT_EQ(c.data[0], 1.0);
  EXPECT_EQ(c.data[1], INFINITY);
  EXPECT_TRUE(std::isnan(c.data[2]));
}

TEST_F(Npy, HalfHeadStacksAndRejections) {
  // (2, 1, 2) float16 [[[1, -2]], [[0.5, 65504]]] in format 3.0.
  const std::string half = std::string("\x00\x3c\x00\xc0\x00\x38\xff\x7b", 8);
  const auto h = read_head_stack_npy(
      craft("h.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 1, 2), }", half, 3));
  EXPECT_EQ(h.heads, 2);
  EXPECT_EQ(h.head(1)(0, 1), 65504.0);
  EXPECT_EQ(h.head(0)(0, 1), -2.0);
  const auto with = [&](const std::string& descr, const std::string& data) {
    return craft("bad.npy", "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 2), }",
                 data);
  };
  // Big-endian and plain NumPy voids stay refused, and the message lists what
  // is accepted.
  for (const char* descr : {">f2", "|V2", "<V4", "<i2", "<u2", "<e2", "bfloat16 "}) {
    SCOPED_TRACE(descr);
    expect_rejected(with(descr, half), "unsupported dtype");
    try {
      read_npy(with(descr, half));
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      for (const char* accepted : {"'<f8' float64", "'<f4' float32", "'<f2' float16",
                                   "'<V2' or 'bfloat16' bfloat16", "little-endian only"})
        EXPECT_NE(msg.find(accepted), std::string::npos) << msg;
    }
  }
  expect_rejected(with("<f2", half.substr(0, 7)), "truncated data: expected 8 bytes, found 7");
  expect_rejected(with("<V2", half + "x"), "trailing bytes");
  expect_rejected(with("<f2", half + half), "trailing bytes");
  std::vector<double> x = {1, 2};
  testing::expect_broken_invariant(
      [&] { write_npy(path("w.npy"), {2}, x.data(), NpyDtype::kFloat16); });
}

TEST(NpyHeader, ParsesShapesAndFlags) {
  const auto h =
      parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1024, 64), }");
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 1024, 64}));
  EXPECT_THROW(parse_npy_header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}"),
               std::invalid_argument);
  EXPECT_THROW(parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}"),
               std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
