// The CSV reader behind check, merge and the report: poslsh's plain tables,
// and RFC 4180 quoting within a line as pandas and checks.csv write it.
#include <gtest/gtest.h>
#include <poslsh/input_error.h>

#include <cmath>

#include "runner/csv_table.h"

namespace poslsh {
namespace {

TEST(CsvTable, PlainAndQuotedFields) {
  const CsvTable t =
      CsvTable::parse("a,b,c\n1,,x\n\"2,5\",\"say \"\"hi\"\"\",\"\"\n3,\"\",\"end\"\n", "t.csv");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.text(0, "b"), "");
  EXPECT_EQ(t.text(1, "a"), "2,5");
  EXPECT_EQ(t.text(1, "b"), "say \"hi\"");
  EXPECT_EQ(t.text(1, "c"), "");
  EXPECT_EQ(t.text(2, "c"), "end");
  EXPECT_TRUE(std::isnan(t.number(0, "b")));
}

TEST(CsvTable, BrokenQuotingIsAnInputErrorNamingTheLine) {
  for (const char* bad : {"a,b\n\"open,1\n", "a,b\n\"x\"y,1\n", "a,b\n1,\"x\"\"\n"}) {
    SCOPED_TRACE(bad);
    try {
      CsvTable::parse(bad, "t.csv");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'t.csv' line 2"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace poslsh
