// `network.rules` as an editable, ordered table: action, host pattern, ports, comment. Values
// are kept as typed, so a wrong one stays visible with the core's message until it is fixed. A
// rule's `program` and `command` are kept and shown beside its host, not edited here.
#pragma once

#include "RuleRowsModel.h"
#include "policy/Policy.h"

namespace sbui {

struct NetworkRuleRow {
    sb::RuleAction action = sb::RuleAction::Allow;
    QString host;
    QString ports; // "443, 8443"; empty for any port
    QString comment;
    QString program, command; // whom the rule is for; empty: every process
};

class NetworkRulesModel : public RuleRowsModel<NetworkRulesModel, NetworkRuleRow, sb::NetworkRule> {
    Q_OBJECT
  public:
    enum Column { ActionColumn, HostColumn, PortsColumn, CommentColumn, ColumnCount };

    explicit NetworkRulesModel(QObject* parent = nullptr);

    // What RuleRowsModel asks of a table.
    static Row toRow(const sb::NetworkRule& rule);
    static sb::NetworkRule toRule(const Row& row);
    static nlohmann::json entry(const Row& row);
    static Problem check(const Row& row);
    QVariant cellData(const Row& row, int column, int role) const;
    static bool setCell(Row& row, int column, const QVariant& value);

    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace sbui
