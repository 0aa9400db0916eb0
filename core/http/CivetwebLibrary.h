// civetweb, opened when `sandbench-cli serve` starts its server (base/LazyLibrary.h): every other
// start of the program (the supervisor of each session, exec, …) never maps it.
#pragma once

#include "base/Error.h"

#include <civetweb.h>

namespace sb::http {

// The civetweb functions HttpServer.cpp calls.
#define SB_CIVETWEB_FUNCTIONS(X)                                                                   \
    X(mg_init_library)                                                                             \
    X(mg_start)                                                                                    \
    X(mg_stop)                                                                                     \
    X(mg_set_request_handler)                                                                      \
    X(mg_get_server_ports)                                                                         \
    X(mg_get_context)                                                                              \
    X(mg_get_user_data)                                                                            \
    X(mg_get_request_info)                                                                         \
    X(mg_read)                                                                                     \
    X(mg_write)                                                                                    \
    X(mg_send_chunk)                                                                               \
    X(mg_handle_form_request)                                                                      \
    X(mg_response_header_start)                                                                    \
    X(mg_response_header_add)                                                                      \
    X(mg_response_header_send)

struct CivetwebLibrary {
#define SB_CIVETWEB_POINTER(name) decltype(&::name) name = nullptr;
    SB_CIVETWEB_FUNCTIONS(SB_CIVETWEB_POINTER)
#undef SB_CIVETWEB_POINTER
};

// Opens libcivetweb (once, thread-safe) and returns its functions, or why it could not.
Result<const CivetwebLibrary*> loadCivetweb();

} // namespace sb::http
