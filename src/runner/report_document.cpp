#include "runner/report_document.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace poslsh {

namespace {

bool is_number(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

std::string mime_type(const std::string& file) {
  const auto dot = file.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : file.substr(dot + 1);
  if (ext == "png") return "image/png";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  return "application/octet-stream";
}

// A Markdown table cell: '|' would end the cell.
std::string md_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

void ReportDocument::heading(int level, std::string text) {
  Block& b = blocks_.emplace_back(Kind::kHeading);
  b.level = level;
  b.text = std::move(text);
}

void ReportDocument::paragraph(std::string text) {
  blocks_.emplace_back(Kind::kParagraph).text = std::move(text);
}

void ReportDocument::bullets(std::vector<std::string> items) {
  blocks_.emplace_back(Kind::kBullets).items = std::move(items);
}

void ReportDocument::table(std::vector<std::string> header,
                           std::vector<std::vector<std::string>> rows) {
  Block& b = blocks_.emplace_back(Kind::kTable);
  b.items = std::move(header);
  b.rows = std::move(rows);
}

void ReportDocument::code(std::string text, std::string language) {
  Block& b = blocks_.emplace_back(Kind::kCode);
  b.text = std::move(text);
  b.extra = std::move(language);
}

void ReportDocument::figure(std::string image, std::string caption,
                            std::vector<std::pair<std::string, std::string>> links) {
  Block& b = blocks_.emplace_back(Kind::kFigure);
  b.text = std::move(image);
  b.extra = std::move(caption);
  b.links = std::move(links);
}

std::string ReportDocument::markdown() const {
  std::string md = "# " + title_ + "\n\n";
  for (const Block& b : blocks_) {
    switch (b.kind) {
      case Kind::kHeading:
        md += std::string(static_cast<std::size_t>(b.level), '#') + " " + b.text + "\n\n";
        break;
      case Kind::kParagraph:
        md += b.text + "\n\n";
        break;
      case Kind::kBullets:
        for (const auto& item : b.items) md += "- " + item + "\n";
        md += "\n";
        break;
      case Kind::kTable: {
        md += "|";
        for (const auto& h : b.items) md += " " + md_cell(h) + " |";
        md += "\n|";
        for (std::size_t c = 0; c < b.items.size(); ++c) {
          const bool numeric = !b.rows.empty() && is_number(b.rows.front()[c]);
          md += numeric ? "---:|" : "---|";
        }
        md += "\n";
        for (const auto& row : b.rows) {
          md += "|";
          for (const auto& cell : row) md += " " + md_cell(cell) + " |";
          md += "\n";
        }
        md += "\n";
        break;
      }
      case Kind::kCode:
        md += "```" + b.extra + "\n" + b.text + (b.text.ends_with('\n') ? "" : "\n") + "```\n\n";
        break;
      case Kind::kFigure: {
        md += "![" + b.extra + "](" + b.text + ")\n\n*" + b.extra + "*";
        std::string links;
        for (const auto& [label, path] : b.links)
          links += (links.empty() ? "" : ", ") + ("[" + label + "](" + path + ")");
        if (!links.empty()) md += " (" + links + ")";
        md += "\n\n";
        break;
      }
    }
  }
  return md;
}

std::string ReportDocument::html(const std::string& directory) const {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      html_escape(title_) +
      "</title>\n<style>\nbody{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 "
      "1em;line-height:1.4}\ntable{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
      "#bbb;padding:.2em .5em}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
      "pre{background:#f4f4f4;padding:.5em;overflow-x:auto}figure{margin:1.5em 0}"
      "img{max-width:100%}figcaption{font-style:italic}\n</style>\n</head>\n<body>\n<h1>" +
      html_escape(title_) + "</h1>\n";
  for (const Block& b : blocks_) {
    switch (b.kind) {
      case Kind::kHeading:
        h += fmt::format("<h{0}>{1}</h{0}>\n", b.level, inline_html(b.text));
        break;
      case Kind::kParagraph:
        h += "<p>" + inline_html(b.text) + "</p>\n";
        break;
      case Kind::kBullets:
        h += "<ul>\n";
        for (const auto& item : b.items) h += "<li>" + inline_html(item) + "</li>\n";
        h += "</ul>\n";
        break;
      case Kind::kTable:
        h += "<table>\n<tr>";
        for (const auto& c : b.items) h += "<th>" + inline_html(c) + "</th>";
        h += "</tr>\n";
        for (const auto& row : b.rows) {
          h += "<tr>";
          for (const auto& cell : row)
            h += (is_number(cell) ? "<td class=\"num\">" : "<td>") + inline_html(cell) + "</td>";
          h += "</tr>\n";
        }
        h += "</table>\n";
        break;
      case Kind::kCode:
        h += "<pre><code>" + html_escape(b.text) + "</code></pre>\n";
        break;
      case Kind::kFigure: {
        const std::string file = directory + "/" + b.text;
        std::ifstream in(file, std::ios::binary);
        if (!in) throw std::runtime_error("report: cannot read figure '" + file + "'");
        std::ostringstream bytes;
        bytes << in.rdbuf();
        h += "<figure>\n<img alt=\"" + html_escape(b.extra) + "\" src=\"data:" + mime_type(b.text) +
             ";base64," + base64(bytes.str()) + "\">\n<figcaption>" + inline_html(b.extra);
        // Files beside the report: links work when the directory travels with it.
        for (const auto& [label, path] : b.links)
          h += " <a href=\"" + html_escape(path) + "\">" + html_escape(label) + "</a>";
        h += "</figcaption>\n</figure>\n";
        break;
      }
    }
  }
  return h + "</body>\n</html>\n";
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const auto v = (std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                   (std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8) |
                   std::uint32_t{static_cast<unsigned char>(bytes[i + 2])};
    for (int k = 3; k >= 0; --k) out += kAlphabet[(v >> (6 * k)) & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
    if (rest == 2) v |= std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string inline_html(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '`') {
      const auto close = text.find('`', i + 1);
      if (close != std::string_view::npos) {
        out += "<code>" + html_escape(text.substr(i + 1, close - i - 1)) + "</code>";
        i = close + 1;
        continue;
      }
    }
    if (text.substr(i, 2) == "**") {
      const auto close = text.find("**", i + 2);
      if (close != std::string_view::npos) {
        out += "<strong>" + inline_html(text.substr(i + 2, close - i - 2)) + "</strong>";
        i = close + 2;
        continue;
      }
    }
    if (text[i] == '[') {
      const auto mid = text.find("](", i + 1);
      const auto close = mid == std::string_view::npos ? mid : text.find(')', mid + 2);
      if (close != std::string_view::npos &&
          text.substr(i + 1, mid - i - 1).find('[') == std::string_view::npos) {
        out += "<a href=\"" + html_escape(text.substr(mid + 2, close - mid - 2)) + "\">" +
               inline_html(text.substr(i + 1, mid - i - 1)) + "</a>";
        i = close + 1;
        continue;
      }
    }
    out += html_escape(text.substr(i, 1));
    ++i;
  }
  return out;
}

std::string readable_number(const std::string& cell, int digits) {
  if (!is_number(cell)) return cell;
  const double v = std::strtod(cell.c_str(), nullptr);
  if (!std::isfinite(v) || v == std::floor(v)) return cell;  // integers and inf/nan as written
  return fmt::format("{:.{}g}", v, digits);
}

}  // namespace poslsh
