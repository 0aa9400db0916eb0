#include "SettingsDialog.h"

#include "Language.h"
#include "RecordingCleaner.h"
#include "main/Prompt.h"
#include "policy/Policy.h"
#include "terminal/MonospaceFont.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace sbui {
namespace {

QSpinBox* spinBox(int min, int max, const QString& suffix, const QString& zeroText = {})
{
    auto* box = new QSpinBox;
    box->setRange(min, max);
    box->setSuffix(suffix);
    if (!zeroText.isEmpty()) box->setSpecialValueText(zeroText);
    return box;
}

// A line of explanation under a field: one line, not word-wrapped (wrapped labels leave a form
// too little height and squeeze its fields).
QLabel* note(const QString& text)
{
    auto* label = new QLabel(text);
    label->setTextFormat(Qt::PlainText);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

QFormLayout* group(QVBoxLayout* layout, const QString& title)
{
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    layout->addWidget(box);
    return form;
}

// A form row whose field is a layout: the label still gets its buddy, for its & shortcut.
void addRow(QFormLayout* form, const QString& text, QWidget* buddy, QLayout* field)
{
    auto* label = new QLabel(text);
    label->setBuddy(buddy);
    form->addRow(label, field);
}

} // namespace

SettingsDialog::SettingsDialog(Settings& settings, QWidget* parent)
    : QDialog(parent), m_settings(settings), m_cleaner(new RecordingCleaner(this))
{
    setWindowTitle(tr("Settings"));
    auto* layout = new QVBoxLayout(this);

    QFormLayout* terminal = group(layout, tr("Terminal"));
    // Measured (isMonospaceFamily), not QFontComboBox's fixed-pitch flag, which leaves out
    // monospace families that do not set it (Noto Sans Mono).
    m_font = new QComboBox;
    for (const QString& family : QFontDatabase::families())
        if (!QFontDatabase::isPrivateFamily(family) && isMonospaceFamily(family)) {
            m_font->addItem(family);
            m_font->setItemData(m_font->count() - 1, QFont(family), Qt::FontRole);
        }
    m_fontSize = spinBox(4, 72, tr(" pt"));
    auto* fontRow = new QHBoxLayout;
    fontRow->addWidget(m_font, 1);
    fontRow->addWidget(m_fontSize);
    addRow(terminal, tr("&Font:"), m_font, fontRow);
    m_scrollback = spinBox(0, Settings::kMaxScrollback, tr(" lines"), tr("none"));
    m_scrollback->setSingleStep(1000);
    m_scrollback->setGroupSeparatorShown(true);
    terminal->addRow(tr("&Scrollback:"), m_scrollback);

    QFormLayout* sessions = group(layout, tr("New sessions"));
    m_preset = new QComboBox;
    for (const auto& name : sb::presetNames())
        m_preset->addItem(QString::fromStdString(name), QString::fromStdString(name));
    sessions->addRow(tr("Default &policy preset:"), m_preset);
    m_approvalTimeout =
        spinBox(0, Settings::kMaxApprovalTimeout, tr(" s"), tr("as the policy says"));
    m_approvalTimeout->setToolTip(tr("How long a request waits for your answer before the "
                                     "policy's timeout action applies."));
    sessions->addRow(tr("&Approval timeout:"), m_approvalTimeout);

    QFormLayout* notifications = group(layout, tr("Notifications"));
    m_notifications = new QCheckBox(tr("&Desktop notification when an approval waits"));
    m_notifications->setToolTip(tr("Only while the window is not active. The window title "
                                   "counts waiting approvals either way."));
    notifications->addRow(m_notifications);

    QFormLayout* recordings = group(layout, tr("Recordings"));
    m_keepDays = spinBox(0, Settings::kMaxKeepDays, tr(" days"), tr("no limit"));
    recordings->addRow(tr("&Keep for:"), m_keepDays);
    m_keepSize = spinBox(0, Settings::kMaxKeepSizeMb, tr(" MB"), tr("no limit"));
    m_keepSize->setGroupSeparatorShown(true);
    recordings->addRow(tr("&Up to a total of:"), m_keepSize);
    m_retentionUse = new QLabel;
    recordings->addRow(tr("In use:"), m_retentionUse);
    m_retentionInfo = new QLabel;
    recordings->addRow(tr("Deleted when applied:"), m_retentionInfo);

    QFormLayout* language = group(layout, tr("Language"));
    m_language = new QComboBox;
    const LanguageChoice system = chooseLanguage({}, {}, {}, QLocale::system().uiLanguages());
    m_language->addItem(tr("System (%1)").arg(languageName(system.language)), QString());
    for (const QString& code : supportedLanguages())
        m_language->addItem(languageName(code), code);
    language->addRow(tr("&Language:"), m_language);
    language->addRow(QString(), note(tr("Takes effect at the next start.")));
    // The window may speak another language than the setting gives (--lang, SANDBENCH_LANG):
    // "System (English)" beside a German window says why.
    const QString setting = m_settings.values().language;
    const QString running = installedLanguage();
    m_languageNote = note(QString());
    if (!running.isEmpty() && running != (setting.isEmpty() ? system.language : setting))
        m_languageNote->setText(tr("The window speaks %1 now: --lang or SANDBENCH_LANG chose it "
                                   "for this start.")
                                    .arg(languageName(running)));
    m_languageNote->setVisible(!m_languageNote->text().isEmpty());
    language->addRow(QString(), m_languageNote);

    layout->addStretch();
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel |
                                     QDialogButtonBox::Apply | QDialogButtonBox::RestoreDefaults);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (apply()) accept();
    });
    // A word of its own: in German Qt's "Übernehmen" is also what writes a session's changes
    // into the project (the Changes tab).
    button(QDialogButtonBox::Apply)->setText(tr("&Apply", "store the settings"));
    connect(button(QDialogButtonBox::Apply), &QPushButton::clicked, this, &SettingsDialog::apply);
    connect(button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            &SettingsDialog::restoreDefaults);

    setValues(m_settings.values());

    connect(m_font, &QComboBox::currentTextChanged, this, &SettingsDialog::edited);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &SettingsDialog::edited);
    connect(m_language, &QComboBox::currentIndexChanged, this, &SettingsDialog::edited);
    connect(m_notifications, &QCheckBox::toggled, this, &SettingsDialog::edited);
    for (QSpinBox* box : {m_fontSize, m_scrollback, m_approvalTimeout, m_keepDays, m_keepSize})
        connect(box, &QSpinBox::valueChanged, this, &SettingsDialog::edited);
    for (QSpinBox* box : {m_keepDays, m_keepSize})
        connect(box, &QSpinBox::valueChanged, this, [this] { m_previewDelay.start(); });
    connect(&m_settings, &Settings::changed, this, &SettingsDialog::edited);

    m_previewDelay.setSingleShot(true);
    m_previewDelay.setInterval(250);
    connect(&m_previewDelay, &QTimer::timeout, this, &SettingsDialog::previewRetention);
    connect(m_cleaner, &RecordingCleaner::finished, this, &SettingsDialog::showRetention);
    previewRetention();
}

