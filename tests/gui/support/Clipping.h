// What a user would see cut off in a window, for the layout tests at 1024x700 and in German.
#pragma once

#include <QStringList>

class QWidget;

namespace sbgt {

// The texts cut off under `root`, one line each with where it is: labels and buttons narrower
// than their text, combo boxes too narrow for one of their items, header sections narrower than
// their titles, tabs outside their bar or elided, buttons hidden by what holds them (a splitter
// squeezed past them; a scroll area's content is left out: it scrolls), and toolbars whose
// actions went behind the » menu. Labels that may shrink on purpose (an Ignored width: they
// elide or carry a tooltip) and word-wrapped ones are left out.
QStringList clippedTexts(QWidget* root);

} // namespace sbgt
