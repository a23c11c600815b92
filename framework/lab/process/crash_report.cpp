#include "lab/process/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <tbb/task_scheduler_observer.h>

#include "attnlab/plugins/plugin_call.hpp"

namespace attn {
namespace {

// Filled before any crash: a handler must not allocate.
char command_name[64] = "";
char note[1024] = "";

// A message assembled in a fixed buffer, written with one write(2).
struct Line {
  char text[2048] = "";
  std::size_t size = 0;
  Line& operator<<(const char* s) {
    for (; s && *s && size + 1 < sizeof text; ++s) text[size++] = *s;
    return *this;
  }
  void write_out() const {
    [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, text, size);
  }
};

const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "segmentation fault";
    case SIGBUS: return "bus error";
    case SIGFPE: return "arithmetic exception";
    case SIGILL: return "illegal instruction";
    case SIGABRT: return "abort";
    default: return "a signal";
  }
}

void on_crash_signal(int signal) { report_crash(signal); }

// exit() called in plugin code (an atexit handler: it runs on the thread that called exit()).
void on_exit_in_plugin() {
  const PluginCall call = current_plugin_call();
  if (!call.who) return;  // attnlab's own exit
  Line line;
  line << "attnlab " << command_name << ": " << call.who << " ended the process (exit()) in " << call.method
       << (std::strchr(call.method, ' ') ? "" : "()") << ": a plugin must return or throw, never exit; attnlab stops here." << note << "\n";
  line.write_out();
  _exit(1);
}

// An alternate signal stack for the calling thread, so that a stack overflow can be reported.
void give_thread_a_signal_stack() {
  static thread_local char stack[64 * 1024];
  stack_t s{};
  s.ss_sp = stack;
  s.ss_size = sizeof stack;
  sigaltstack(&s, nullptr);
}

// Every TBB worker thread gets its signal stack as it starts working.
struct SignalStacks final : tbb::task_scheduler_observer {
  SignalStacks() { observe(true); }
  void on_scheduler_entry(bool) override { give_thread_a_signal_stack(); }
};

void copy_to(char* buffer, std::size_t size, const std::string& text) {
  std::strncpy(buffer, text.c_str(), size - 1);
  buffer[size - 1] = '\0';
}

}  // namespace

bool in_plugin_code() noexcept { return current_plugin_call().who != nullptr; }

void report_crash(int signal) noexcept {
  const PluginCall call = current_plugin_call();
  Line line;
  line << "attnlab " << command_name << ": ";
  if (call.who)
    line << call.who << " crashed (" << signal_name(signal) << ") in " << call.method << (std::strchr(call.method, ' ') ? "" : "()")
         << ": a bug in that code, not in your spec.";
  else
    line << "attnlab crashed (" << signal_name(signal) << "): this is a bug in attnlab, not a problem of your spec or data; "
         << "please report it with the command.";
  (line << note << "\n").write_out();
  _exit(1);
}

void set_crash_note(const std::string& text) { copy_to(note, sizeof note, text.empty() ? "" : " " + text); }

void report_crashes(const std::string& command) {
  copy_to(command_name, sizeof command_name, command);
  give_thread_a_signal_stack();
  static SignalStacks worker_stacks;
  struct sigaction action {};
  action.sa_handler = on_crash_signal;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(signal, &action, nullptr);
  std::atexit(on_exit_in_plugin);
}

}  // namespace attn
