#include "attnlab/plugin_loader.hpp"
#include "attnlab/plugins/plugin_call.hpp"

#include "attnlab/file_kind.hpp"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include "attnlab/plugin.hpp"

namespace attn {
namespace {

// Why dlopen refused a file, in words (Boost.DLL only says "Bad file descriptor").
std::string why_not_loadable(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "permission denied (it cannot be read)";
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() < 4 || magic[0] != 0x7f || magic[1] != 'E' || magic[2] != 'L' || magic[3] != 'F')
    return "it is not a shared library (no ELF header)";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle) {
    dlclose(handle);
    return "it could not be loaded";
  }
  const char* err = dlerror();
  return std::string("the dynamic loader refused it: ") + (err ? err : "unknown reason");
}

// Why a 64-bit ELF file is cut short (its headers promise bytes past its end, which the loader
// would map and a first touch would end with SIGBUS), or "" when it is whole as far as they say.
std::string cut_short(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || header.e_ident[EI_CLASS] != ELFCLASS64) return "";
  std::error_code ec;
  const auto size = static_cast<std::uint64_t>(std::filesystem::file_size(path, ec));
  std::uint64_t needed = std::max<std::uint64_t>(header.e_phoff + std::uint64_t{header.e_phnum} * header.e_phentsize,
                                                 header.e_shoff + std::uint64_t{header.e_shnum} * header.e_shentsize);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (unsigned i = 0; i < header.e_phnum && needed <= size; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) break;
    if (segment.p_type == PT_LOAD) needed = std::max<std::uint64_t>(needed, segment.p_offset + segment.p_filesz);
  }
  if (ec || needed <= size) return "";
  return "the file is cut short: " + std::to_string(size) + " bytes, where its ELF headers describe " + std::to_string(needed) +
         " (copy or build it again)";
}

}  // namespace

bool compatible(const AbiTag& a, const AbiTag& b) {
  return a.tensor_alignment == b.tensor_alignment && a.gxx_abi == b.gxx_abi && a.cxx11_abi == b.cxx11_abi;
}

std::string abi_text(const AbiTag& tag) {
  const std::string tensors = tag.tensor_alignment
                                  ? "tensors aligned to " + std::to_string(tag.tensor_alignment) + " bytes (XSIMD " + tag.simd + ")"
                                  : std::string("tensors without XSIMD");
  return tensors + ", GCC C++ ABI " + std::to_string(tag.gxx_abi) + ", " +
         (tag.cxx11_abi ? "C++11" : "pre-C++11") + " std::string";
}

void load_plugin(const std::string& path_text, Registries& registries) {
  namespace fs = std::filesystem;
  const fs::path path(path_text);
  const std::string who = "plugin '" + path_text + "'";
  if (const std::string what = not_a_regular_file(path_text); !what.empty())  // "no such file", "this is a directory", ...
    throw PluginError(who + ": " + (what == "no such file" ? no_file_reason(path_text) : what) +
                      (what == "no such file" || what == "permission denied" ? "" : ", not a shared library"));

  // The same file named twice (in `plugins:` and by --plugin, or by two spellings of its path)
  // is loaded once: its names are not duplicates of themselves.
  bool loaded = false;
  registries.each([&](auto& r) {
    for (const auto& entry : r.entries()) {
      std::error_code ec;
      loaded = loaded || fs::equivalent(entry.second.origin, path, ec);
    }
  });
  if (loaded) return;

  if (const std::string why = cut_short(path); !why.empty()) throw PluginError(who + ": " + why);
  auto library = std::make_shared<boost::dll::shared_library>();
  std::error_code load_error;
  {
    const InPluginCall marker(who.c_str(), "loading (its static initialisers)");
    library->load(fs::absolute(path), load_error, boost::dll::load_mode::rtld_now);
  }
  if (load_error) throw PluginError(who + ": " + why_not_loadable(path));
  if (!library->has("attnlab_plugin_entry"))
    throw PluginError(who + ": not an attnlab plugin (it exports no attnlab_plugin_entry; "
                            "did you forget ATTNLAB_PLUGIN(...)?)");
  const auto entry = library->get<const PluginInfo*()>("attnlab_plugin_entry");
  const PluginInfo* info = entry();
  if (!info || info->api_version != ATTNLAB_PLUGIN_API_VERSION)
    throw PluginError(who + ": built against attnlab plugin API version " +
                      (info ? std::to_string(info->api_version) : std::string("?")) +
                      ", this attnlab has version " + std::to_string(ATTNLAB_PLUGIN_API_VERSION) +
                      "; rebuild the plugin against the installed headers");
  static const AbiTag ours = ATTNLAB_ABI_TAG;  // as libattnlab was compiled
  if (!compatible(info->abi, ours))
    throw PluginError(who + ": built for " + abi_text(info->abi) + ", but this attnlab has " + abi_text(ours) +
                      "; rebuild it with the flags of `pkg-config --cflags attnlab`");

  // Register into empty registries first, so a failure leaves `registries` untouched.
  Registries staged;
  staged.each([&](auto& r) { r.set_origin(path_text, library); });
  try {
    const InPluginCall marker(who.c_str(), "its registration (ATTNLAB_PLUGIN)");
    info->register_plugins(staged);
  } catch (const std::exception& e) {
    throw PluginError(who + ": failed while registering: " + e.what());
  } catch (...) {
    throw PluginError(who + ": failed while registering: it threw something that is not a std::exception");
  }
  try {
    registries.absorb(std::move(staged));
  } catch (const RegistryError& e) {
    throw PluginError(who + ": " + e.what());
  }
}

}  // namespace attn
