// The programs' rows, column by column (columns.def): the one list of names
// and kinds that the writer (results.cpp) fills and the report
// (analysis/rows.cpp) reads by name. Header-only, without MPI, for the report.
#pragma once
#include <cstddef>
#include <iterator>

namespace commlab {

// A cell's kind: the JSON type of its value (an empty cell is JSON's null).
enum class Kind { text, integer, real };

// Whether every version of the programs wrote a column (a file without it is
// not a results file), or it came later (a file without it reads as empty).
enum class Age { every, later };

// One value per column of columns.def, in its order: Col::t_avg_us.
enum class Col : size_t {
#define COMMLAB_COLUMN(name, kind, age) name,
#include "columns.def"
#undef COMMLAB_COLUMN
};

struct ColumnSpec {
  const char* name;
  Kind kind;
  Age age;
};

inline constexpr ColumnSpec kColumns[] = {
#define COMMLAB_COLUMN(name, kind, age) {#name, Kind::kind, Age::age},
#include "columns.def"
#undef COMMLAB_COLUMN
};
inline constexpr size_t kColumnCount = std::size(kColumns);

constexpr const ColumnSpec& spec(Col c) { return kColumns[size_t(c)]; }

}  // namespace commlab
