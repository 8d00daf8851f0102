// tessel-layout: a calculator for the layout algebra, pictures of layouts, a shared-memory
// bank-conflict checker, and the convolution iterators run on a worked example.
// `tessel-layout --help` lists the commands.
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tessel-layout: evaluate, draw and check CuTe-style layouts"};
  app.require_subcommand(1);
  int status = 0;
  tessel::tool::add_eval_command(app, status);
  tessel::tool::add_show_command(app, status);
  tessel::tool::add_banks_command(app, status);
  tessel::tool::add_conv_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "tessel-layout: " << e.what() << "\n";
    return 1;
  }
  return status;
}
