// A shared library that forgot ATTNLAB_PLUGIN(...): it exports no attnlab_plugin_entry.
extern "C" int some_function() { return 42; }
