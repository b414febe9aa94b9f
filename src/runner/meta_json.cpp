#include "runner/meta_json.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <cstdint>

namespace poslsh {

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

namespace {

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

// Four hex digits at json[at..at+4), or -1.
long hex4(const std::string& json, std::size_t at) {
  if (at + 4 > json.size()) return -1;
  long value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const char c = json[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

}  // namespace

std::string json_field(const std::string& json, const std::string& key, const std::string& path,
                       const std::string& component) {
  const std::string tag = "\"" + key + "\": ";
  const auto at = json.find(tag);
  const auto fail = [&](const std::string& what) {
    return InputError(fmt::format("{}: '{}' {}", component, path, what));
  };
  if (at == std::string::npos) throw fail(fmt::format("has no \"{}\" field", key));
  const std::size_t begin = at + tag.size();
  if (begin >= json.size() || json[begin] != '"')
    return json.substr(begin, json.find_first_of(",\n", begin) - begin);
  const auto bad = [&] {
    return fail(fmt::format("has a malformed string in its \"{}\" field", key));
  };
  std::string value;
  for (std::size_t i = begin + 1;; ++i) {
    if (i >= json.size()) throw bad();  // unterminated
    const char c = json[i];
    if (c == '"') return value;
    if (c != '\\') {
      value += c;
      continue;
    }
    if (++i >= json.size()) throw bad();
    switch (json[i]) {
      case '"':
      case '\\':
      case '/':
        value += json[i];
        break;
      case 'b':
        value += '\b';
        break;
      case 'f':
        value += '\f';
        break;
      case 'n':
        value += '\n';
        break;
      case 'r':
        value += '\r';
        break;
      case 't':
        value += '\t';
        break;
      case 'u': {
        long code = hex4(json, i + 1);
        if (code < 0) throw bad();
        i += 4;
        if (code >= 0xdc00 && code <= 0xdfff) throw bad();  // lone low surrogate
        if (code >= 0xd800 && code <= 0xdbff) {             // needs its low half
          const long low = i + 2 < json.size() && json[i + 1] == '\\' && json[i + 2] == 'u'
                               ? hex4(json, i + 3)
                               : -1;
          if (low < 0xdc00 || low > 0xdfff) throw bad();
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          i += 6;
        }
        append_utf8(value, static_cast<std::uint32_t>(code));
        break;
      }
      default:
        throw bad();
    }
  }
}

}  // namespace poslsh
