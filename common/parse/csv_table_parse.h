// Parser for a CSV table with a header row (RFC 4180: comma-separated,
// double-quoted cells may hold commas, quotes doubled, CRLF or LF line ends),
// as inventory tools and spreadsheets export it. Each cell keeps the line and
// column it started at, so a caller validating a cell can name its place.
// Blank lines and lines starting with '#' are skipped, and so is a UTF-8
// byte-order mark (spreadsheets write one).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct CsvCell {
  std::string value;
  int column = 0;  // 1-based byte column of the cell's first character.
};

struct CsvRow {
  int line = 0;                          // 1-based line the row starts on.
  std::map<std::string, CsvCell> cells;  // By header name; an empty cell is present and empty.
};

struct CsvTable {
  int header_line = 0;              // 1-based line of the header row.
  std::vector<std::string> header;  // In file order.
  std::vector<CsvRow> rows;
};

// `source` names the file in errors ("FILE:LINE:COLUMN: ..."): an unterminated
// quote, text after a closing quote, a row with more or fewer cells than the
// header, an empty or repeated header name, no header at all.
Result<CsvTable> ParseCsvTable(std::string_view text, std::string_view source);

}  // namespace fabric
