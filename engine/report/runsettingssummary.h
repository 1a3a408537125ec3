#pragma once
// The settings that change what a run's numbers mean (precision and tolerances, TF32,
// torch.compile baseline mode, prompt template, samples per task, program version), as the
// header of every report shows them: CLI report and status, Markdown, HTML/PDF, CSV, JSON.

#include "db/records.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <vector>

namespace kb::report {

struct SettingsFact {
    QString key;   // snake_case, as CSV columns and JSON keys
    QString label; // for people
    QString value;
};

// From a run's stored settings JSON (runs.settings_json) and its mode; values absent from older
// runs read as the defaults the engine applies to them.
QList<SettingsFact> runSettingsFacts(const QJsonObject& settings,
                                     const QString& mode = QStringLiteral("one-shot"));
QList<SettingsFact> runSettingsFacts(const db::RunRow& run);
// The value of one fact by key; empty when there is none.
QString settingsFact(const QList<SettingsFact>& facts, const QString& key);

// "precision fp16 (atol 0.01, rtol 0.01); TF32 off; ..." on one line.
QString runSettingsLine(const db::RunRow& run);
// One line per run: "Run 3 (name): <runSettingsLine>".
QString runSettingsText(const std::vector<db::RunRow>& runs);
// A "Settings" Markdown paragraph: one bullet per run.
QString runSettingsMarkdown(const std::vector<db::RunRow>& runs);

} // namespace kb::report
