// The reproduction report, described once and written twice: as Markdown
// (report.md, figures linked by relative path, for a repository or a Markdown
// viewer) and as one self-contained HTML file (report.html, figures inlined as
// data: URIs, for sharing by mail or chat). Inline markup in text is the
// common subset of both: `code`, **bold** and [text](relative link).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslsh {

class ReportDocument {
 public:
  explicit ReportDocument(std::string title) : title_(std::move(title)) {}

  void heading(int level, std::string text);  // level 2 or 3 (the title is level 1)
  void paragraph(std::string text);
  void bullets(std::vector<std::string> items);
  // Cells hold inline markup; numeric columns are right-aligned.
  void table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows);
  void code(std::string text, std::string language);
  // An image file (relative to the report's directory) with a caption; `links`
  // are (label, relative path) pairs shown under it (e.g. the PDF and SVG).
  void figure(std::string image, std::string caption,
              std::vector<std::pair<std::string, std::string>> links);

  std::string markdown() const;
  // Reads each figure's image from `directory` and inlines it; throws
  // std::runtime_error naming the file when one cannot be read.
  std::string html(const std::string& directory) const;

 private:
  enum class Kind { kHeading, kParagraph, kBullets, kTable, kCode, kFigure };
  struct Block {
    explicit Block(Kind k) : kind(k) {}
    Kind kind;
    int level = 0;
    std::string text, extra;
    std::vector<std::string> items;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::pair<std::string, std::string>> links;
  };
  std::string title_;
  std::vector<Block> blocks_;
};

// RFC 4648 base64 (with padding).
std::string base64(std::string_view bytes);

// Text with & < > " escaped for HTML.
std::string html_escape(std::string_view text);

// Inline markup (`code`, **bold**, [text](link)) as HTML, the rest escaped.
std::string inline_html(std::string_view text);

// A table cell holding a number, shown with `digits` significant digits
// (integers as they are; anything else unchanged): reports show 0.05091,
// not 0.050908378.
std::string readable_number(const std::string& cell, int digits = 4);

}  // namespace poslsh
