// The reproduction report a researcher reads: figures embedded with captions
// and their PDF/SVG beside them, checks summarised per family with every FAIL
// quoted and the full list in checks.csv, numbers at readable precision, and a
// self-contained report.html whose images decode in a real browser.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "cli_harness.h"
#include "runner/csv_table.h"
#include "runner/report_document.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;
class Report : public testing::CliTest {
 protected:
  // DIR/NAME.png with its one-line DIR/NAME.caption.txt, embedded in the
  // report `md` as ![caption](NAME.png). Returns the caption ("" when missing,
  // which is a failure).
  std::string expect_figure_embedded(const std::string& dir, const std::string& name,
                                     const std::string& md) const {
    std::ifstream in(path(dir + "/" + name + ".caption.txt"));
    std::string caption;
    std::getline(in, caption);
    EXPECT_FALSE(caption.empty()) << name;
    EXPECT_NE(md.find("![" + caption + "](" + name + ".png)"), std::string::npos) << name << md;
    EXPECT_TRUE(fs::exists(path(dir + "/" + name + ".png"))) << name;
    return caption;
  }

  // Writes `config` to DIR.toml and runs `reproduce` on it into DIR, quietly.
  testing::CliResult reproduce(const std::string& dir, const std::string& config,
                               const std::string& options = "") const {
    std::ofstream(path(dir + ".toml")) << config;
    return cli("reproduce --config " + path(dir + ".toml") + " --out " + path(dir) + " " + options +
               " --quiet");
  }

  // Rows of DIR/checks.csv whose check starts with `prefix`, from `table`
  // only when one is named.
  std::size_t count_checks(const std::string& dir, const std::string& prefix,
                           const std::string& table = "") const {
    const CsvTable checks = CsvTable::read(path(dir + "/checks.csv"));
    std::size_t rows = 0;
    for (std::size_t k = 0; k < checks.size(); ++k)
      rows += checks.text(k, "check").rfind(prefix, 0) == 0 &&
              (table.empty() || checks.text(k, "table") == table);
    return rows;
  }
};

// Decodes RFC 4648 base64; an empty result on a malformed input.
std::string unbase64(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const auto v = kAlphabet.find(c);
    if (v == std::string::npos) return "";
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

TEST(ReportDocument, Base64MatchesRfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64(plain), encoded);
    EXPECT_EQ(unbase64(encoded), plain);
  }
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  EXPECT_EQ(unbase64(base64(bytes)), bytes);
}

TEST(ReportDocument, InlineMarkupAndEscaping) {
  EXPECT_EQ(inline_html("a < b & `x<y>` **bold** [t](f.csv)"),
            "a &lt; b &amp; <code>x&lt;y&gt;</code> <strong>bold</strong> <a href=\"f.csv\">t</a>");
  EXPECT_EQ(inline_html("unclosed `tick and [bracket"), "unclosed `tick and [bracket");
  EXPECT_EQ(readable_number("0.050908378"), "0.05091");
  EXPECT_EQ(readable_number("84.36661046242723"), "84.37");
  EXPECT_EQ(readable_number("1048576"), "1048576");
  EXPECT_EQ(readable_number("exact"), "exact");
  EXPECT_EQ(readable_number(""), "");
}

// Every relative link target ](x) of a Markdown file, resolved in its directory.
std::vector<std::string> markdown_links(const std::string& md) {
  std::vector<std::string> out;
  const std::regex link(R"(\]\(([^)]+)\))");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

// Loads `html` in headless Chromium with a script appended that counts the
// images that decoded; returns "decoded/total", or "" without Chromium.
std::string images_decoded_in_chromium(const std::string& html, const std::string& dir) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) return "";
  std::string page = html;
  const std::string probe =
      "<script>window.addEventListener('load', () => { const all = [...document.images]; "
      "const ok = all.filter(i => i.complete && i.naturalWidth > 0).length; "
      "document.body.setAttribute('data-decoded', ok + '/' + all.length); });</script>\n";
  const auto body = page.rfind("</body>");
  page.insert(body == std::string::npos ? page.size() : body, probe);
  const std::string file = dir + "/probe.html", dom = dir + "/probe.dom";
  std::ofstream(file) << page;
  const std::string cmd =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--virtual-time-budget=10000 --dump-dom file://" +
      file + " >" + dom + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return "chromium failed";
  const std::string out = testing::slurp(dom), tag = "data-decoded=\"";
  const auto at = out.find(tag);
  if (at == std::string::npos) return "no result";
  return out.substr(at + tag.size(), out.find('"', at + tag.size()) - at - tag.size());
}

