// The language of the window. The system's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as
// QLocale::system().uiLanguages() reads them) unless the setting names one; `--lang CODE` and
// $SANDBENCH_LANG override both. Our translation is compiled into the program as a resource
// (:/i18n/sandbench_de.qm, from qt_add_translations), so a build tree and the installed package
// find it alike; Qt's own (standard buttons, --help of Qt's options) comes from Qt's translations
// folder (Debian: qt6-translations-l10n) and is optional.
#pragma once

#include <QString>
#include <QStringList>

namespace sbui {

// "en" (the source language) and the languages we have a translation for.
QStringList supportedLanguages();
// A language's own name ("English", "Deutsch").
QString languageName(const QString& code);
// "de", "de_DE", "de-AT", "de_DE.UTF-8@euro" → "de"; "C" and "POSIX" → "en"; lower case.
QString normalizeLanguage(const QString& code);

struct LanguageChoice {
    QString language; // one of supportedLanguages()
    QString source;   // "--lang", "SANDBENCH_LANG", "settings" or "system"
    QString warning;  // an explicit request we cannot follow, or empty
};

// --lang, else $SANDBENCH_LANG, else the setting, else the first of the system's languages that
// is English or translated; English when none is. An explicit language we have no translation
// for gives English with a warning.
LanguageChoice chooseLanguage(const QString& option, const QString& environment,
                              const QString& setting, const QStringList& systemLanguages);
// The value of `--lang CODE` or `--lang=CODE` among the program's arguments (not after "--").
QString languageArgument(const QStringList& arguments);

// Installs our translation and Qt's for `language` on the application, replacing any installed
// before; for "en", the source texts with their plural forms ("1 change", "2 changes"). False
// when our translation for it is missing.
bool installTranslations(const QString& language);
// The language installTranslations() installed last: the window's; empty before any.
QString installedLanguage();
// Whether Qt's own translation for the installed language was found (false for English).
bool qtTranslationInstalled();

} // namespace sbui
