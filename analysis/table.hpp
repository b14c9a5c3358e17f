// One Markdown table of the report (and of predict --links). The separator
// row is made from the headings and every row must have one cell per
// heading, so a table cannot come out with a column short or over, which
// renders as a broken table with nothing to say so. Header-only: the
// analysis library's source list is the top-level CMakeLists.txt's.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace commlab {

class MarkdownTable {
 public:
  explicit MarkdownTable(const std::vector<std::string>& headings) : columns_(headings.size()) {
    text_ = line(headings) + "|";
    for (size_t i = 0; i < columns_; ++i) text_ += "---|";
    text_ += "\n";
  }

  // One row, each cell as fmt's "{}" writes it (numbers that want a
  // precision come formatted already).
  template <class... Cells>
  void add_row(const Cells&... cells) {
    add_cells({fmt::format("{}", cells)...});
  }
  // One row of cells made elsewhere (tables whose columns depend on the data).
  void add_cells(const std::vector<std::string>& cells) {
    if (cells.size() != columns_)
      throw std::logic_error(
          fmt::format("MarkdownTable: {} headings but a row of {}", columns_, cells.size()));
    text_ += line(cells);
    ++rows_;
  }

  bool empty() const { return rows_ == 0; }
  // The heading line, the separator and the rows, each ending in a newline.
  const std::string& str() const { return text_; }

 private:
  // "| a | b |\n". A '|' inside a cell would end it early and shift every
  // column after it, so it is escaped as Markdown allows.
  static std::string line(const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const std::string& cell : cells) {
      s += ' ';
      for (char c : cell) {
        if (c == '|') s += '\\';
        s += c;
      }
      s += " |";
    }
    return s + "\n";
  }

  size_t columns_ = 0, rows_ = 0;
  std::string text_;
};

// "4 B", "16 KiB", "64 MiB": a size as the tables give it.
inline std::string human_bytes(uint64_t b) {
  if (b >= (1ull << 50) && b % (1ull << 50) == 0) return fmt::format("{} PiB", b >> 50);
  if (b >= (1ull << 40) && b % (1ull << 40) == 0) return fmt::format("{} TiB", b >> 40);
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10) && b % (1ull << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

}  // namespace commlab
