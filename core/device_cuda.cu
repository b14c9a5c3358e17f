// Built when CUDA is: asks the driver whether a GPU is there.
#include <cuda_runtime.h>

#include "device.hpp"

namespace commlab {

std::string cuda_unavailable_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return std::string("-d cuda: no usable GPU (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "-d cuda: no GPU on this machine";
  return "-d cuda: GPU buffers are not in this version of commlab yet; use -d host";
}

}  // namespace commlab
