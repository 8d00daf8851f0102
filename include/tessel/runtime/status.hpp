// Status: what every runtime entry point returns. A code for programs, a message for people:
// it names the argument, the value found and what was expected, e.g.
//   Status{StatusCode::kInvalidArgument, "lda = 7 is smaller than K = 64 (A is row-major M x K)"}
#pragma once

#include <string>
#include <utility>

namespace tessel {

// The numeric values are the C API's (tessel.h, tessel_status_t); keep them in step.
enum class StatusCode : int {
  kSuccess = 0,
  kInvalidArgument = 1,  // a null pointer, a negative size, a leading dimension too small, ...
  kNotSupported = 2,     // a valid request this library does not implement (f32 inputs, a
                         // matrix of 2^31 elements or more)
  kMisaligned = 3,       // a pointer that is not a multiple of its element size
  kNoDevice = 4,         // no CUDA device, or one older than sm_80
  kCudaError = 5,        // the CUDA runtime reported an error (launch, attribute, ...)
  kInternal = 6,         // a bug in tessel: please report it with the message
};

// The code's name, e.g. "invalid argument".
const char* status_code_name(StatusCode code);

class Status {
 public:
  Status() = default;  // success
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status success() { return {}; }

  bool ok() const { return code_ == StatusCode::kSuccess; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  std::string message_;
};

}  // namespace tessel
