// The plugin call a thread is in. When plugin code crashes (a signal) or ends the process
// (exit()) instead of returning, attnlab reads this to name the plugin and the call
// (lab/cli/crash_report.hpp); every call into a plugin marks itself (checked_plugins.hpp's
// guarded(), make_plugin(), load_plugin()).
#pragma once

namespace attn {

struct PluginCall {
  const char* who = nullptr;     // "scoring function 'x' (plugin /path/lib.so)"; nullptr outside plugin code
  const char* method = nullptr;  // "score", "its constructor", ...
};

// This thread's innermost plugin call (who == nullptr when it is in none). Safe in a signal
// handler once the thread has marked a call.
PluginCall current_plugin_call() noexcept;

// Marks this thread as inside `who`'s `method` for the marker's life; the strings must outlive it.
class InPluginCall {
 public:
  InPluginCall(const char* who, const char* method) noexcept;
  ~InPluginCall();
  InPluginCall(const InPluginCall&) = delete;
  InPluginCall& operator=(const InPluginCall&) = delete;

 private:
  PluginCall outer_;
};

}  // namespace attn
