#include "output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace commlab {
namespace fs = std::filesystem;

namespace {
// /dev/stdout and /proc/self/fd/N name a file already open (perhaps the
// shell's redirection), not a place to put a new one.
bool names_open_file(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  return s.rfind("/dev/", 0) == 0 || s.rfind("/proc/", 0) == 0;
}
}  // namespace

WholeFile::WholeFile(const std::string& path, const std::string& flag) : path_(path), flag_(flag) {
  if (path.empty()) throw std::runtime_error(flag + ": give a file name");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // through any links, as open() would go
  if (fs::is_directory(st)) throw std::runtime_error(flag + " " + path + ": is a directory");
  // The file a symbolic link names, even one not there yet: renaming over
  // the link would replace it with a file.
  fs::path target = path;
  bool open_file = names_open_file(target);
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) throw std::runtime_error(flag + " " + path + ": too many symbolic links");
    const fs::path to = fs::read_symlink(target, ec);
    target = to.is_absolute() ? to : target.parent_path() / to;
    open_file |= names_open_file(target);
  }
  regular_ = !open_file && (!fs::exists(st) || fs::is_regular_file(st));
  if (!regular_) {  // a device, a FIFO, an open file: written through the name given
    if (::access(path.c_str(), W_OK) != 0)
      throw std::runtime_error(flag + " " + path + ": " + std::strerror(errno));
    return;
  }
  path_ = target.string();
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir) || ::access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error(flag + " " + path + ": cannot write in " + dir.string());
}

void WholeFile::write(const std::string& text) const {
  const fs::path target = path_;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const fs::path out = regular_ ? dir / ("." + target.filename().string() + ".tmp") : target;
  // Straight through, appended: a redirected stdout keeps what came before.
  std::ofstream f(out, std::ios::binary | (regular_ ? std::ios::trunc : std::ios::app));
  f << text;
  f.close();
  if (!f) {
    if (regular_) fs::remove(out);
    throw std::runtime_error(flag_ + " " + path_ + ": write failed");
  }
  if (regular_) fs::rename(out, target);
}

}  // namespace commlab
