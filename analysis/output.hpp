// A file the analysis programs write whole (report.md, model.csv, predict's
// --csv). The path is checked when the file is named, before anything is
// printed, so a bad one fails with one line and nothing half done.
#pragma once
#include <string>

namespace commlab {

class WholeFile {
 public:
  // flag names the file in errors ("--csv"). Refused: an empty name, a
  // directory, a parent that is not a writable directory.
  WholeFile(const std::string& path, const std::string& flag);
  // A regular file (or a new one) is written beside itself and renamed into
  // place, so it is never seen half-written; a symbolic link keeps pointing
  // at it. Anything else (/dev/stdout, a FIFO) is written straight through.
  void write(const std::string& text) const;

 private:
  std::string path_, flag_;
  bool regular_ = true;
};

}  // namespace commlab
