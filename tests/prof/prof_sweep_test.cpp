// A verified tessel-prof sweep as a GPU test: runs `tessel-prof COMMAND --csv COMMON PROBLEM`
// for each PROBLEM (one argument holding that problem's options) and fails on any row that is
// not PASS (FAIL, ERROR) or on a non-zero exit. Without a CUDA device it exits 77, which ctest
// reports as Skipped.
//
//   prof_sweep_test TESSEL_PROF COMMAND "COMMON OPTIONS" "PROBLEM 1" ["PROBLEM 2" ...]
//   prof_sweep_test ./tessel-prof gemm "--layout nt" "--m 64 --n 64 --k 64"
//   prof_sweep_test ./tessel-prof conv2d "--repeats 1" "--n 2 --h 9 --w 9 --c 16 --k 32 --r 3"
#include <cuda_runtime_api.h>
#include <sys/wait.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSkipped = 77;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

struct Run {
  std::string output;  // stdout
  int status = -1;
};

Run run(const std::string& command) {
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    r.output.append(buffer, n);
  }
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The value of column `name` in a CSV row (tessel-prof quotes only the message, the last).
std::string column(const std::string& header, const std::string& row, const std::string& name) {
  const std::vector<std::string> names = split(header, ','), values = split(row, ',');
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (names[i] == name) return values[i];
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: prof_sweep_test TESSEL_PROF COMMAND \"COMMON OPTIONS\" \"PROBLEM\"...\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device on this machine\n");
    return kSkipped;
  }
  int failures = 0;
  for (int i = 4; i < argc; ++i) {
    // The options are plain words (numbers and names): no quoting needed.
    const std::string command =
        std::string("'") + argv[1] + "' " + argv[2] + " --csv " + argv[3] + " " + argv[i];
    const Run r = run(command);
    const std::vector<std::string> lines = split(r.output, '\n');
    const std::string status = lines.size() >= 2 ? column(lines[0], lines[1], "status") : "";
    std::printf("%s\n%s", command.c_str(), r.output.c_str());
    if (status != "PASS" || r.status != 0) {
      std::printf("  -> FAILED: status '%s', exit %d\n", status.c_str(), r.status);
      ++failures;
    }
  }
  std::printf("%d problem(s) not PASS\n", failures);
  return failures == 0 ? 0 : 1;
}
