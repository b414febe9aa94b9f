// The one CSV writer (src/runner/csv_writer.h): quoting only where a field
// needs it, what CsvTable reads back, and the row shape it enforces.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace {

TEST(CsvWriter, QuotesOnlyFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("plain 1.5e-3"), "plain 1.5e-3");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_line({"n", "a,b", ""}), "n,\"a,b\",\n");
}

TEST(CsvWriter, CellsAreIntegersAndShortestRoundTripDoubles) {
  EXPECT_EQ(csv_cell(std::int64_t{-7}), "-7");
  EXPECT_EQ(csv_cell(std::uint64_t{18446744073709551615ULL}), "18446744073709551615");
  EXPECT_EQ(csv_cell(0.1), "0.1");
  EXPECT_EQ(std::stod(csv_cell(1.0 / 3.0)), 1.0 / 3.0);
  EXPECT_EQ(csv_cell("text"), "text");
}

TEST(CsvWriter, WhatItWritesCsvTableReadsBack) {
  CsvWriter w({"table", "check", "detail"});
  w.row({"t", "c", "x, \"y\""}).row_of("u", 2, 0.5);
  const CsvTable t = CsvTable::parse(w.take(), "w.csv");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.text(0, "detail"), "x, \"y\"");
  EXPECT_EQ(t.text(1, "check"), "2");
  EXPECT_EQ(t.number(1, "detail"), 0.5);
}

TEST(CsvWriter, TakeHandsOverTheTextInPieces) {
  CsvWriter w({"a", "b"});
  w.row_of(1, 2);
  EXPECT_EQ(w.buffered_bytes(), 8u);
  EXPECT_EQ(w.take(), "a,b\n1,2\n");
  EXPECT_EQ(w.buffered_bytes(), 0u);
  w.row_of(3, 4);
  EXPECT_EQ(w.take(), "3,4\n");
}

TEST(CsvWriter, ARowOfAnotherWidthIsABugInTheWriter) {
  CsvWriter w({"a", "b"});
  EXPECT_THROW(w.row({"1"}), std::logic_error);
  EXPECT_THROW(w.row_of(1, 2, 3), std::logic_error);
  EXPECT_EQ(w.take(), "a,b\n");
}

}  // namespace
}  // namespace poslsh
