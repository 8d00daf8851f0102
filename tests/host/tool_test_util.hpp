// Running the built tessel-layout binary from tests, and golden files under tests/host/data.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace tessel::test {

struct ToolRun {
  int status = -1;
  std::string output;  // stdout, and stderr too unless it was discarded
};

// Runs `tessel-layout ARGS` through the shell (so ARGS may quote and redirect).
inline ToolRun run_tool(const std::string& args, bool keep_stderr = true) {
  ToolRun run;
  const std::string command =
      std::string(TESSEL_LAYOUT_BIN) + " " + args + (keep_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.output.append(buffer, n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

// Each `tessel-layout ARGS` fails (a nonzero status) with a message containing its needle.
template <std::size_t N>
void expect_failures(const std::pair<const char*, const char*> (&cases)[N]) {
  for (auto [args, needle] : cases) {
    const ToolRun run = run_tool(args);
    EXPECT_NE(run.status, 0) << args;
    EXPECT_NE(run.output.find(needle), std::string::npos) << args << "\n" << run.output;
  }
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Compares with tests/host/data/NAME; TESSEL_UPDATE_GOLDEN=1 rewrites the file instead.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(TESSEL_TEST_DATA) + "/" + name;
  if (std::getenv("TESSEL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << "missing golden file " << path << " (run with TESSEL_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(actual, read_file(path)) << "differs from " << path;
}

}  // namespace tessel::test
