// The subcommands of tessel-layout; each file adds one to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace tessel::tool {

// Each returns the exit status through `status` once the command has run.
void add_eval_command(CLI::App& app, int& status);   // eval_command.cpp
void add_show_command(CLI::App& app, int& status);   // show_command.cpp
void add_banks_command(CLI::App& app, int& status);  // banks_command.cpp
void add_conv_command(CLI::App& app, int& status);   // conv_command.cpp

}  // namespace tessel::tool
