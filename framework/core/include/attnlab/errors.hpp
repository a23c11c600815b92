// attnlab's errors: one hierarchy rooted in std::exception, so one `catch (const attn::Error&)`
// takes every problem attnlab reports, and a caller picks the kinds it treats differently.
//
//   Error                  anything attnlab reports as a one-line message
//   ├── SpecError          something the user wrote (spec key, plugin option, --set, command
//   │                      line value) is wrong; carries where ("file:line:col") separately
//   ├── RegistryError      a plugin name is unknown or registered twice
//   ├── PluginError        a plugin library could not be loaded
//   ├── PluginFault        a loaded plugin misbehaved (threw, wrong shape, NaN): its runs fail
//   ├── MemoryLimitError   a model would keep more memory than its run may use (its parameters
//   │                      and tables, checked before each is allocated); carries the shape
//   ├── FileError          a results or checkpoint file cannot be read or written (lab)
//   └── UsageError         a command line is wrong (lab's command-line program)
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// what() is "where: message" (just the message when the place is unknown); where() and
// message() give the two parts, so nobody has to cut one out of the other.
class SpecError : public Error {
 public:
  SpecError(const std::string& where, const std::string& message)
      : Error(where.empty() ? message : where + ": " + message), where_(where), message_(message) {}
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  std::string where_, message_;
};

// API 1's name, kept for API 13 only (docs/plugin-api-changes.md).
class [[deprecated("OptionError is SpecError since plugin API 2")]] OptionError : public SpecError {
 public:
  using SpecError::SpecError;
};

class RegistryError : public Error {
 public:
  using Error::Error;
};

class PluginError : public Error {
 public:
  using Error::Error;
};

// The message names the plugin and its library. The runs using it fail; the others go on.
class PluginFault : public Error {
 public:
  using Error::Error;
};

// `what` (a parameter's path, or a table's) of `shape` would take the kept memory to `bytes`,
// over the run's limit. The lab names the spec key responsible (the option whose value is one
// of the shape's sizes).
class MemoryLimitError : public Error {
 public:
  MemoryLimitError(const std::string& message, std::vector<std::size_t> shape)
      : Error(message), shape_(std::move(shape)) {}
  const std::vector<std::size_t>& shape() const { return shape_; }

 private:
  std::vector<std::size_t> shape_;
};

class FileError : public Error {
 public:
  using Error::Error;
};

class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace attn
