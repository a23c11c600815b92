// What attnlab says when it crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or when plugin
// code ends the process with exit(), instead of dying without a word: one line on stderr, then
// exit code 1 (docs/running-experiments.md, "Exit codes"). A crash inside plugin code names the
// plugin and the call (attnlab/plugins/plugin_call.hpp); any other crash is attnlab's bug, said
// with its signal. The handlers run on an alternate stack on every thread, so a plugin that
// overflows its stack is reported too. What a results file held before stays: runs are written
// whole under a temporary name (results_format.hpp), so a crash never leaves half of one.
#pragma once

#include <string>

namespace attn {

// Installs the handlers for `command` (its name stays in the messages).
void report_crashes(const std::string& command);

// A sentence after the crash message ("" for none): what was kept, what the user can do next.
void set_crash_note(const std::string& note);

// True while this thread runs plugin code.
bool in_plugin_code() noexcept;

// Writes the crash message for `signal` and ends the process with exit code 1. Only
// async-signal-safe calls: usable in any signal handler.
[[noreturn]] void report_crash(int signal) noexcept;

}  // namespace attn
