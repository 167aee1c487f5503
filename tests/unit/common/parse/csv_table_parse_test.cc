#include "common/parse/csv_table_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(CsvTableParseTest, HeaderNamesTheCellsAndCellsKeepTheirPlace) {
  auto table = ParseCsvTable(
      "name,address,rack\n"
      "# a comment line\n"
      "\n"
      "gpu-001,10.0.0.1,r01\r\n"
      "\"gpu,002\",10.0.0.2,\"say \"\"hi\"\"\"\n"
      "gpu-003,10.0.0.3,\n",
      "inv.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->header, (std::vector<std::string>{"name", "address", "rack"}));
  EXPECT_EQ(table->header_line, 1);
  ASSERT_EQ(table->rows.size(), 3u);
  EXPECT_EQ(table->rows[0].line, 4);
  EXPECT_EQ(table->rows[0].cells.at("rack").value, "r01");
  EXPECT_EQ(table->rows[0].cells.at("rack").column, 18);
  EXPECT_EQ(table->rows[1].line, 5);
  EXPECT_EQ(table->rows[1].cells.at("name").value, "gpu,002");
  EXPECT_EQ(table->rows[1].cells.at("address").column, 11);
  EXPECT_EQ(table->rows[1].cells.at("rack").value, "say \"hi\"");
  EXPECT_EQ(table->rows[2].cells.at("rack").value, "");  // Present and empty.
}

TEST(CsvTableParseTest, ByteOrderMarkIsNotPartOfTheFirstName) {
  auto table = ParseCsvTable("\xEF\xBB\xBFname,address\na,198.18.0.1\n", "excel.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->header.front(), "name");
  EXPECT_EQ(table->rows[0].cells.at("name").column, 1);
}

TEST(CsvTableParseTest, QuotedCellsMaySpanLines) {
  auto table = ParseCsvTable("# exported 2026-12-01\na,b\n\"x\ny\",z\nq,r", "m.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->header_line, 2);
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[0].cells.at("a").value, "x\ny");
  EXPECT_EQ(table->rows[1].line, 5);                   // Counted past the line inside the quotes.
  EXPECT_EQ(table->rows[1].cells.at("b").value, "r");  // No newline at the end of the file.
}

TEST(CsvTableParseTest, BrokenInputNamesFileLineAndColumn) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : {
           Case{"", "t.csv: no header row"},
           Case{"# only a comment\n", "t.csv: no header row"},
           Case{"a,,c\n", "t.csv:1:3: an empty column name in the header"},
           Case{"a,b,a\n", "t.csv:1:5: column \"a\" appears twice in the header"},
           Case{"a,b\n1,2,3\n", "t.csv:2:1: 3 cells, the header has 2"},
           Case{"a,b\n1\n", "t.csv:2:1: 1 cells, the header has 2"},
           Case{"a,b\n\"1,2\n", "t.csv:2:1: a quoted cell is not closed"},
           Case{"a,b\n\"1\"x,2\n", "t.csv:2:4: text after a closing quote (quote the whole cell)"},
           Case{"a,b\n1,x\"y\n",
                "t.csv:2:4: a quote inside an unquoted cell (quote the whole cell)"},
           Case{"a,b\n1,2\rx\n", "t.csv:2:5: a carriage return inside a cell"},
       }) {
    auto table = ParseCsvTable(c.text, "t.csv");
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_EQ(table.error().message, c.error) << c.text;
  }
}

}  // namespace
}  // namespace fabric
