#include "config.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv)
{
    CLI::App app{"sandbench-cli: run AI coding agents in a local sandbox"};
    app.set_version_flag("--version", SANDBENCH_VERSION);
    CLI11_PARSE(app, argc, argv);
    return 0;
}
