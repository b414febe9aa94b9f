// The Pitch experiment that docs/ARCHITECTURE.md ("Adding an experiment")
// shows is the one tests/test_swept_experiment.cpp compiles and runs: its
// fenced code block must equal, line for line, the lines between that file's
// markers, so an edit to the class that is not made to the doc (or the other
// way round) fails here instead of leaving readers an example that no longer
// builds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace poslsh {
namespace doc_example_test {  // named: the tests are a unity build

// Consecutive lines of a file and where they start, so that a mismatch can be
// reported as FILE:LINE.
struct Excerpt {
  std::string file;        // relative to the source tree
  std::size_t first_line;  // 1-based number of lines[0]
  std::vector<std::string> lines;
};

std::vector<std::string> source_lines(const std::string& file) {
  std::ifstream in(std::string(POSLSH_SOURCE_DIR) + "/" + file);
  EXPECT_TRUE(in.is_open()) << file << " is not readable";
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first ```cpp block under the Markdown heading `heading`, before the next
// "## " heading; no lines when there is none.
Excerpt fenced_cpp_block(const std::string& file, const std::string& heading) {
  const std::vector<std::string> lines = source_lines(file);
  auto at = std::find(lines.begin(), lines.end(), heading);
  const auto is_next_section = [](const std::string& l) { return l.rfind("## ", 0) == 0; };
  const auto section_end =
      at == lines.end() ? at : std::find_if(at + 1, lines.end(), is_next_section);
  at = std::find(at, section_end, "```cpp");
  if (at == section_end) return {file, 0, {}};
  const auto end = std::find(at + 1, section_end, "```");
  return {file, static_cast<std::size_t>(at - lines.begin()) + 2, {at + 1, end}};
}

// The lines between the marker lines `begin` and `end`, the markers left out;
// no lines when either is missing.
Excerpt marked_region(const std::string& file, const std::string& begin, const std::string& end) {
  const std::vector<std::string> lines = source_lines(file);
  const auto from = std::find(lines.begin(), lines.end(), begin);
  const auto to = from == lines.end() ? from : std::find(from + 1, lines.end(), end);
  if (to == lines.end()) return {file, 0, {}};
  return {file, static_cast<std::size_t>(from - lines.begin()) + 2, {from + 1, to}};
}

// Empty when the excerpts hold the same lines; otherwise the first line in
// which they differ, as FILE:LINE of both.
std::string first_difference(const Excerpt& a, const Excerpt& b) {
  const std::size_t common = std::min(a.lines.size(), b.lines.size());
  for (std::size_t i = 0; i < common; ++i)
    if (a.lines[i] != b.lines[i])
      return fmt::format("line {} of the example differs:\n  {}:{}: {}\n  {}:{}: {}", i + 1, a.file,
                         a.first_line + i, a.lines[i], b.file, b.first_line + i, b.lines[i]);
  if (a.lines.size() == b.lines.size()) return "";
  const Excerpt& longer = a.lines.size() > b.lines.size() ? a : b;
  const Excerpt& shorter = a.lines.size() > b.lines.size() ? b : a;
  return fmt::format("line {} of the example is only in {}:{}: {}\n  ({} ends at line {})",
                     common + 1, longer.file, longer.first_line + common, longer.lines[common],
                     shorter.file, shorter.first_line + common - 1);
}

TEST(DocExample, ArchitectureShowsTheTestedPitchExperiment) {
  const Excerpt doc = fenced_cpp_block("docs/ARCHITECTURE.md", "## Adding an experiment");
  const Excerpt code = marked_region("tests/test_swept_experiment.cpp", "// [doc-example begin]",
                                     "// [doc-example end]");
  ASSERT_FALSE(doc.lines.empty())
      << "no ```cpp block under '## Adding an experiment' in docs/ARCHITECTURE.md";
  ASSERT_FALSE(code.lines.empty())
      << "no lines between '// [doc-example begin]' and '// [doc-example end]' in "
         "tests/test_swept_experiment.cpp";
  const std::string difference = first_difference(doc, code);
  EXPECT_TRUE(difference.empty()) << difference;
}

// The comparison itself can fail, and says where.
TEST(DocExample, FirstDifferenceNamesTheLineOfBothFiles) {
  const Excerpt doc{"doc.md", 10, {"struct A {", "  int x;", "};"}};
  EXPECT_EQ(first_difference(doc, doc), "");
  const Excerpt edited{"code.cpp", 30, {"struct A {", "  int y;", "};"}};
  EXPECT_EQ(first_difference(doc, edited),
            "line 2 of the example differs:\n  doc.md:11:   int x;\n  code.cpp:31:   int y;");
  const Excerpt longer{"code.cpp", 30, {"struct A {", "  int x;", "};", "// more"}};
  EXPECT_EQ(first_difference(doc, longer),
            "line 4 of the example is only in code.cpp:33: // more\n  (doc.md ends at line 12)");
}

}  // namespace doc_example_test
}  // namespace poslsh
