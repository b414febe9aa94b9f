// Hostile input to every reader, through the real CLI: each case must give
// exit code 2, exactly one line on stderr that names the file (or option) and
// what is wrong, and no output file. The table of bad inputs in docs/cli.md
// lists these cases; a case added there belongs here.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/npy.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "cli_harness.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

class BadInputs : public testing::CliTest {
 protected:
  void write(const std::string& name, const std::string& bytes) const {
    fs::create_directories(fs::path(path(name)).parent_path());
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  // A Q/K/V directory with three valid 64 x 8 float64 files, then `edit`.
  std::string qkv(const std::string& dir, const std::function<void(const std::string&)>& edit) {
    fs::create_directories(path(dir));
    std::vector<double> x(64 * 8);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1 * static_cast<double>(i));
    for (const char* f : {"q.npy", "k.npy", "v.npy"})
      write_npy(path(dir + "/" + f), {64, 8}, x.data(), NpyDtype::kFloat64);
    edit(path(dir));
    return path(dir);
  }
  // A raw .npy file: magic, version 1.0, the header padded to 64 bytes, data.
  static std::string npy(const std::string& header, const std::string& data) {
    std::string h = header;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
  }
  // 64 x 8 2-byte values (float16 0x3800 = 0.5, bfloat16 0x3800 = 2^-15),
  // `bits` at index `at`.
  static std::string half_data(std::size_t at, std::uint16_t bits) {
    std::string d;
    for (std::size_t i = 0; i < 64 * 8; ++i) {
      const std::uint16_t b = i == at ? bits : 0x3800;
      d += static_cast<char>(b & 0xff);
      d += static_cast<char>(b >> 8);
    }
    return d;
  }
  // Expect exit 2, one stderr line mentioning `mention`, and no `out` written.
  void expect_rejected(const std::string& args, const std::string& mention,
                       const std::string& out) {
    expect_usage_error(args, mention);
    for (const std::string suffix : {"", ".meta.json", ".partial", ".summary.csv"})
      EXPECT_FALSE(fs::exists(out + suffix)) << args << ": wrote " << out + suffix;
  }
};

TEST_F(BadInputs, NpyTensorsForAttention) {
  const std::string f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (64, 8), }";
  const std::string data(64 * 8 * 8, '\0');
  struct Case {
    std::string name, file, bytes, mention;
  };
  const std::vector<Case> cases = {
      {"nan", "q.npy", "", "holds nan at head 0, row 3, column 2"},
      {"inf", "k.npy", "", "holds inf"},
      {"truncated", "q.npy", npy(f8, data.substr(0, 100)), "q.npy"},
      {"shape-lies", "k.npy",
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (128, 8), }", data), "k.npy"},
      {"dtype-lies", "v.npy",
       npy("{'descr': '<f4', 'fortran_order': False, 'shape': (64, 8), }", data), "v.npy"},
      {"fortran", "q.npy", npy("{'descr': '<f8', 'fortran_order': True, 'shape': (64, 8), }", data),
       "Fortran"},
      {"big-endian", "q.npy",
       npy("{'descr': '>f8', 'fortran_order': False, 'shape': (64, 8), }", data), "dtype"},
      // float16 ('<f2') and bfloat16 ('<V2', 'bfloat16') are read (see
      // NpyHalfPrecisionTensorsAreRead); their NaN and inf are refused like
      // float64's, big-endian and plain voids like any other dtype.
      {"float16-nan", "q.npy",
       npy("{'descr': '<f2', 'fortran_order': False, 'shape': (64, 8), }",
           half_data(3 * 8 + 2, 0x7E00)),
       "holds nan at head 0, row 3, column 2"},
      {"float16-inf", "v.npy",
       npy("{'descr': '<f2', 'fortran_order': False, 'shape': (64, 8), }", half_data(9, 0xFC00)),
       "holds -inf at head 0, row 1, column 1"},
      {"bfloat16-nan", "k.npy",
       npy("{'descr': '<V2', 'fortran_order': False, 'shape': (64, 8), }", half_data(0, 0x7FC1)),
       "holds nan at head 0, row 0, column 0"},
      {"bfloat16-inf", "k.npy",
       npy("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (64, 8), }",
           half_data(8, 0x7F80)),
       "holds inf at head 0, row 1, column 0"},
      {"float16-truncated", "q.npy",
       npy("{'descr': '<f2', 'fortran_order': False, 'shape': (64, 8), }",
           half_data(0, 0).substr(1)),
       "truncated data"},
      {"float16-big-endian", "q.npy",
       npy("{'descr': '>f2', 'fortran_order': False, 'shape': (64, 8), }", half_data(0, 0)),
       "'<f2' float16"},
      {"plain-void", "q.npy",
       npy("{'descr': '|V2', 'fortran_order': False, 'shape': (64, 8), }", half_data(0, 0)),
       "unsupported dtype '|V2'"},
      {"int16", "q.npy",
       npy("{'descr': '<i2', 'fortran_order': False, 'shape': (64, 8), }", half_data(0, 0)),
       "unsupported dtype '<i2'"},
      {"zero-axis", "q.npy",
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (64, 0), }", ""), ">= 1"},
      {"overflow", "v.npy",
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", data),
       "v.npy"},
      {"overflow-product", "v.npy",
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
       "v.npy"},
      {"not-npy", "k.npy", "n,sigma\n1,2\n", "k.npy"},
      {"empty", "q.npy", "", "q.npy"},
      {"mismatched-n", "k.npy",
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (32, 8), }", data.substr(0, 2048)),
       "k.npy has n = 32"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = qkv(c.name, [&](const std::string& d) {
      if (c.name == "nan" || c.name == "inf") {
        std::vector<double> x(64 * 8, 0.5);
        x[c.name == "nan" ? 3 * 8 + 2 : 0] = c.name == "nan" ? std::nan("") : INFINITY;
        write_npy(d + "/" + c.file, {64, 8}, x.data(), NpyDtype::kFloat64);
      } else {
        std::ofstream(d + "/" + c.file, std::ios::binary) << c.bytes;
      }
    });
    const std::string out = path(c.name + ".csv");
    expect_rejected("attention --qkv " + dir + " --sigma 16 --s 2 --quiet --out " + out, c.mention,
                    out);
  }
}

