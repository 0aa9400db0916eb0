// libvterm, opened when the first screen model is made (LazyLibrary.h): a `run` whose command
// prints nothing never needs it. The window links it anyway, for its terminal pane.
#pragma once

#include "base/Error.h"

#include <vterm.h>

namespace sb {

// The libvterm functions the core calls, all in ScreenModel*.cpp.
#define SB_VTERM_FUNCTIONS(X)                                                                      \
    X(vterm_color_is_equal)                                                                        \
    X(vterm_free)                                                                                  \
    X(vterm_input_write)                                                                           \
    X(vterm_new)                                                                                   \
    X(vterm_obtain_screen)                                                                         \
    X(vterm_obtain_state)                                                                          \
    X(vterm_screen_enable_altscreen)                                                               \
    X(vterm_screen_flush_damage)                                                                   \
    X(vterm_screen_get_cell)                                                                       \
    X(vterm_screen_is_eol)                                                                         \
    X(vterm_screen_reset)                                                                          \
    X(vterm_screen_set_callbacks)                                                                  \
    X(vterm_screen_set_damage_merge)                                                               \
    X(vterm_set_size)                                                                              \
    X(vterm_set_utf8)                                                                              \
    X(vterm_state_get_cursorpos)                                                                   \
    X(vterm_state_get_default_colors)                                                              \
    X(vterm_state_get_penattr)

struct VtermLibrary {
#define SB_VTERM_POINTER(name) decltype(&::name) name = nullptr;
    SB_VTERM_FUNCTIONS(SB_VTERM_POINTER)
#undef SB_VTERM_POINTER
};

// Opens libvterm (once, thread-safe) and returns its functions, or why it could not.
Result<const VtermLibrary*> loadVterm();

} // namespace sb
