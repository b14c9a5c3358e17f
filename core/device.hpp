// Which buffers this build and this machine can use.
#pragma once
#include <string>

namespace commlab {

// Why -d cuda cannot run here, or "" when it can.
std::string cuda_unavailable_reason();

}  // namespace commlab
