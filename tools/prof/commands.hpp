// The subcommands of tessel-prof; each file adds one to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace tessel::prof {

// Sets `status` (exit_codes.hpp) once the command has run.
void add_gemm_command(CLI::App& app, int& status);    // gemm_command.cpp
void add_conv2d_command(CLI::App& app, int& status);  // conv_command.cpp

}  // namespace tessel::prof
