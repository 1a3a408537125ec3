#include "transcripthtml.h"

#include "format.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::Transcript", text);
}

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

QString pre(const QString& text, int limit = 20000) {
    QString t = text.size() > limit
                    ? text.left(limit) + tr("\n… (%1 more characters)").arg(text.size() - limit)
                    : text;
    return QStringLiteral("<pre>%1</pre>").arg(t.toHtmlEscaped());
}

QString toolCallsHtml(const std::string& json) {
    const QJsonArray calls = QJsonDocument::fromJson(QByteArray::fromStdString(json)).array();
    if (calls.isEmpty())
        return {};
    QString html = tr("<h4>Tool calls (%1)</h4>").arg(calls.size());
    for (const auto& v : calls) {
        const QJsonObject c = v.toObject();
        QString head = QStringLiteral("<b>%1</b>")
                           .arg(c.value(QStringLiteral("name")).toString().toHtmlEscaped());
        if (c.contains(QStringLiteral("seconds")))
            head += tr(" · %1 s").arg(c.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1);
        if (c.value(QStringLiteral("is_error")).toBool())
            head += tr(" · <span style=\"color:#c62828\">error</span>");
        html += QStringLiteral("<p>%1</p>").arg(head);
        const QString arguments = c.value(QStringLiteral("arguments")).toString().trimmed();
        // build, verify, benchmark and profile take no arguments: no empty "{}" block for them
        if (!arguments.isEmpty() && arguments != QLatin1String("{}"))
            html += pre(arguments, 4000);
        if (!c.contains(QStringLiteral("result")))
            continue;
        const QString result = c.value(QStringLiteral("result")).toString();
        // The profiler's summary is a table in fixed columns: shown whole, under its own title.
        if (c.value(QStringLiteral("name")).toString() == QLatin1String("profile") &&
            !c.value(QStringLiteral("is_error")).toBool())
            html += tr("<p><i>Profile summary (Nsight Compute)</i></p>") + pre(result, 16000);
        else
            html += tr("<p><i>Result</i></p>") + pre(result, 8000);
    }
    return html;
}

} // namespace

QString transcriptHtml(const std::vector<db::TurnRow>& turns) {
    if (turns.empty())
        return tr("<p>No conversation was stored for this attempt.</p>");
    QString html;
    std::int64_t in = 0;
    std::int64_t out = 0;
    double cost = 0;
    bool costKnown = false;
    for (const auto& t : turns) {
        in += t.inputTokens;
        out += t.outputTokens;
        if (t.costUsd) {
            cost += *t.costUsd;
            costKnown = true;
        }
    }
    html += tr("<p><b>%1 turns</b> · %2 input / %3 output tokens%4</p>")
                .arg(turns.size())
                .arg(in)
                .arg(out)
                .arg(costKnown ? tr(" · $%1").arg(cost, 0, 'f', 4) : QString());
    for (const auto& t : turns) {
        QStringList facts;
        facts << tr("%1 in / %2 out tokens").arg(t.inputTokens).arg(t.outputTokens);
        if (t.cacheReadTokens > 0 || t.cacheWriteTokens > 0)
            facts
                << tr("cache %1 read / %2 written").arg(t.cacheReadTokens).arg(t.cacheWriteTokens);
        facts << formatMilliseconds(t.latencyMs);
        if (t.costUsd)
            facts << QStringLiteral("$%1").arg(*t.costUsd, 0, 'f', 4);
        if (!t.stopReason.empty())
            facts << tr("stop: %1").arg(esc(t.stopReason));
        html += tr("<h3>Turn %1 · %2</h3><p><i>%3</i></p>")
                    .arg(t.turnIndex)
                    .arg(esc(t.role), facts.join(QStringLiteral(" · ")));
        if (!t.error.empty())
            html += tr("<p style=\"color:#c62828\"><b>Error:</b> %1</p>").arg(esc(t.error));
        if (!t.prompt.empty())
            html += tr("<h4>Prompt</h4>") + pre(QString::fromStdString(t.prompt));
        if (!t.reasoning.empty())
            html += tr("<h4>Reasoning</h4>") + pre(QString::fromStdString(t.reasoning));
        if (!t.response.empty())
            html += tr("<h4>Response</h4>") + pre(QString::fromStdString(t.response));
        html += toolCallsHtml(t.toolCallsJson);
    }
    return html;
}

} // namespace kb::gui
