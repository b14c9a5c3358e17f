// Built when CUDA is not: -d cuda is refused with the reason.
#include "device.hpp"

namespace commlab {

std::string cuda_unavailable_reason() {
  return "-d cuda: this build has no CUDA (nvcc was not found or -DCOMMLAB_CUDA=OFF)";
}

}  // namespace commlab
