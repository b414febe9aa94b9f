// The .meta.json string reader and writer (src/runner/meta_json.h) against the JSON
// grammar (RFC 8259 string escapes), written out by hand here.
#include <gtest/gtest.h>
#include <poslsh/input_error.h>

#include <string>

#include "runner/meta_json.h"

namespace poslsh {
namespace {

std::string sidecar(const std::string& literal) {
  return "{\n  \"tool\": \"poslsh\",\n  \"config\": " + literal + ",\n  \"rows\": 7\n}\n";
}

std::string field(const std::string& literal) {
  return json_field(sidecar(literal), "config", "x.csv");
}

TEST(MetaJson, EveryByteRoundTrips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string quoted = json_quote(all);
  // No raw control character survives quoting (a sidecar stays one field per line).
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i)
    EXPECT_GE(static_cast<unsigned char>(quoted[i]), 0x20) << "byte " << i;
  EXPECT_EQ(field(quoted), all);
  EXPECT_EQ(field(json_quote("")), "");
  EXPECT_EQ(field(json_quote("a \"b\" \\ c")), "a \"b\" \\ c");
}

TEST(MetaJson, DecodesEveryEscapeOfTheGrammar) {
  EXPECT_EQ(field(R"("\" \\ \/ \b \f \n \r \t")"), "\" \\ / \b \f \n \r \t");
  EXPECT_EQ(field(R"("\u0001\u001F\u0041")"), std::string("\x01\x1f"
                                                          "A"));
  EXPECT_EQ(field(R"("\u00e9")"), "\xc3\xa9");                // é: two UTF-8 bytes
  EXPECT_EQ(field(R"("\u20AC")"), "\xe2\x82\xac");            // €: three
  EXPECT_EQ(field(R"("\ud83d\ude00")"), "\xf0\x9f\x98\x80");  // U+1F600: a surrogate pair
  EXPECT_EQ(field(R"("raw é stays")"), "raw \xc3\xa9 stays");
}

TEST(MetaJson, NonStringValuesAreTheirRawText) {
  EXPECT_EQ(json_field(sidecar("\"x\""), "rows", "x.csv"), "7");
  EXPECT_EQ(json_field("{\n  \"seed\": 42,\n}", "seed", "x.csv"), "42");
}

TEST(MetaJson, MalformedStringsAndMissingFieldsAreInputErrors) {
  for (const char* bad :
       {R"("unterminated)", R"("bad \q escape")", R"("\u12")", R"("\u12g4")", R"("\ud83d alone")",
        R"("\ude00 low first")", R"("\ud83d\u0041")", "\"ends in backslash\\"}) {
    SCOPED_TRACE(bad);
    try {
      json_field("{\n  \"config\": " + std::string(bad), "config", "x.csv");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("x.csv"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("\"config\""), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(json_field(sidecar("\"x\""), "seed", "x.csv"), InputError);
  try {
    json_field("{}", "seed", "x.csv", "rerun");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "rerun: 'x.csv' has no \"seed\" field");
  }
}

TEST(MetaJson, PrintableEscapesWhatWouldBreakAMessage) {
  EXPECT_EQ(printable("ok"), "ok");
  EXPECT_EQ(printable(std::string("a\nb\x1b[2J\xff", 8)), "a\\x0ab\\x1b[2J\\xff");
  EXPECT_EQ(printable(std::string(50, 'x')), std::string(40, 'x') + "...");
}

}  // namespace
}  // namespace poslsh
