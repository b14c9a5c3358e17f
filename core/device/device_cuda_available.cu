// Whether this machine has a GPU this build can use (device.hpp): asked
// before select(), it needs none of device_cuda.cu's stream and kernels,
// and keeps no state of its own.
#include <cuda_runtime.h>

#include <string>

#include "device.hpp"

namespace commlab::gpu {

std::string unavailable_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
    return std::string(
               "-d cuda: no usable GPU: no NVIDIA driver, or one older than this "
               "build's CUDA (") +
           cudaGetErrorString(e) + ")";
  if (e != cudaSuccess)
    return std::string("-d cuda: no usable GPU (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "-d cuda: no GPU on this machine";
  return "";
}

}  // namespace commlab::gpu
