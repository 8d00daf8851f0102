// tessel-prof: measures tessel's kernels against cuBLAS and cuDNN on the GPU, verifying every
// result. `tessel-prof --help` lists the commands; `tessel-prof gemm --help` explains the columns,
// the error measure and the tolerance.
#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "tessel-prof: time tessel's GEMM and conv2d against cuBLAS and cuDNN, verifying every "
      "result"};
  app.require_subcommand(1);
  int status = tessel::prof::kExitOk;
  tessel::prof::add_gemm_command(app, status);
  tessel::prof::add_conv2d_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError with exit code 0; every real parse error is a usage error.
    return app.exit(e) == 0 ? tessel::prof::kExitOk : tessel::prof::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "tessel-prof: " << e.what() << "\n";
    return tessel::prof::kExitFailed;
  }
  return status;
}
