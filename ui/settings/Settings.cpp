#include "Settings.h"

#include "Language.h"
#include "policy/Policy.h"
#include "recording/RecordingStore.h"
#include "terminal/MonospaceFont.h"

#include <QSettings>
#include <algorithm>

namespace sbui {
namespace {

// The QSettings keys; the retention limits are core's (recordings.json).
const QString kFontFamily = QStringLiteral("terminal/font_family");
const QString kFontSize = QStringLiteral("terminal/font_size");
const QString kScrollback = QStringLiteral("terminal/scrollback_lines");
const QString kPreset = QStringLiteral("new_session/preset");
const QString kApprovalTimeout = QStringLiteral("new_session/approval_timeout_seconds");
const QString kNotifications = QStringLiteral("notifications/desktop");
const QString kLanguage = QStringLiteral("ui/language");

bool isPreset(const QString& name)
{
    const auto names = sb::presetNames();
    return std::find(names.begin(), names.end(), name.toStdString()) != names.end();
}

// A whole number within [min, max], else `fallback`.
int readInt(const QSettings& s, const QString& key, int min, int max, int fallback)
{
    bool ok = false;
    const int value = s.value(key).toInt(&ok);
    return ok && value >= min && value <= max ? value : fallback;
}

} // namespace

QFont SettingsValues::terminalFont() const
{
    QFont font(fontFamily);
    font.setPointSize(fontSize);
    return font;
}

Settings::Settings()
{
    m_values = load(&m_problem);
}

Settings& Settings::instance()
{
    static Settings settings;
    return settings;
}

SettingsValues Settings::defaults()
{
    SettingsValues v;
    const QFont fixed = monospaceFont();
    v.fontFamily = fixed.family();
    if (fixed.pointSize() > 0) v.fontSize = fixed.pointSize();
    const sb::RetentionLimits retention;
    v.keepDays = static_cast<int>(retention.maxAgeDays);
    v.keepSizeMb = static_cast<int>(retention.maxSizeMb);
    return v;
}

SettingsValues Settings::load(QString* problem)
{
    const SettingsValues d = defaults();
    SettingsValues v = d;
    QSettings s;
    const QString family = s.value(kFontFamily).toString();
    v.fontFamily = isMonospaceFamily(family) ? family : d.fontFamily;
    v.fontSize = readInt(s, kFontSize, 4, 72, d.fontSize);
    v.scrollbackLines = readInt(s, kScrollback, 0, kMaxScrollback, d.scrollbackLines);
    const QString preset = s.value(kPreset).toString();
    v.defaultPreset = isPreset(preset) ? preset : d.defaultPreset;
    v.approvalTimeoutSeconds =
        readInt(s, kApprovalTimeout, 0, kMaxApprovalTimeout, d.approvalTimeoutSeconds);
    v.desktopNotifications = s.value(kNotifications, d.desktopNotifications).toBool();
    const QString language = s.value(kLanguage).toString();
    v.language = supportedLanguages().contains(language) ? language : d.language;

    if (auto retention = sb::loadRetentionLimits()) {
        v.keepDays = static_cast<int>(std::min<std::uint64_t>(retention->maxAgeDays, kMaxKeepDays));
        v.keepSizeMb =
            static_cast<int>(std::min<std::uint64_t>(retention->maxSizeMb, kMaxKeepSizeMb));
    } else if (problem) {
        *problem = QString::fromStdString(retention.error().describe());
    }
    return v;
}

bool Settings::save(const SettingsValues& v, QString* error)
{
    QSettings s;
    s.setValue(kFontFamily, v.fontFamily);
    s.setValue(kFontSize, v.fontSize);
    s.setValue(kScrollback, v.scrollbackLines);
    s.setValue(kPreset, v.defaultPreset);
    s.setValue(kApprovalTimeout, v.approvalTimeoutSeconds);
    s.setValue(kNotifications, v.desktopNotifications);
    s.setValue(kLanguage, v.language);
    s.sync();
    if (s.status() != QSettings::NoError) {
        if (error) *error = tr("Cannot write the settings file %1.").arg(s.fileName());
        return false;
    }
    sb::RetentionLimits retention;
    retention.maxAgeDays = static_cast<std::uint64_t>(std::max(0, v.keepDays));
    retention.maxSizeMb = static_cast<std::uint64_t>(std::max(0, v.keepSizeMb));
    if (auto e = sb::saveRetentionLimits(retention)) {
        if (error) *error = QString::fromStdString(e->describe());
        return false;
    }
    return true;
}

bool Settings::set(const SettingsValues& values, QString* error)
{
    if (!save(values, error)) return false;
    const bool wasProblem = !m_problem.isEmpty();
    m_problem.clear();
    if (values == m_values && !wasProblem) return true;
    m_values = values;
    Q_EMIT changed();
    return true;
}

void Settings::reload()
{
    QString problem;
    SettingsValues fresh = load(&problem);
    if (fresh == m_values && problem == m_problem) return;
    m_values = fresh;
    m_problem = problem;
    Q_EMIT changed();
}

} // namespace sbui
