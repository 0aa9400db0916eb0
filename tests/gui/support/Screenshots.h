// Screenshots to look at, taken by the suites that change what the window shows. Off unless
// SANDBENCH_SHOTS names a folder; SANDBENCH_SHOTS_LANG=de takes them in German (run only the
// test functions that compare translated texts, or none: the rest compare English ones).
#pragma once

#include <QString>

class QWidget;

namespace sbgt {

// Installs SANDBENCH_SHOTS_LANG's translations (call from initTestCase); English otherwise.
void installShotLanguage();
// With SANDBENCH_SHOTS set: resizes `widget` to 1440x900 and to 1024x700 and saves it at each as
// DIR/NAME-LANG-WxH.png, then gives it back its size. Nothing otherwise.
void screenshot(QWidget& widget, const QString& name);
// The same at the widget's own size (a dialog): DIR/NAME-LANG.png.
void screenshotAsIs(QWidget& widget, const QString& name);

} // namespace sbgt