// What PyTorch users save: float16 (torch.float16 .numpy(), '<f2') and
// bfloat16 (ml_dtypes.bfloat16 through np.save, '<V2'; or 'bfloat16'). The
// attention table is the same, byte for byte, as for float64 files holding
// the same (exactly widened) values.
// `poslsh hash-law`: each bad option named, exit 2, nothing written.
TEST_F(BadInputs, HashLawOptions) {
  const std::string out = path("hl.csv");
  for (const auto& [args, mention] : std::vector<std::pair<std::string, std::string>>{
           {"--sigma -1", "--sigma"},
           {"--sigma nan", "--sigma"},
           {"--sigma 5e-324", "--sigma must be a number in [1e-250, 1e+250]"},
           {"--sigma 2,1e308", "--sigma must be a number in [1e-250, 1e+250]"},
           {"--sigma 2 --indices 0", "--indices"},
           {"--sigma 2 --indices 65536 --trials 65536", "--indices x --trials"},
           {"--sigma 2 --trials 0", "--trials"},
           {"--sigma 2 --indices 2000000", "--indices"},
           {"--sigma 2 --plant-defect nosuch", "--plant-defect"}})
    expect_rejected("hash-law " + args + " --out " + out, mention, out);
}

TEST_F(BadInputs, NpyHalfPrecisionTensorsAreRead) {
  const std::size_t count = 64 * 8;
  std::string bytes[3];
  std::vector<double> widened[3];
  const char* descr[3] = {"<f2", "<V2", "bfloat16"};
  for (int t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < count; ++i) {
      // sin(0.1 i) rounded toward zero to the format's precision, by hand:
      // the float32 bits cut to 16 (bfloat16) or rebuilt (float16, |x| <= 1).
      const float x = std::sin(0.1f * static_cast<float>(i + 7 * t));
      const auto f = std::bit_cast<std::uint32_t>(x);
      std::uint16_t b = static_cast<std::uint16_t>(f >> 16);
      if (t == 0) {
        const int e = static_cast<int>((f >> 23) & 0xff) - 127;
        b = e < -14 ? static_cast<std::uint16_t>((f >> 16) & 0x8000)  // tiny: signed zero
                    : static_cast<std::uint16_t>(((f >> 16) & 0x8000) |
                                                 (static_cast<std::uint32_t>(e + 15) << 10) |
                                                 ((f >> 13) & 0x3ff));
      }
      bytes[t] += static_cast<char>(b & 0xff);
      bytes[t] += static_cast<char>(b >> 8);
      widened[t].push_back(t == 0 ? half_to_float(b) : bfloat16_to_float(b));
    }
  }
  const std::string half_dir = qkv("half", [&](const std::string& d) {
    const char* files[3] = {"q.npy", "k.npy", "v.npy"};
    for (int t = 0; t < 3; ++t)
      std::ofstream(d + "/" + files[t], std::ios::binary) << npy(
          std::string("{'descr': '") + descr[t] + "', 'fortran_order': False, 'shape': (64, 8), }",
          bytes[t]);
  });
  const std::string wide_dir = qkv("wide", [&](const std::string& d) {
    const char* files[3] = {"q.npy", "k.npy", "v.npy"};
    for (int t = 0; t < 3; ++t)
      write_npy(d + "/" + files[t], {64, 8}, widened[t].data(), NpyDtype::kFloat64);
  });
  const std::string run = "attention --sigma 16 --s 2 --trials 1 --quiet --no-timing --qkv ";
  const auto half = cli(run + half_dir + " --out " + path("half.csv"));
  ASSERT_EQ(half.exit_code, 0) << half.err;
  const auto wide = cli(run + wide_dir + " --out " + path("wide.csv"));
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const std::string table = testing::slurp(path("half.csv"));
  EXPECT_GT(std::count(table.begin(), table.end(), '\n'), 1);
  EXPECT_EQ(table, testing::slurp(path("wide.csv")));
}

