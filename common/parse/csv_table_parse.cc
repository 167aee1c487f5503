#include "common/parse/csv_table_parse.h"

#include <set>

namespace fabric {
namespace {

struct RawRow {
  int line = 0;
  std::vector<CsvCell> cells;
};

std::string Place(std::string_view source, int line, int column) {
  return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// Splits `text` into rows of cells; quoted cells may span lines.
Result<std::vector<RawRow>> SplitRows(std::string_view text, std::string_view source) {
  std::vector<RawRow> rows;
  size_t i = 0;
  int line = 1;
  size_t line_start = 0;
  auto column = [&](size_t at) { return static_cast<int>(at - line_start) + 1; };
  while (i < text.size()) {
    // Skip blank and comment lines.
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '#') {
      size_t end = text.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end + 1;
      ++line;
      line_start = i;
      continue;
    }
    RawRow row;
    row.line = line;
    while (true) {
      CsvCell cell;
      cell.column = column(i);
      if (i < text.size() && text[i] == '"') {
        const int open_line = line;
        const int open_column = column(i);
        ++i;
        while (true) {
          if (i >= text.size()) {
            return MakeError(Place(source, open_line, open_column) +
                             ": a quoted cell is not closed");
          }
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              cell.value += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
          }
          cell.value += text[i++];
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          return MakeError(Place(source, line, column(i)) +
                           ": text after a closing quote (quote the whole cell)");
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"') {
            return MakeError(Place(source, line, column(i)) +
                             ": a quote inside an unquoted cell (quote the whole cell)");
          }
          cell.value += text[i++];
        }
      }
      row.cells.push_back(std::move(cell));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size()) {
      if (text[i] != '\n') {
        return MakeError(Place(source, line, column(i)) + ": a carriage return inside a cell");
      }
      ++i;
      ++line;
      line_start = i;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Result<CsvTable> ParseCsvTable(std::string_view text, std::string_view source) {
  // Spreadsheets write UTF-8 CSV with a byte-order mark; it is not part of the first name.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  auto rows = SplitRows(text, source);
  if (!rows.ok()) return Unexpected{rows.error()};
  if (rows->empty()) return MakeError(std::string(source) + ": no header row");
  CsvTable table;
  table.header_line = rows->front().line;
  std::set<std::string> seen;
  for (const CsvCell& cell : rows->front().cells) {
    if (cell.value.empty()) {
      return MakeError(Place(source, rows->front().line, cell.column) +
                       ": an empty column name in the header");
    }
    if (!seen.insert(cell.value).second) {
      return MakeError(Place(source, rows->front().line, cell.column) + ": column \"" + cell.value +
                       "\" appears twice in the header");
    }
    table.header.push_back(cell.value);
  }
  for (size_t r = 1; r < rows->size(); ++r) {
    RawRow& raw = (*rows)[r];
    if (raw.cells.size() != table.header.size()) {
      return MakeError(Place(source, raw.line, 1) + ": " + std::to_string(raw.cells.size()) +
                       " cells, the header has " + std::to_string(table.header.size()));
    }
    CsvRow row;
    row.line = raw.line;
    for (size_t c = 0; c < raw.cells.size(); ++c) {
      row.cells.emplace(table.header[c], std::move(raw.cells[c]));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace fabric
