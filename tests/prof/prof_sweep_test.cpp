// A verified tessel-prof sweep as a GPU test: runs `tessel-prof gemm --m M --n N --k K --csv
// OPTIONS...` for each shape and fails on any row that is not PASS (FAIL, ERROR) or on a
// non-zero exit. Without a CUDA device it exits 77, which ctest reports as Skipped.
//
//   prof_sweep_test TESSEL_PROF SHAPES [OPTIONS...]
//   prof_sweep_test ./tessel-prof 64x64x64,1000x1000x1000 --layout nt --beta 0.5
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

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The run's stdout and exit status.
struct Run {
  std::string output;
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
  if (argc < 3) {
    std::fprintf(stderr, "usage: prof_sweep_test TESSEL_PROF MxNxK[,MxNxK...] [OPTIONS...]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device on this machine\n");
    return kSkipped;
  }
  std::string options;
  for (int i = 3; i < argc; ++i) options += " " + shell_quoted(argv[i]);

  int failures = 0;
  for (const std::string& shape : split(argv[2], ',')) {
    const std::vector<std::string> mnk = split(shape, 'x');
    if (mnk.size() != 3) {
      std::fprintf(stderr, "expected a shape MxNxK, found '%s'\n", shape.c_str());
      return 2;
    }
    const std::string command = shell_quoted(argv[1]) + " gemm --m " + mnk[0] + " --n " + mnk[1] +
                                " --k " + mnk[2] + " --csv" + options;
    const Run r = run(command);
    const std::vector<std::string> lines = split(r.output, '\n');
    const std::string status = lines.size() >= 2 ? column(lines[0], lines[1], "status") : "";
    std::printf("%s\n%s", command.c_str(), r.output.c_str());
    if (status != "PASS" || r.status != 0) {
      std::printf("  -> FAILED: status '%s', exit %d\n", status.c_str(), r.status);
      ++failures;
    }
  }
  std::printf("%d shape(s) not PASS\n", failures);
  return failures == 0 ? 0 : 1;
}
