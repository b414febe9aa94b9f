#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "runner/cli_common.h"
#include "runner/list_ranges.h"

namespace poslsh {
namespace {

using Ints = std::vector<std::int64_t>;
using Reals = std::vector<double>;

TEST(ListRanges, IntegerGeometric) {
  EXPECT_EQ(expand_integer_range("1:256:x2", "--s"), (Ints{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(expand_integer_range("1024:65536:x4", "--n"), (Ints{1024, 4096, 16384, 65536}));
  EXPECT_EQ(expand_integer_range("1:100:x2", "--s"), (Ints{1, 2, 4, 8, 16, 32, 64}));  // B not hit
  EXPECT_EQ(expand_integer_range("3:3:x2", "--s"), (Ints{3}));
  EXPECT_EQ(expand_integer_range("3:5:x2", "--s"), (Ints{3}));
  EXPECT_EQ(expand_integer_range("+1:+8:x+2", "--s"), (Ints{1, 2, 4, 8}));
  // The largest powers of two: no overflow at the top of int64.
  const Ints top = expand_integer_range("1:9223372036854775807:x2", "--n");
  ASSERT_EQ(top.size(), 63u);
  EXPECT_EQ(top.back(), std::int64_t{1} << 62);
  const Ints three = expand_integer_range("1:9223372036854775807:x3", "--n");
  EXPECT_EQ(three.back(), 4052555153018976267);  // 3^39; 3^40 > 2^63
}

TEST(ListRanges, IntegerLinear) {
  EXPECT_EQ(expand_integer_range("1:10:+3", "--s"), (Ints{1, 4, 7, 10}));
  EXPECT_EQ(expand_integer_range("0:10:+3", "--s"), (Ints{0, 3, 6, 9}));
  EXPECT_EQ(expand_integer_range("-4:4:+4", "--s"), (Ints{-4, 0, 4}));
  EXPECT_EQ(expand_integer_range("7:7:+1", "--s"), (Ints{7}));
  // A step wider than the whole span of int64 values, without overflow.
  EXPECT_EQ(expand_integer_range("-9223372036854775808:9223372036854775807:+9223372036854775807",
                                 "--seed"),
            (Ints{INT64_MIN, -1, INT64_MAX - 1}));
  EXPECT_EQ(expand_integer_range("1:1000000:+1", "--n").size(), kMaxRangeValues);
  EXPECT_EQ(expand_integer_range("1:1000000:+1", "--n").back(), 1000000);
}

TEST(ListRanges, RealRangesAreExactDecimals) {
  EXPECT_EQ(expand_real_range("1:256:x2", "--sigma"), (Reals{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(expand_real_range("0.5:8:x2", "--sigma"), (Reals{0.5, 1, 2, 4, 8}));
  EXPECT_EQ(expand_real_range("0.1:1000:x10", "--sigma"), (Reals{0.1, 1, 10, 100, 1000}));
  // As if typed: 0.3, not 0.1 + 0.2 = 0.30000000000000004.
  EXPECT_EQ(expand_real_range("0:1:+0.1", "--sigma"),
            (Reals{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}));
  EXPECT_EQ(expand_real_range("0.1:0.3:+0.1", "--sigma"), (Reals{0.1, 0.2, 0.3}));
  EXPECT_EQ(expand_real_range("1e3:4e3:+1e3", "--sigma"), (Reals{1000, 2000, 3000, 4000}));
  EXPECT_EQ(expand_real_range("-1:1:+0.5", "--x"), (Reals{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(expand_real_range("2.5:2.5:x2", "--sigma"), (Reals{2.5}));
  // B above A by less than a double can tell: compared exactly.
  EXPECT_EQ(expand_real_range("1:1.0000000000000000001:+1", "--sigma"), (Reals{1}));
  EXPECT_EQ(expand_range_text("0.125:1:x2", RangeKind::kReal, "--sigma"),
            (std::vector<std::string>{"0.125", "0.25", "0.5", "1"}));
  EXPECT_EQ(expand_range_text("1e-40:1e-38:x10", RangeKind::kReal, "--sigma"),
            (std::vector<std::string>{"1e-40", "1e-39", "1e-38"}));
  EXPECT_EQ(expand_range_text("1e20:1e21:+5e20", RangeKind::kReal, "--sigma"),
            (std::vector<std::string>{"100000000000000000000", "600000000000000000000"}));
}

TEST(ListRanges, RealNonIntegerFactorIncludesTheEndWithinOneIn1e9) {
  EXPECT_EQ(expand_real_range("1:10:x1.5", "--sigma"),
            (Reals{1, 1.5, 2.25, 3.375, 5.0625, 7.59375}));
  // 1.1^i in double misses 1.1^2 = 1.21 by an ulp; the end point is B itself.
  const Reals r = expand_real_range("1:1.21:x1.1", "--sigma");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1], 1.1);
  EXPECT_EQ(r.back(), 1.21);
  // 10^(1/2)^2 within 1e-9 of 10: included as 10.
  const Reals s = expand_real_range("1:10:x3.16227766017", "--sigma");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.back(), 10.0);
  // ... but not when it overshoots B by more (3.1622^2 = 9.99950884).
  EXPECT_EQ(expand_real_range("1:9.999:x3.1622", "--sigma"), (Reals{1, 3.1622}));
  EXPECT_EQ(expand_real_range("1:10:x3.1622", "--sigma"), (Reals{1, 3.1622, std::pow(3.1622, 2)}));
}

TEST(ListRanges, TextIsWhatCliReadsBack) {
  EXPECT_EQ(expand_range_text("1:8:x2", RangeKind::kInteger, "--s"),
            (std::vector<std::string>{"1", "2", "4", "8"}));
  EXPECT_EQ(expand_range_text("-2:2:+2", RangeKind::kInteger, "--s"),
            (std::vector<std::string>{"-2", "0", "2"}));
  EXPECT_EQ(expand_range_text("0:0.3:+0.1", RangeKind::kReal, "--sigma"),
            (std::vector<std::string>{"0", "0.1", "0.2", "0.3"}));
  EXPECT_TRUE(is_range("1:2:x2"));
  EXPECT_TRUE(is_range("1:2"));
  EXPECT_FALSE(is_range("12"));
  EXPECT_FALSE(is_range("1e3"));
}

// Every malformed range: a UsageError, one line, naming the option, the
// token, what is wrong and both accepted forms.
void expect_refused(const std::string& token, RangeKind kind, const std::string& why) {
  SCOPED_TRACE(token);
  try {
    (void)expand_range_text(token, kind, "--opt");
    ADD_FAILURE() << "accepted " << token;
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("--opt: bad range '", 0), 0u) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_NE(msg.find("A:B:xK (A, A*K, A*K^2, ... up to B"), std::string::npos) << msg;
    EXPECT_NE(msg.find("A:B:+K (A, A+K, A+2K, ... up to B"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(ListRanges, RefusesMalformedIntegerRanges) {
  const auto I = RangeKind::kInteger;
  expect_refused("1:0:x2", I, "end 0 is below start 1");
  expect_refused("1:256:x1", I, "factor 1 must be >= 2");
  expect_refused("1:256:x0", I, "factor 0 must be >= 2");
  expect_refused("1:256:x-2", I, "factor -2 must be >= 2");
  expect_refused("0:256:x2", I, "start 0 must be >= 1 with a factor");
  expect_refused("1:8:+0", I, "step 0 must be >= 1");
  expect_refused("1:8:+-1", I, "step");
  expect_refused("a:b:+0", I, "start 'a' is not an integer");
  expect_refused("1:b:+1", I, "end 'b' is not an integer");
  expect_refused("1:8:+", I, "step '' is not an integer");
  expect_refused("1.5:8:x2", I, "start '1.5' is not an integer");
  expect_refused("1e3:8e3:x2", I, "start '1e3' is not an integer");
  expect_refused("1:8:x2.5", I, "factor '2.5' is not an integer");
  expect_refused(":8:x2", I, "start '' is not an integer");
  expect_refused("1:8", I, "expected three fields");
  expect_refused("1:8:x2:4", I, "expected three fields");
  expect_refused("1::x2", I, "end '' is not an integer");
  expect_refused("1:8:2", I, "the third field must be xK or +K");
  expect_refused("1:8:*2", I, "the third field must be xK or +K");
  expect_refused("1:8:", I, "the third field must be xK or +K");
  expect_refused("1:9223372036854775808:x2", I, "end '9223372036854775808' does not fit");
  expect_refused("-9223372036854775809:0:+1", I, "does not fit a 64-bit integer");
  expect_refused("1:8:x99999999999999999999", I, "factor '99999999999999999999' does not fit");
  expect_refused("1:1000001:+1", I, "more than 1000000 values");
  expect_refused("-9223372036854775808:9223372036854775807:+1", I, "more than 1000000 values");
  expect_refused(std::string("1:8:x2\x1b[2J"), I, "\\x1b[2J");  // echoed escaped
}

TEST(ListRanges, RefusesMalformedRealRanges) {
  const auto R = RangeKind::kReal;
  expect_refused("1:0.5:x2", R, "end 0.5 is below start 1");
  expect_refused("1.0000000000000000001:1:+1", R, "end 1 is below start 1.0000000000000000001");
  expect_refused("1:256:x1", R, "factor 1 must be > 1");
  expect_refused("1:256:x0.5", R, "factor 0.5 must be > 1");
  expect_refused("1:256:x0", R, "factor 0 must be > 1");
  expect_refused("0:256:x2", R, "start 0 must be > 0 with a factor");
  expect_refused("-1:256:x2", R, "start -1 must be > 0 with a factor");
  expect_refused("0:1:+0", R, "step 0 must be > 0");
  expect_refused("0:1:+-0.5", R, "step -0.5 must be > 0");
  expect_refused("a:b:+0", R, "start 'a' is not a number");
  expect_refused("1:inf:x2", R, "end 'inf' is not a number");
  expect_refused("nan:1:x2", R, "start 'nan' is not a number");
  expect_refused("1:2:x1e", R, "factor '1e' is not a number");
  expect_refused("1:2:x.", R, "factor '.' is not a number");
  expect_refused("1:1e400:x2", R, "end '1e400' is out of range for a double");
  expect_refused("1e-400:1:x2", R, "start '1e-400' is out of range for a double");
  expect_refused("1:1e999999:x2", R, "out of range for a double");
  expect_refused("1:1234567890123456789012345678901234567:+1", R, "more than 36 significant");
  expect_refused("0:1:+0.000001", R, "more than 1000000 values");
  expect_refused("1:2:x1.0000001", R, "more than 1000000 values");
  expect_refused("1:8", R, "expected three fields");
  expect_refused("1:8:/2", R, "the third field must be xK or +K");
}

// ---------------------------------------------- through the real binary ----

class ListRangesCli : public testing::CliTest {
 protected:
  // The table and the sidecar's config fingerprint of one run.
  std::string run(const std::string& args, const std::string& name) {
    const auto r = cli(args + " --trials 1 --quiet --no-timing --out " + path(name));
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    const std::string meta = testing::slurp(path(name + ".meta.json"));
    const auto at = meta.find("\"config_fingerprint\"");
    EXPECT_NE(at, std::string::npos) << meta;
    return testing::slurp(path(name)) + "\n" + meta.substr(at, meta.find('\n', at) - at);
  }
};

TEST_F(ListRangesCli, ARangeRunsTheSameSweepAsItsList) {
  const std::string list = run("convergence --n 32,64 --sigma 2,4,8 --s 1,2,4,8", "list.csv");
  EXPECT_NE(list.find("\n"), std::string::npos);
  EXPECT_EQ(run("convergence --n 32:64:x2 --sigma 2:8:x2 --s 1:8:x2", "range.csv"), list);
  EXPECT_EQ(run("convergence --n=32:64:+32 --sigma=2,4:8:x2 --s=1:2:+1,4:8:x2", "eq.csv"), list);
  EXPECT_EQ(run("convergence --s 1:8:x2 --n 32 64 --sigma 2:8:x2", "split.csv"), list);
  // In a --config file, as a quoted string (alone or in an array).
  std::ofstream(path("c.toml")) << "[convergence]\nn = \"32:64:x2\"\nsigma = [\"2:4:x2\", 8]\n"
                                   "s = \"1:8:x2\"\n";
  EXPECT_EQ(run("convergence --config " + path("c.toml"), "config.csv"), list);
}

TEST_F(ListRangesCli, MalformedRangesAreUsageErrorsNamingTheOption) {
  const std::string tail = " --trials 1 --quiet --no-timing --out " + path("x.csv");
  expect_usage_error("convergence --n 64 --sigma 4 --s 1:0:x2" + tail,
                     "--s: bad range '1:0:x2' (end 0 is below start 1); ranges are A:B:xK");
  expect_usage_error("convergence --n 64 --sigma 4 --s 1:256:x1" + tail, "--s: bad range");
  expect_usage_error("convergence --n 64 --sigma 4 --s=1:256:x0" + tail, "--s: bad range");
  expect_usage_error("convergence --n 1:8:+0 --sigma 4 --s 1" + tail, "--n: bad range");
  expect_usage_error("convergence --n 64 --sigma 0:4:x2 --s 1" + tail,
                     "--sigma: bad range '0:4:x2' (start 0 must be > 0 with a factor)");
  expect_usage_error("convergence --n 64 --sigma 4 --s 1:2000000:+1" + tail,
                     "more than 1000000 values");
  expect_usage_error("convergence --n 1:99999999999999999999:x2 --sigma 4 --s 1" + tail,
                     "does not fit a 64-bit integer");
  std::ofstream(path("bad.toml")) << "[convergence]\nn = [64]\nsigma = [4]\ns = \"1:256:x1\"\n";
  expect_usage_error("convergence --config " + path("bad.toml") + tail,
                     "--s: bad range '1:256:x1' (factor 1 must be >= 2)");
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
}

// Every numeric list option of every experiment and benchmark expands ranges:
// --help names them, and a malformed range in each is refused naming it.
TEST_F(ListRangesCli, EveryListOptionTakesRanges) {
  int lists = 0;
  for (const std::string command :
       {"convergence", "blocksize", "attention", "unbiasedness", "power", "bench attention",
        "bench blocksize", "bench convergence", "bench operators"}) {
    SCOPED_TRACE(command);
    const auto help = cli(command + " --help");
    ASSERT_EQ(help.exit_code, 0) << help.err;
    const auto at = help.out.find("Lists (");
    if (at == std::string::npos) continue;
    EXPECT_NE(help.out.find("A:B:xK  A, A*K, A*K^2, ... up to B", at), std::string::npos)
        << help.out;
    std::stringstream names(help.out.substr(at + 7, help.out.find(')', at) - at - 7));
    for (std::string name; std::getline(names >> std::ws, name, ',');) {
      SCOPED_TRACE(name);
      ++lists;
      expect_usage_error(command + " " + name + " 4:2:x2 --out " + path("x.csv"),
                         name + ": bad range '4:2:x2' (end 2 is below start 4)");
    }
  }
  EXPECT_GE(lists, 10);
  const auto help = cli("convergence --help");
  EXPECT_NE(help.out.find("Lists (--n, --sigma, --s) take comma-separated values and ranges"),
            std::string::npos)
      << help.out;
}

TEST_F(ListRangesCli, OtherOptionsKeepTheirColons) {
  // A path holding a range-like name is a path, not a range.
  std::filesystem::create_directories(path("a:1:x2"));
  const auto r =
      cli("convergence --n 32 --sigma 2 --s 1:2:x2 --trials 1 --quiet --no-timing "
          "--out " +
          path("a:1:x2/t:1:x2.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(path("a:1:x2/t:1:x2.csv")));
}

}  // namespace
}  // namespace poslsh
