// The font for text that must line up in columns: terminals, diffs, command lines. Chosen by
// what a terminal's grid needs, every character advancing the same width, measured: not by
// QFontDatabase::isFixedPitch(), which reads a flag that some monospace families do not set
// (Noto Sans Mono, the monospace font of most Debian and Ubuntu desktops, reads as proportional).
#pragma once

#include <QFont>
#include <QString>

namespace sbui {

// Whether `font`, as it resolves on this machine, advances narrow, wide and digit characters
// alike.
bool hasFixedAdvance(const QFont& font);
// An installed family with a fixed advance.
bool isMonospaceFamily(const QString& family);
// The system's monospace font, its family named as it resolves (so a font box can show it);
// when that has no fixed advance, the first installed family that has, at the system's size.
QFont monospaceFont();

} // namespace sbui