SettingsDialog::~SettingsDialog() = default;

QPushButton* SettingsDialog::button(QDialogButtonBox::StandardButton which) const
{
    return m_buttons->button(which);
}

SettingsValues SettingsDialog::values() const
{
    SettingsValues v;
    v.fontFamily = m_font->currentText();
    v.fontSize = m_fontSize->value();
    v.scrollbackLines = m_scrollback->value();
    v.defaultPreset = m_preset->currentData().toString();
    v.approvalTimeoutSeconds = m_approvalTimeout->value();
    v.desktopNotifications = m_notifications->isChecked();
    v.keepDays = m_keepDays->value();
    v.keepSizeMb = m_keepSize->value();
    v.language = m_language->currentData().toString();
    return v;
}

void SettingsDialog::setValues(const SettingsValues& v)
{
    // The family exactly as stored: one the list leaves out (not measured as monospace, or not
    // installed here) is added, not replaced by the list's first entry.
    if (m_font->findText(v.fontFamily, Qt::MatchFixedString) < 0) m_font->addItem(v.fontFamily);
    m_font->setCurrentIndex(m_font->findText(v.fontFamily, Qt::MatchFixedString));
    m_fontSize->setValue(v.fontSize);
    m_scrollback->setValue(v.scrollbackLines);
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(v.defaultPreset)));
    m_approvalTimeout->setValue(v.approvalTimeoutSeconds);
    m_notifications->setChecked(v.desktopNotifications);
    m_keepDays->setValue(v.keepDays);
    m_keepSize->setValue(v.keepSizeMb);
    m_language->setCurrentIndex(std::max(0, m_language->findData(v.language)));
    edited();
}

void SettingsDialog::restoreDefaults()
{
    setValues(Settings::defaults());
}

bool SettingsDialog::apply()
{
    QString error;
    if (!m_settings.set(values(), &error)) {
        prompt::error(this, tr("The settings were not saved"), error);
        return false;
    }
    edited();
    return true;
}

void SettingsDialog::edited()
{
    button(QDialogButtonBox::Apply)->setEnabled(values() != m_settings.values());
}

void SettingsDialog::previewRetention()
{
    m_cleaner->clean(m_keepDays->value(), m_keepSize->value(), true);
}

void SettingsDialog::showRetention(const CleanupResult& result)
{
    if (!result.error.isEmpty()) {
        m_retentionUse->setText(tr("unreadable"));
        m_retentionUse->setToolTip(result.error);
        m_retentionInfo->clear();
        return;
    }
    m_retentionUse->setToolTip(QString());
    // As `sandbench-cli gc` says it: the recordings' stored bytes, and the file on disk.
    m_retentionUse->setText(
        tr("%1 in recordings, %2 on disk")
            .arg(RecordingCleaner::formatBytes(result.freedBytes + result.keptBytes),
                 RecordingCleaner::formatBytes(result.fileBytes)));
    const auto count = static_cast<int>(result.removed.size());
    m_retentionInfo->setText(count == 0
                                 ? tr("nothing")
                                 : tr("%n recording(s), %1, oldest first", nullptr, count)
                                       .arg(RecordingCleaner::formatBytes(result.freedBytes)));
}

QString SettingsDialog::languageNote() const
{
    return m_languageNote->isHidden() ? QString() : m_languageNote->text();
}

} // namespace sbui
