// sandbench: the workbench window.
//
//   sandbench                                  the window, reattached to running sessions
//   sandbench [--preset P | --policy F] [--workspace DIR] [--network M] -- COMMAND…
//                                              the window, starting COMMAND in a new session
//   sandbench --demo                           the window on the built-in demo session
//   sandbench --lang de                        in German (also $SANDBENCH_LANG; see Language.h)
#include "main/MainWindow.h"
#include "sessions/SessionLauncher.h"
#include "settings/Language.h"
#include "settings/Settings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QLocale>
#include <cstdio>
#include <sys/prctl.h>
#include <sys/resource.h>

namespace {

// The window holds what the agent printed and the user's answers: no core dumps, and no other
// process of the user may ptrace it or read its memory.
void hardenProcess()
{
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

} // namespace

int main(int argc, char* argv[])
{
    hardenProcess();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sandbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Sandbench"));
    QApplication::setOrganizationName(QStringLiteral("sandbench"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.sandbench.Sandbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/sandbench.svg")));

    // The language before the options: --help speaks it too.
    const sbui::LanguageChoice language = sbui::chooseLanguage(
        sbui::languageArgument(QApplication::arguments()), qEnvironmentVariable("SANDBENCH_LANG"),
        sbui::Settings::instance().values().language, QLocale::system().uiLanguages());
    if (!language.warning.isEmpty())
        std::fprintf(stderr, "sandbench: %s\n", qPrintable(language.warning));
    sbui::installTranslations(language.language);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Supervise AI coding agents in a local sandbox."));
    parser.addHelpOption();
    QCommandLineOption workspace(
        QStringLiteral("workspace"),
        QApplication::translate("main", "Project folder of the new session."),
        QStringLiteral("dir"), QDir::currentPath());
    QCommandLineOption preset(QStringLiteral("preset"),
                              QApplication::translate("main", "Policy preset of the new session."),
                              QStringLiteral("name"));
    QCommandLineOption policy(QStringLiteral("policy"),
                              QApplication::translate("main", "Policy file of the new session."),
                              QStringLiteral("file"));
    QCommandLineOption network(
        QStringLiteral("network"),
        QApplication::translate("main", "Network mode: none, filtered or host."),
        QStringLiteral("mode"));
    QCommandLineOption demo(QStringLiteral("demo"),
                            QApplication::translate("main", "Start the built-in demo session."));
    QCommandLineOption lang(
        QStringLiteral("lang"),
        QApplication::translate("main", "Language of the window: en or de. Overrides "
                                        "$SANDBENCH_LANG, the setting and the system's language."),
        QStringLiteral("code"));
    parser.addOptions({workspace, preset, policy, network, demo, lang});
    parser.addPositionalArgument(
        QStringLiteral("command"),
        QApplication::translate("main", "Command to start in a new session."),
        QStringLiteral("[-- command…]"));
    parser.process(app);

    sbui::MainWindow window;
    window.show();
    if (parser.isSet(demo)) {
        sbui::LaunchRequest request;
        request.demo = true;
        window.startSession(request);
    } else if (!parser.positionalArguments().isEmpty()) {
        sbui::LaunchRequest request;
        request.workspace = QDir(parser.value(workspace)).absolutePath();
        request.preset = parser.value(preset);
        request.policyFile = parser.value(policy);
        request.network = parser.value(network);
        request.command = parser.positionalArguments();
        window.startSession(request);
    }
    return QApplication::exec();
}
