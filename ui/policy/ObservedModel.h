// What the shown session actually did, one row per distinct connection (host and port) or
// command (program and arguments): the latest decision, how often, and the rule that decided.
// Built from the window's activity model, so it holds the live session's events as they arrive
// and a recorded session's history alike. A row turns into a rule with ruleFor().
#pragma once

#include "activity/ActivityModel.h"
#include "policy/Approval.h"

#include <QAbstractTableModel>
#include <QIcon>
#include <QPointer>
#include <map>
#include <string>
#include <vector>

namespace sbui {

class ObservedModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum class Kind { Network, Command };
    enum Column { SubjectColumn, DecisionColumn, CountColumn, RuleColumn, ColumnCount };

    explicit ObservedModel(Kind kind, QObject* parent = nullptr);

    // Follows `activity` (nullptr: nothing); its rows so far are read at once.
    void setSource(ActivityModel* activity);
    Kind kind() const { return m_kind; }

    // The row as the request an approval would have been about (program and argv, or host and
    // port): what sb::ruleFromAnswer() makes a rule of.
    sb::ApprovalRequest request(int row) const;
    ActivityModel::Decision decision(int row) const;
    QString subject(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        sb::ApprovalRequest request;
        QString subject;
        ActivityModel::Decision decision = ActivityModel::Decision::None;
        bool asked = false;
        int count = 0;
        QString rule;
    };
    void rebuild();
    void take(int first, int last);
    QString decisionText(const Row& row) const;

    Kind m_kind;
    // Allowed, denied, asked: one parsed icon each, as the view sizes its columns by every row.
    QIcon m_allowIcon, m_denyIcon, m_askIcon;
    QPointer<ActivityModel> m_source;
    std::vector<Row> m_rows;
    std::map<std::string, int> m_index; // key → row
};

} // namespace sbui
