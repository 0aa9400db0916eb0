#include "Language.h"

#include <QCoreApplication>
#include <QFile>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>
#include <memory>

namespace sbui {
namespace {

const QString kEnglish = QStringLiteral("en");

QString ourTranslationFile(const QString& language)
{
    return QStringLiteral(":/i18n/sandbench_%1.qm").arg(language);
}

struct Installed {
    std::unique_ptr<QTranslator> ours, qt;
    QString language;
};

Installed& installed()
{
    static Installed translators;
    return translators;
}

void uninstall(std::unique_ptr<QTranslator>& translator)
{
    if (!translator) return;
    QCoreApplication::removeTranslator(translator.get());
    translator.reset();
}

} // namespace

QStringList supportedLanguages()
{
    return {kEnglish, QStringLiteral("de")};
}

QString languageName(const QString& code)
{
    if (code == QLatin1String("de")) return QStringLiteral("Deutsch");
    if (code == kEnglish) return QStringLiteral("English");
    return code;
}

QString normalizeLanguage(const QString& code)
{
    QString language = code.trimmed();
    // Drop the territory, the encoding and the modifier: de_DE.UTF-8@euro, de-AT.
    for (QChar stop : {QLatin1Char('_'), QLatin1Char('-'), QLatin1Char('.'), QLatin1Char('@')})
        language = language.section(stop, 0, 0);
    language = language.toLower();
    if (language == QLatin1String("c") || language == QLatin1String("posix")) return kEnglish;
    return language;
}

LanguageChoice chooseLanguage(const QString& option, const QString& environment,
                              const QString& setting, const QStringList& systemLanguages)
{
    const std::pair<QString, QString> explicitChoices[] = {
        {option, QStringLiteral("--lang")},
        {environment, QStringLiteral("SANDBENCH_LANG")},
        {setting, QStringLiteral("settings")},
    };
    for (const auto& [requested, source] : explicitChoices) {
        if (requested.trimmed().isEmpty()) continue;
        const QString language = normalizeLanguage(requested);
        if (supportedLanguages().contains(language)) return {language, source, {}};
        return {kEnglish, source,
                QCoreApplication::translate("sbui", "no translation for language '%1' (%2); "
                                                    "available: %3")
                    .arg(requested, source, supportedLanguages().join(QStringLiteral(", ")))};
    }
    // The system's languages in the user's order (LANGUAGE may list several): the first we
    // speak wins, and English listed before German means English.
    for (const QString& entry : systemLanguages) {
        const QString language = normalizeLanguage(entry);
        if (supportedLanguages().contains(language))
            return {language, QStringLiteral("system"), {}};
    }
    return {kEnglish, QStringLiteral("system"), {}};
}

QString languageArgument(const QStringList& arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString& arg = arguments.at(i);
        if (arg == QLatin1String("--")) break;
        if (arg == QLatin1String("--lang") && i + 1 < arguments.size()) return arguments.at(i + 1);
        if (arg.startsWith(QLatin1String("--lang="))) return arg.mid(7);
    }
    return {};
}

bool installTranslations(const QString& language)
{
    Installed& t = installed();
    uninstall(t.ours);
    uninstall(t.qt);
    // Numbers and dates as the language writes them ("10.000 Zeilen"), unless the system's own
    // locale already speaks it (then its territory's ways win: de_AT, en_GB).
    const QLocale system = QLocale::system();
    QLocale::setDefault(system.language() == QLocale(language).language() ? system
                                                                          : QLocale(language));
    // English is the sources' own language: its file holds only the plural forms ("1 change").
    auto qt = std::make_unique<QTranslator>();
    if (language != kEnglish && qt->load(QStringLiteral("qtbase_") + language,
                                         QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        t.qt = std::move(qt);
    }
    auto ours = std::make_unique<QTranslator>();
    if (!ours->load(ourTranslationFile(language))) return false;
    QCoreApplication::installTranslator(ours.get());
    t.ours = std::move(ours);
    t.language = language;
    return true;
}

QString installedLanguage()
{
    return installed().language;
}

bool qtTranslationInstalled()
{
    return installed().qt != nullptr;
}

} // namespace sbui
