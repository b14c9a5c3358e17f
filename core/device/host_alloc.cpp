#include "host_alloc.hpp"

#include <unistd.h>

#include <cstdlib>
#include <new>

namespace commlab {

size_t page_size_B() {
  static const size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? size_t(p) : size_t(4096);
  }();
  return page;
}

void* host_alloc(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, page_size_B(), bytes ? bytes : 1) != 0) throw std::bad_alloc();
  return p;
}

void host_free(void* p) { std::free(p); }

}  // namespace commlab
