#include "WelcomeView.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

namespace sbui {
namespace {

constexpr int kContentWidth = 760;
constexpr int kAppIconSize = 80;
constexpr int kStatusIconSize = 20;

// What each of the core's checks protects, in the user's words; an unknown check keeps its name.
QString checkTitle(const std::string& name)
{
    if (name == "namespaces") return WelcomeView::tr("Isolation (namespaces)");
    if (name == "overlayfs") return WelcomeView::tr("Reviewable workspace (overlayfs)");
    if (name == "seccomp") return WelcomeView::tr("System call filter (seccomp)");
    if (name == "seccomp-notify") return WelcomeView::tr("Command approval (seccomp notification)");
    if (name == "landlock") return WelcomeView::tr("Write confinement (Landlock)");
    if (name == "cgroups") return WelcomeView::tr("Resource limits (cgroups)");
    return QString::fromStdString(name);
}

QLabel* wrappedLabel(const QString& text)
{
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

QLabel* iconLabel(const QString& resource, int size)
{
    auto* label = new QLabel;
    label->setPixmap(QIcon(resource).pixmap(size, size));
    label->setFixedSize(size, size);
    return label;
}

void scaleFont(QWidget* widget, double factor, bool bold)
{
    QFont font = widget->font();
    font.setPointSizeF(font.pointSizeF() * factor);
    font.setBold(bold);
    widget->setFont(font);
}

} // namespace

WelcomeView::WelcomeView(QWidget* parent) : WelcomeView(&sb::runDoctor, parent) {}

WelcomeView::WelcomeView(DoctorFunction doctor, QWidget* parent)
    : QWidget(parent), m_doctor(std::move(doctor)),
      m_demo(new QPushButton(QIcon(QStringLiteral(":/icons/demo.svg")), tr("Try the &demo"))),
      m_newSession(
          new QPushButton(QIcon(QStringLiteral(":/icons/new-session.svg")), tr("&New session…"))),
      m_summary(wrappedLabel({})), m_rows(new QVBoxLayout)
{
    setObjectName(QStringLiteral("WelcomeView"));

    auto* title = new QLabel(tr("Welcome to Sandbench"));
    scaleFont(title, 1.8, true);
    auto* tagline = wrappedLabel(tr("Supervise AI coding agents in a local sandbox."));
    scaleFont(tagline, 1.15, false);
    auto* heading = new QVBoxLayout;
    heading->addWidget(title);
    heading->addWidget(tagline);
    auto* header = new QHBoxLayout;
    header->setSpacing(18);
    header->addWidget(iconLabel(QStringLiteral(":/icons/sandbench.svg"), kAppIconSize));
    header->addLayout(heading, 1);
    header->setAlignment(heading, Qt::AlignVCenter);

    auto* intro = wrappedLabel(
        tr("An agent started here works on your project inside a sandbox: it sees a copy of the "
           "folder, an empty home and no credentials. What it writes waits for your review. "
           "Commands and connections your policy leaves open are put to you while it waits, and "
           "every session is recorded for replay."));

    m_demo->setDefault(true);
    m_demo->setToolTip(tr("Start the built-in demo: a scripted agent in a sandbox over a copy of "
                          "a small project"));
    m_newSession->setToolTip(tr("Choose a project folder, a policy and the agent to run"));
    connect(m_demo, &QPushButton::clicked, this, &WelcomeView::demoRequested);
    connect(m_newSession, &QPushButton::clicked, this, &WelcomeView::newSessionRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_demo);
    buttons->addWidget(m_newSession);
    buttons->addStretch();
    auto* demoNote = wrappedLabel(
        tr("In the demo a scripted agent fixes a bug, runs the tests, reaches one allowed and one "
           "denied server, and tries a dangerous command: you answer it in the approval panel, "
           "then review its changes."));
    demoNote->setForegroundRole(QPalette::PlaceholderText);

    auto* machine = new QLabel(tr("This machine"));
    scaleFont(machine, 1.25, true);
    auto* again = new QPushButton(tr("Check &again"));
    again->setToolTip(tr("Run the checks again, e.g. after applying a fix"));
    connect(again, &QPushButton::clicked, this, &WelcomeView::refresh);
    auto* machineHeader = new QHBoxLayout;
    machineHeader->addWidget(machine);
    machineHeader->addStretch();
    machineHeader->addWidget(again);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_rows->setSpacing(6);

    auto* content = new QWidget;
    content->setMaximumWidth(kContentWidth);
    auto* column = new QVBoxLayout(content);
    column->setContentsMargins(24, 32, 24, 24);
    column->setSpacing(12);
    column->addLayout(header);
    column->addSpacing(4);
    column->addWidget(intro);
    column->addSpacing(4);
    column->addLayout(buttons);
    column->addWidget(demoNote);
    column->addSpacing(16);
    column->addLayout(machineHeader);
    column->addWidget(m_summary);
    column->addLayout(m_rows);
    column->addStretch(1); // spare height goes below, not between the parts

    // Centred at a readable width; scrolls when the window is small.
    auto* page = new QWidget;
    auto* centre = new QHBoxLayout(page);
    centre->addStretch();
    centre->addWidget(content, 100);
    centre->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(page);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    refresh();
}

bool WelcomeView::sandboxUsable() const
{
    return std::all_of(m_checks.begin(), m_checks.end(),
                       [](const sb::DoctorCheck& c) { return c.ok || !c.required; });
}

void WelcomeView::refresh()
{
    m_checks = m_doctor ? m_doctor() : std::vector<sb::DoctorCheck>{};
    while (QLayoutItem* item = m_rows->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const auto& check : m_checks)
        m_rows->addWidget(makeCheckRow(check));

    const bool limited = std::any_of(m_checks.begin(), m_checks.end(),
                                     [](const sb::DoctorCheck& c) { return !c.ok; });
    if (!sandboxUsable())
        m_summary->setText(tr("Sandboxes cannot run here until the missing items below are "
                              "fixed: Sandbench refuses to start a weaker sandbox."));
    else if (limited)
        m_summary->setText(tr("Sandboxes can run on this machine, with the limits below."));
    else
        m_summary->setText(tr("Sandboxes can run on this machine, with every protection."));
}

QWidget* WelcomeView::makeCheckRow(const sb::DoctorCheck& check)
{
    auto* row = new QFrame;
    row->setObjectName(QStringLiteral("doctor-") + QString::fromStdString(check.name));
    row->setFrameShape(check.ok ? QFrame::NoFrame : QFrame::StyledPanel);

    QString icon = QStringLiteral(":/icons/allow.svg");
    QString state = tr("ok");
    if (!check.ok && check.required) {
        icon = QStringLiteral(":/icons/deny.svg");
        state = tr("missing");
    } else if (!check.ok) {
        icon = QStringLiteral(":/icons/limit.svg");
        state = tr("limited");
    }
    auto* status = iconLabel(icon, kStatusIconSize);
    status->setToolTip(state);
    status->setAccessibleName(state);

    auto* name = new QLabel(checkTitle(check.name));
    name->setObjectName(QStringLiteral("title"));
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    auto* detail = wrappedLabel(QString::fromStdString(check.detail));
    detail->setObjectName(QStringLiteral("detail"));

    auto* text = new QVBoxLayout;
    text->setSpacing(2);
    text->addWidget(name);
    text->addWidget(detail);
    if (!check.ok && !check.fix.empty()) {
        auto* fix = wrappedLabel(tr("Fix: %1").arg(QString::fromStdString(check.fix)));
        fix->setObjectName(QStringLiteral("fix"));
        fix->setTextInteractionFlags(Qt::TextSelectableByMouse); // commands to copy
        text->addWidget(fix);
    }
    auto* layout = new QHBoxLayout(row);
    const int inset = check.ok ? 1 : 0; // a passing row has no frame: align it with those that do
    layout->setContentsMargins(8 + inset, 6 + inset, 8 + inset, 6 + inset);
    layout->setSpacing(10);
    layout->addWidget(status, 0, Qt::AlignTop);
    layout->addLayout(text, 1);
    return row;
}

} // namespace sbui