TEST_F(Report, ChromiumProbeCatchesABrokenImage) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium not installed (scripts/deps --test installs it)";
  // The negative control: one image that decodes, one that does not.
  const std::string png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+"
      "M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const std::string html = "<!DOCTYPE html><html><body><img src=\"data:image/png;base64," + png +
                           "\"><img src=\"data:image/png;base64,AAAA\"></body></html>";
  EXPECT_EQ(images_decoded_in_chromium(html, dir_.string()), "1/2");
}

TEST_F(Report, AttentionFiguresIncludingLengthExtrapolationAreEmbedded) {
  // docs/cli.md's figure table lists 4 (error vs s) and 4b (error vs n) for
  // attention tables: both must be drawn and embedded, and the length check
  // must reach checks.csv.
  const auto r = reproduce("a",
                           "[attention]\nn = [128, 256]\nd = [8]\nsigma = [4]\n"
                           "s = [1, 4]\ntrials = 3\nseed = 2\n"
                           "estimator = [\"lsh\", \"fixed\", \"window\", \"band\"]\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = testing::slurp(path("a/report.md"));
  for (const std::string script : {"attention_error_vs_s", "attention_error_vs_n"})
    expect_figure_embedded("a", script, md);
  EXPECT_EQ(count_checks("a", "length["), 2u);  // one per s
}

TEST_F(Report, LengthExtrapolationSectionGetsItsOwnFigure) {
  // attention and attention-length both draw error vs n with one script: each
  // gets its own file, title and caption, and the length check is reported
  // for the attention-length table.
  const auto r = reproduce("l",
                           "[attention]\nn = [128, 256]\nd = [8]\nsigma = [4]\n"
                           "s = [1, 4]\ntrials = 3\nseed = 2\n"
                           "[attention-length]\nn = [256, 512, 1024]\nd = [8]\n"
                           "sigma = [4]\ns = [4]\ntrials = 3\nseed = 2\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = testing::slurp(path("l/report.md"));
  for (const std::string name : {"attention_error_vs_n", "attention_length_vs_n"})
    expect_figure_embedded("l", name, md);
  EXPECT_NE(md.find("Length extrapolation: attention output error against n at fixed s"),
            std::string::npos)
      << md;
  EXPECT_GE(count_checks("l", "length[", "attention-length"), 1u);
}

TEST_F(Report, FiguresCaptionsChecksAndHtml) {
  const auto r = reproduce("r",
                           "[convergence]\nn = [256, 1024]\nsigma = [4]\n"
                           "s = [1, 4, 16, 64]\ntrials = 3\nseed = 1\n"
                           "[blocksize]\nn = [4096]\nsigma = [2]\ns = [1, 8]\n"
                           "trials = 200\nseed = 3\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");  // --quiet: the plot scripts' chatter too
  const std::string md = testing::slurp(path("r/report.md"));

  // Figures: one per script of the experiments that ran, each with its
  // caption (what it shows, what the theory predicts) and its PDF/SVG.
  for (const std::string script :
       {"convergence_error_vs_s", "convergence_constant_vs_n", "blocksize_law"}) {
    SCOPED_TRACE(script);
    const std::string caption = expect_figure_embedded("r", script, md);
    if (caption.empty()) continue;
    EXPECT_NE(md.find("*" + caption + "*"), std::string::npos) << md;
    EXPECT_NE(md.find("[PDF](" + script + ".pdf)"), std::string::npos) << md;
  }
  EXPECT_NE(md.find("### Figure 1: "), std::string::npos) << md;
  // Every link resolves to a file beside the report.
  const auto links = markdown_links(md);
  EXPECT_GE(links.size(), 3u * 3 + 3);
  for (const auto& link : links) EXPECT_TRUE(fs::exists(path("r/" + link))) << link;

  // Checks: counts per family, the full list in checks.csv.
  EXPECT_NE(md.find("| blocksize | bound | 1 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| convergence | bound max | 1 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("No check failed."), std::string::npos) << md;
  const CsvTable checks = CsvTable::read(path("r/checks.csv"));  // RFC 4180: details quoted
  std::size_t law_rows = 0;
  for (std::size_t i = 0; i < checks.size(); ++i)
    law_rows += checks.text(i, "check").rfind("law[", 0) == 0;
  EXPECT_EQ(law_rows, 2u);  // one per (n, sigma, s) cell, kept out of the report's body
  EXPECT_EQ(md.find("| law["), std::string::npos);
  EXPECT_LT(std::count(md.begin(), md.end(), '\n'), 120);

  // report.html stands alone: every figure inlined, and each decodes.
  const std::string html = testing::slurp(path("r/report.html"));
  // (A plain scan: libstdc++'s recursive std::regex overflows the stack on
  // 100 kB matches.)
  const std::string tag = "src=\"data:image/png;base64,";
  int images = 0;
  for (auto at = html.find(tag); at != std::string::npos; at = html.find(tag, at + 1), ++images) {
    const auto begin = at + tag.size();
    const std::string bytes = unbase64(html.substr(begin, html.find('"', begin) - begin));
    EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n");
    EXPECT_EQ(bytes, testing::slurp(path("r/" +
                                         std::string(images == 0   ? "convergence_error_vs_s"
                                                     : images == 1 ? "convergence_constant_vs_n"
                                                                   : "blocksize_law") +
                                         ".png")));
  }
  EXPECT_EQ(images, 3);
  EXPECT_EQ(html.find("src=\"convergence"), std::string::npos);  // nothing fetched from disk
  const std::string decoded = images_decoded_in_chromium(html, dir_.string());
  if (decoded.empty()) GTEST_SKIP() << "chromium not installed: the browser check did not run";
  EXPECT_EQ(decoded, "3/3");
}

// The report names the plot scripts' directory relative to the working
// directory when it lies inside it (a report committed from a source tree
// then names no machine's home directory), and in full otherwise.
TEST_F(Report, PlotScriptsAreNamedRelativeToTheWorkingDirectory) {
  std::ofstream(path("tiny.toml"))
      << "[convergence]\nn = [64]\nsigma = [4]\ns = [1, 2]\ntrials = 2\n";
  const auto plot_line = [&](const fs::path& cwd, const std::string& out) {
    const std::string cmd = "cd " + cwd.string() + " && " + POSLSH_CLI + " reproduce --config " +
                            path("tiny.toml") + " --out " + path(out) + " --quiet";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string md = testing::slurp(path(out + "/report.md"));
    const auto at = md.find("plot scripts: `");
    return at == std::string::npos ? md : md.substr(at, md.find('\n', at) - at);
  };
  // The binary's prefix (build tree or install) holds share/poslsh/plots.
  const fs::path prefix = fs::path(POSLSH_CLI).parent_path().parent_path();
  EXPECT_EQ(plot_line(prefix, "inside"), "plot scripts: `share/poslsh/plots`");
  const std::string outside = plot_line(dir_, "outside");
  EXPECT_TRUE(outside.starts_with("plot scripts: `/")) << outside;
  EXPECT_NE(outside.find("share/poslsh/plots`"), std::string::npos) << outside;
}

TEST_F(Report, AFailedCheckIsQuotedInFull) {
  // A defect too weak for so few hashes: its detection rate is far below the
  // 0.99 the power check demands, so the power check FAILs (a real failure,
  // not an edited table).
  const auto r = reproduce("f",
                           "[power]\nseeds = 2\ndefects = [\"pitch-x1.02\"]\n"
                           "unbiasedness-n = [256]\nunbiasedness-sigma = [4]\n"
                           "unbiasedness-hashes = 4096\n",
                           "--no-plots");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string md = testing::slurp(path("f/report.md"));
  EXPECT_NE(md.find("checks FAILED**"), std::string::npos) << md;
  EXPECT_NE(md.find("Failed checks, in full:\n\n- **power** `power[pitch-x1.02]`: "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| power | power | 0 | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("(not drawn: --no-plots)"), std::string::npos) << md;
  const CsvTable checks = CsvTable::read(path("f/checks.csv"));
  bool quoted = false;
  for (std::size_t i = 0; i < checks.size(); ++i)
    quoted |= checks.text(i, "verdict") == "FAIL" &&
              md.find(checks.text(i, "detail")) != std::string::npos;
  EXPECT_TRUE(quoted) << "the FAIL line's detail is not in the report";
}

}  // namespace
}  // namespace poslsh
