// Settings…: the terminal's font and scrollback, what the New session dialog starts with,
// desktop notifications, how long recordings are kept (with what that would delete now) and the
// language. OK, Cancel, Apply and Restore defaults; font, scrollback and notifications take
// effect at once, the language at the next start.
#pragma once

#include "Settings.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QTimer>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace sbui {

class RecordingCleaner;
struct CleanupResult;

class SettingsDialog : public QDialog {
    Q_OBJECT
  public:
    explicit SettingsDialog(Settings& settings = Settings::instance(), QWidget* parent = nullptr);
    ~SettingsDialog() override;

    // What the widgets say.
    SettingsValues values() const;
    void setValues(const SettingsValues& values);
    // Stores the widgets' values (Apply); false, with the reason shown, when they cannot be.
    bool apply();
    // Restore defaults: the widgets show the defaults; nothing is stored until OK or Apply.
    void restoreDefaults();

    QComboBox* fontBox() const { return m_font; }
    QSpinBox* fontSizeBox() const { return m_fontSize; }
    QSpinBox* scrollbackBox() const { return m_scrollback; }
    QComboBox* presetBox() const { return m_preset; }
    QSpinBox* approvalTimeoutBox() const { return m_approvalTimeout; }
    QCheckBox* notificationsBox() const { return m_notifications; }
    QSpinBox* keepDaysBox() const { return m_keepDays; }
    QSpinBox* keepSizeBox() const { return m_keepSize; }
    QComboBox* languageBox() const { return m_language; }
    // Why the window's language is not the one chosen here, or empty.
    QString languageNote() const;
    // How much the recordings use, and what the retention limits would delete.
    QLabel* retentionUseLabel() const { return m_retentionUse; }
    QLabel* retentionLabel() const { return m_retentionInfo; }
    QPushButton* button(QDialogButtonBox::StandardButton which) const;

  private:
    void edited();
    void previewRetention();
    void showRetention(const CleanupResult& result);

    Settings& m_settings;
    QComboBox* m_font; // the monospace families, each shown in itself
    QSpinBox* m_fontSize;
    QSpinBox* m_scrollback;
    QComboBox* m_preset;
    QSpinBox* m_approvalTimeout;
    QCheckBox* m_notifications;
    QSpinBox* m_keepDays;
    QSpinBox* m_keepSize;
    QLabel* m_retentionUse;
    QLabel* m_retentionInfo;
    QComboBox* m_language;
    QLabel* m_languageNote = nullptr;
    QDialogButtonBox* m_buttons;
    RecordingCleaner* m_cleaner;
    QTimer m_previewDelay; // the preview follows typing, not every keystroke
};

} // namespace sbui
