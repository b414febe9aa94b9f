#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy.h"

namespace poslsh {
namespace {

class Npy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("poslsh_npy_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
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
