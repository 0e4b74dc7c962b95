// kiln: the command-line tool. `kiln --help` lists the commands.
//
// Exit status: 0 on success, 1 when a command fails (the reason, Kiln's message included, is one
// line on stderr starting "kiln: "), 2 for a mistake in the command line.
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.h"

namespace {

constexpr char kUsage[] = R"(usage: kiln <command> [arguments]

Commands:
  info MODEL    inputs and outputs, opsets, op histogram, parameter count, metadata
  run MODEL     run once on given or random inputs; summarise and write the outputs
  bench MODEL   time session creation, the first run and repeated runs; with --profile also
                the tables of 'profile', from a separate profiled pass
  profile MODEL where the time goes: Kiln's profiler over K runs, tables by op type and by
                node (ms, %, GFLOP/s of convolutions and products), and a Chrome trace
  print MODEL   print the model, or with --optimized the graph a session runs (kernels and
                fusions in '#' comments), in ONNX's textual syntax
  convert IN OUT
                convert between .onnx (protobuf) and ONNX's textual syntax, by OUT's name

'kiln <command> --help' describes a command's arguments. On a terminal, run, bench and
profile show a progress line on stderr for work that lasts; piped output is left as it is.
)";

// The message of an exception as one line: Kiln's messages may span lines.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

int Dispatch(const std::string& command, const std::vector<std::string>& args) {
  if (command == "info") return kiln::cli::InfoCommand(args);
  if (command == "run") return kiln::cli::RunCommand(args);
  if (command == "bench") return kiln::cli::BenchCommand(args);
  if (command == "print") return kiln::cli::PrintCommand(args);
  if (command == "convert") return kiln::cli::ConvertCommand(args);
  if (command == "profile") return kiln::cli::ProfileCommand(args);
  throw kiln::cli::UsageError("unknown command '" + command + "'");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& command = all[0];
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  const bool known = command == "info" || command == "run" || command == "bench" ||
                     command == "print" || command == "convert" || command == "profile";
  try {
    return Dispatch(command, std::vector<std::string>(all.begin() + 1, all.end()));
  } catch (const kiln::cli::UsageError& e) {
    std::cerr << "kiln: " << OneLine(e.what()) << " (see 'kiln "
              << (known ? command + " --help" : std::string("--help")) << "')\n";
    return 2;
  } catch (const kiln::Exception& e) {
    std::cerr << "kiln: " << OneLine(e.what()) << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "kiln: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "kiln: " << OneLine(e.what()) << "\n";
  } catch (...) {
    std::cerr << "kiln: unexpected error\n";
  }
  return 1;
}
