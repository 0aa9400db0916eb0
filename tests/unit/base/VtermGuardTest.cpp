// The guard between a program's bytes and libvterm: everything passes in order, except a REP
// that would make libvterm 0.1.4 repeat a glyph of width 0 for ever.
#include "base/VtermGuard.h"

#include "recording/ScreenModel.h"

#include <gtest/gtest.h>

namespace {

std::string passed(sb::VtermGuard& guard, std::initializer_list<std::string_view> chunks)
{
    std::string all, out;
    for (std::string_view chunk : chunks) {
        guard.pass(chunk, out);
        all += out;
    }
    return all;
}

} // namespace

TEST(VtermGuard, OrdinaryOutputPassesUnchangedEvenSplitAnywhere)
{
    const std::string text = "plain\r\n\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b[?25l\x1b[5;5H"
                             "\xe6\x97\xa5\xe6\x9c\xac \x1b(B\x1bP+q\x1b\\x\x1b[3b\x1b[?1049h";
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        sb::VtermGuard guard;
        EXPECT_EQ(passed(guard, {std::string_view(text).substr(0, cut),
                                 std::string_view(text).substr(cut)}),
                  text)
            << "cut at " << cut;
    }
}

TEST(VtermGuard, ARepeatOfNothingIsDroppedWhereverItIsSplit)
{
    sb::VtermGuard a;
    EXPECT_EQ(passed(a, {"\x1b[b", "x"}), "x");
    sb::VtermGuard b;
    EXPECT_EQ(passed(b, {"\x1b[", "building"}), "uilding"); // the fuzzer's: REP, then text
    sb::VtermGuard c; // a zero-width character printed on its own
    EXPECT_EQ(passed(c, {"a\r\n\xe2\x80\x8b\x1b[7b"}), "a\r\n\xe2\x80\x8b");
    sb::VtermGuard d; // after an ASCII glyph, REP stays
    EXPECT_EQ(passed(d, {"a\x1b[3", "b"}), "a\x1b[3b");
    sb::VtermGuard e; // an overlong sequence is dropped whole
    EXPECT_EQ(passed(e, {"a\x1b[" + std::string(10000, '1') + "m", "z"}), "az");
    sb::VtermGuard f; // a private CSI ending in b is no REP
    EXPECT_EQ(passed(f, {"\x1b[?1b"}), "\x1b[?1b");
    // A C0 control inside the escape does not end it (the CI fuzz run's: ESC DLE [ then b).
    sb::VtermGuard g;
    EXPECT_EQ(passed(g, {"\x1b\x10[", "building"}), "uilding");
    sb::VtermGuard h; // CAN cancels the escape ("[b" then print); ESC starts it again
    EXPECT_EQ(passed(h, {"\x1b\x18[b", "\x1b\x1b[b"}), "\x1b\x18[b\x1b\x1b[b");
    sb::VtermGuard i; // so a REP of nothing after a restarted escape is dropped
    EXPECT_EQ(passed(i, {"\x1b\x1b[b"}), "\x1b");
    // Bytes above 0x7f inside an escape are skipped by libvterm, which goes on to CSI and REP
    // (another fuzz run's: ESC, eight 0xff, SP, DLE, [ and then "build…").
    sb::VtermGuard j;
    EXPECT_EQ(passed(j, {"\x1b\xff\xff \x10[", "build"}), "uild");
    // DEL too (this stop's dry run: ESC, 0xff, SP, DLE, DEL, 0xff… and later "[", "build…").
    sb::VtermGuard k;
    EXPECT_EQ(passed(k, {"\x1b\x7f[", "build"}), "uild");
    sb::VtermGuard l;
    EXPECT_EQ(passed(l, {"\x1b\xff \x10\x7f\xda\xff[b"}), "");
}

TEST(VtermGuard, AScreenFedWhatHungLibvtermGoesOn)
{
    if (auto e = sb::ScreenModel::available()) GTEST_SKIP() << e->describe();
    sb::ScreenModel screen(24, 80);
    for (std::string_view chunk : {"\x1b\x10[b", "\x1b[b", "\x1b[0b", "\xcc\x81\x1b[b",
                                   "\r\n\xe2\x80\x8b\x1b[b", "\x1b[", "building", " x\x1b[2b"})
        screen.feed(chunk);
    EXPECT_EQ(screen.lines()[0], "\xcc\x81");
    // "\e[" + "building": the b ended a REP of nothing; the x repeated twice is kept.
    EXPECT_TRUE(screen.lines()[1].ends_with("uilding xxx")) << screen.lines()[1];
}
