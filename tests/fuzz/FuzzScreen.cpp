// The terminal screen (recording/ScreenModel.h over libvterm, behind base/VtermGuard.h): what
// every sandboxed program's output goes through, in the supervisor's keyframes, replay, `show`
// and, through the same guard, the window's terminal. libvterm 0.1.4 hangs or crashes on some
// of it; this target drives it directly, resizes between the output included, as a terminal
// that a user resizes does. Checked beyond "no crash, no hang": the screen has the rows it was
// given, and a snapshot restored on a fresh screen is one too. (Not checked: that the restored
// screen reads the same. It may differ in blanks at the ends of lines, and in more on a very
// narrow screen with wide glyphs at a pending wrap: a gap of replay's keyframes, left.)
//
// Input: the first two bytes are the screen's rows and columns (columns from 1, which the model
// raises to its floor); then the output, in which 0xfd ends a chunk and 0xfe ROWS COLS resizes.
#include "FuzzCheck.h"
#include "recording/ScreenModel.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

using sbfuzz::check;

unsigned side(std::uint8_t byte, unsigned span)
{
    return 1 + byte % span;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 2 || sb::ScreenModel::available()) return 0;
    sb::ScreenModel screen(side(data[0], 60), side(data[1], 200));
    std::string chunk;
    for (std::size_t i = 2; i < size; ++i) {
        const std::uint8_t byte = data[i];
        if (byte != 0xfd && byte != 0xfe) {
            chunk += static_cast<char>(byte);
            continue;
        }
        screen.feed(chunk);
        chunk.clear();
        if (byte == 0xfe && i + 2 < size) {
            screen.resize(side(data[i + 1], 60), side(data[i + 2], 200));
            i += 2;
        }
    }
    screen.feed(chunk);
    check(screen.lines().size() == screen.rows(), "the screen has the rows it was given");
    sb::ScreenModel restored(screen.rows(), screen.cols());
    restored.restore(screen.snapshot(), screen.rows(), screen.cols());
    check(restored.lines().size() == screen.rows(), "a restored screen has its rows too");
    return 0;
}
