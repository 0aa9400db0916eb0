// The red bar over the session's tabs while the shown session has attempted secret leaks: a
// secret's placeholder on its way to a host not allowed for it, refused by the proxy (issue 38).
// It cannot be missed whichever tab is open; its link opens the Models tab with the details.
#pragma once

#include "ModelUsageTotals.h"

#include <QFrame>

class QLabel;

namespace sbui {

class LeakBanner : public QFrame {
    Q_OBJECT

  public:
    explicit LeakBanner(QWidget* parent = nullptr);

    // Shown when there are any; hidden otherwise.
    void setLeaks(const std::vector<ModelUsageTotals::Leak>& leaks);
    QLabel* label() const { return m_label; }

  Q_SIGNALS:
    void detailsRequested();

  private:
    QLabel* m_label;
};

// "ANTHROPIC_API_KEY to gist.github.com:443 (in the body, by curl)".
QString leakText(const ModelUsageTotals::Leak& leak);

} // namespace sbui
