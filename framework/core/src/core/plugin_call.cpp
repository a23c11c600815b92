#include "attnlab/plugins/plugin_call.hpp"

namespace attn {
namespace {
thread_local PluginCall innermost;
}  // namespace

PluginCall current_plugin_call() noexcept { return innermost; }

InPluginCall::InPluginCall(const char* who, const char* method) noexcept : outer_(innermost) { innermost = {who, method}; }

InPluginCall::~InPluginCall() { innermost = outer_; }

}  // namespace attn