TEST_F(BadInputs, CsvTablesForCheckAndMerge) {
  ASSERT_EQ(cli("convergence --n 64 --sigma 4 --s 1,2 --trials 1 --quiet --no-timing --out " +
                path("good.csv"))
                .exit_code,
            0);
  const std::string good = testing::slurp(path("good.csv"));
  const std::string header = good.substr(0, good.find('\n') + 1);
  const std::string row1 =
      good.substr(header.size(), good.find('\n', header.size()) + 1 - header.size());
  // Replace the first data row's field `col` with `value`.
  const auto with_field = [&](const std::string& col, const std::string& value) {
    std::vector<std::string> h, r;
    std::stringstream hs(header.substr(0, header.size() - 1)), rs(row1.substr(0, row1.size() - 1));
    for (std::string f; std::getline(hs, f, ',');) h.push_back(f);
    for (std::string f; std::getline(rs, f, ',');) r.push_back(f);
    r.resize(h.size());  // getline drops a trailing empty field (seconds, with --no-timing)
    std::string line;
    for (std::size_t i = 0; i < h.size(); ++i)
      line += (i ? "," : "") + (h[i] == col ? value : r[i]);
    return header + line + "\n";
  };
  struct Case {
    std::string name, text, mention;
  };
  const std::vector<Case> cases = {
      {"empty", "", "empty"},
      {"header-only", header, "no rows"},
      {"truncated-row", header + row1.substr(0, row1.size() / 2) + "\n", "fields"},
      {"missing-column", "n,sigma,s\n64,4,1\n", "column"},
      {"duplicated-column", "n,n,sigma\n64,64,4\n", "appears twice"},
      {"nan-cell", with_field("max_error", "nan"), "max_error"},
      {"inf-cell", with_field("max_error", "inf"), "max_error"},
      {"empty-cell", with_field("b_max", ""), "b_max"},
      {"not-a-number", with_field("sigma", "four"), "not a number"},
      {"n-out-of-range", with_field("n", "0"), "n"},
      {"negative-error", with_field("max_error", "-1"), "max_error"},
      {"edited-bound", with_field("max_bound", "1e9"), "max_bound"},
      {"binary", std::string("\x00\x01\x02\xff\xfe", 5), "bad.csv"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    write("bad.csv", c.text);
    expect_usage_error("check " + path("bad.csv"), c.mention);
  }
  expect_usage_error("check " + path("no-such.csv"), "no-such.csv");
  // Cell bytes echoed in a message are escaped: a hostile table cannot clear
  // the terminal or split the one-line message.
  for (const char* col : {"status", "form", "max_error", "sigma"}) {
    SCOPED_TRACE(col);
    write("bad.csv", with_field(col, "\x1b[2J\rok"));
    const auto r = cli("check " + path("bad.csv"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("\\x1b[2J\\x0dok"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  }
}

TEST_F(BadInputs, ShardsAndSidecarsForMerge) {
  const std::string run = "convergence --n 64 --sigma 4 --s 1,2 --trials 2 --quiet --no-timing ";
  ASSERT_EQ(cli(run + "--shard 1/2 --out " + path("a.csv")).exit_code, 0);
  ASSERT_EQ(cli(run + "--shard 2/2 --out " + path("b.csv")).exit_code, 0);
  ASSERT_EQ(cli("convergence --n 64 --sigma 8 --s 1,2 --trials 2 --quiet --no-timing --shard 2/2 "
                "--out " +
                path("other.csv"))
                .exit_code,
            0);
  const std::string out = path("merged.csv");
  const std::string meta_b = testing::slurp(path("b.csv.meta.json"));
  // Shards of different sweeps, a missing shard, a shard twice.
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("other.csv"), "merge",
                  out);
  expect_rejected("merge --out " + out + " " + path("a.csv"), "merge", out);
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("a.csv"), "merge", out);
  // A sidecar's line for `key` replaced by `line` ("" removes it).
  const auto edit_sidecar = [&](const std::string& name, const std::string& key,
                                const std::string& line) {
    std::string meta = testing::slurp(path(name));
    const auto at = meta.find("  \"" + key + "\"");
    ASSERT_NE(at, std::string::npos) << name << ": " << key;
    meta.replace(at, meta.find('\n', at) - at + 1, line);
    write(name, meta);
  };
  const auto set_commit = [&](const std::string& name, const std::string& commit) {
    edit_sidecar(name, "git_commit", "  \"git_commit\": \"" + commit + "\",\n");
  };
  // Shards of two builds: one sweep, but not one program's rows.
  set_commit("b.csv.meta.json", "0123456789ab");
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"),
                  "by commit 0123456789ab", out);
  // A missing, truncated or fieldless sidecar.
  fs::remove(path("b.csv.meta.json"));
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"), "b.csv", out);
  write("b.csv.meta.json", meta_b.substr(0, 20));
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"), "b.csv", out);
  write("b.csv.meta.json", "{}\n");
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"), "b.csv", out);
  // The sidecars agree but a shard's table was cut short.
  write("b.csv.meta.json", meta_b);
  const std::string b = testing::slurp(path("b.csv"));
  write("b.csv", b.substr(0, b.size() / 2));
  const auto r = cli("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"));
  EXPECT_NE(r.exit_code, 0);  // or merged bytes that differ from the single run: never silent
  // Sidecars without the table checksum (written before it existed): a first
  // shard that lost its final newline would glue its last row to the next
  // shard's first row (and the merged sidecar's row count underflowed).
  write("b.csv", b);
  edit_sidecar("a.csv.meta.json", "csv_fnv1a64", "");
  edit_sidecar("b.csv.meta.json", "csv_fnv1a64", "");
  const std::string a = testing::slurp(path("a.csv"));
  write("a.csv", a.substr(0, a.size() - 1));
  expect_rejected("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"),
                  "does not end with a newline", out);
  write("a.csv", a);
  // Shards of one build that is not this one: the merged sidecar names theirs.
  set_commit("a.csv.meta.json", "0123456789ab");
  set_commit("b.csv.meta.json", "0123456789ab");
  const auto ok = cli("merge --out " + out + " " + path("a.csv") + " " + path("b.csv"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(testing::slurp(out + ".meta.json").find("\"git_commit\": \"0123456789ab\""),
            std::string::npos);
  const auto rows = std::count(a.begin(), a.end(), '\n') + std::count(b.begin(), b.end(), '\n') - 2;
  EXPECT_NE(testing::slurp(out + ".meta.json").find(fmt::format("\"rows\": {},", rows)),
            std::string::npos);
}

TEST_F(BadInputs, ConfigFiles) {
  const std::string out = path("c.csv");
  const auto run = [&](const std::string& text) {
    write("c.toml", text);
    return "convergence --config " + path("c.toml") + " --quiet --out " + out;
  };
  expect_rejected("convergence --config " + path("missing.toml") + " --out " + out, "missing.toml",
                  out);
  expect_rejected(run("[convergance]\nn = [64]\n"), "convergance", out);
  expect_rejected(run("[convergence]\nsigam = [4]\n"), "sigam", out);
  expect_rejected(run("[convergence]\nn = [\"many\"]\n"), "--n", out);
  expect_rejected(run("[convergence]\nsigma = [-4]\n"), "--sigma", out);
  expect_rejected(run("[convergence]\nn = [64\n"), "c.toml", out);
  expect_rejected(run(std::string("\x00\xff[[[", 5)), "c.toml", out);
}

TEST_F(BadInputs, MisspelledNamesGetTheClosestValidName) {
  const std::string out = path("s.csv");
  expect_rejected("convergence --sigam 8 --out " + out, "did you mean --sigma?", out);
  expect_rejected("convergence --tirals 3 --out " + out, "see poslsh convergence --help", out);
  expect_rejected("convergnce --n 3", "did you mean convergence?", out);
  write("s.toml", "[convergance]\nn = [64]\n");
  expect_rejected("convergence --config " + path("s.toml") + " --out " + out,
                  "did you mean section [convergence]?", out);
  write("s.toml", "[convergence]\nsigam = [4]\n");
  expect_rejected("convergence --config " + path("s.toml") + " --out " + out, "did you mean sigma?",
                  out);
  // Nothing close: no suggestion, still one line.
  const auto r = cli("convergence --xyz 3 --out " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace poslsh
