#include "leaderboardformat.h"

#include "textformat.h"

#include <QStringList>
#include <algorithm>
#include <optional>
#include <vector>

namespace kb::report {

namespace {

using kb::metrics::Leaderboard;
using kb::metrics::LeaderboardCell;

const QString kNotAvailable = QStringLiteral("n/a");

QString rate(std::optional<double> value) {
    if (!value) {
        return kNotAvailable;
    }
    return QString::number(*value * 100.0, 'f', 1) + QLatin1Char('%');
}

QString speedup(std::optional<double> value) {
    if (!value) {
        return kNotAvailable;
    }
    return formatSpeedupValue(*value);
}

// "1.23x [1.10, 1.38]": the geomean with its bootstrap interval, when there is one.
QString speedupCi(std::optional<double> value, const std::optional<kb::metrics::Interval>& ci) {
    if (!value) {
        return kNotAvailable;
    }
    return ci ? formatSpeedupInterval(*value, ci->low, ci->high) : formatSpeedupValue(*value);
}

QString passAtK(const LeaderboardCell& cell, int k) {
    const auto* value = cell.passAtKAt(k);
    return value ? rate(value->value) : kNotAvailable;
}

QString cost(const LeaderboardCell& cell) {
    return QStringLiteral("$") + QString::number(cell.costUsd, 'f', cell.costUsd < 1.0 ? 4 : 2);
}

std::optional<double> fastEager(const LeaderboardCell& cell, double p) {
    const auto* value = cell.fastPAt(p);
    return value ? std::optional<double>(value->vsEager) : std::nullopt;
}

std::optional<double> fastCompile(const LeaderboardCell& cell, double p) {
    const auto* value = cell.fastPAt(p);
    return value ? value->vsCompile : std::nullopt;
}

QString levelName(int level) {
    return QStringLiteral("L") + QString::number(level);
}

// "L1 100, L2 100, L3 50" over the levels that enter the overall.
QString weightList(const Leaderboard& board) {
    QStringList parts;
    for (int level : board.levels) {
        const double weight = board.levelWeights.at(level);
        if (weight > 0) {
            parts << levelName(level) + QLatin1Char(' ') + QString::number(weight);
        }
    }
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", "));
}

// Pads cells to column widths; column 0 left-aligned, the rest right-aligned.
QString alignedTable(const std::vector<QStringList>& rows) {
    std::vector<qsizetype> widths;
    for (const QStringList& row : rows) {
        widths.resize(std::max(widths.size(), static_cast<std::size_t>(row.size())), 0);
        for (qsizetype i = 0; i < row.size(); ++i) {
            widths[static_cast<std::size_t>(i)] =
                std::max(widths[static_cast<std::size_t>(i)], row[i].size());
        }
    }
    QString out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        QStringList padded;
        for (qsizetype i = 0; i < rows[r].size(); ++i) {
            const auto width = widths[static_cast<std::size_t>(i)];
            padded << (i == 0 ? rows[r][i].leftJustified(width) : rows[r][i].rightJustified(width));
        }
        out += padded.join(QStringLiteral("  ")) + QLatin1Char('\n');
        if (r == 0) {
            qsizetype total = 0;
            for (auto width : widths) {
                total += width;
            }
            total += 2 * (static_cast<qsizetype>(widths.size()) - 1);
            out += QString(total, QLatin1Char('-')) + QLatin1Char('\n');
        }
    }
    return out;
}

QStringList textHeader(const Leaderboard& board) {
    QStringList header{QStringLiteral("model"), QStringLiteral("tasks"), QStringLiteral("correct"),
                       QStringLiteral("pass rate")};
    for (int k : board.passAtKs) {
        header << QStringLiteral("pass@") + QString::number(k);
    }
    header << QStringLiteral("fast_1 eager") << QStringLiteral("fast_1.05 eager")
           << QStringLiteral("fast_1 compile") << QStringLiteral("geomean vs eager [95% CI]")
           << QStringLiteral("geomean w/ fallback") << QStringLiteral("geomean vs compile [95% CI]")
           << QStringLiteral("noisy") << QStringLiteral("suspicious") << QStringLiteral("rejected")
           << QStringLiteral("tokens in/out") << QStringLiteral("cost");
    return header;
}

QStringList textRow(const Leaderboard& board, const LeaderboardCell& cell, bool hasWeight) {
    QStringList row{QString::fromStdString(cell.model), QString::number(cell.tasks),
                    QString::number(cell.correct), hasWeight ? rate(cell.passRate) : kNotAvailable};
    for (int k : board.passAtKs) {
        row << (hasWeight ? passAtK(cell, k) : kNotAvailable);
    }
    row << rate(fastEager(cell, 1.0)) << rate(fastEager(cell, 1.05)) << rate(fastCompile(cell, 1.0))
        << speedupCi(cell.geomeanEager, cell.geomeanEagerCi) << speedup(cell.geomeanFallbackEager)
        << speedupCi(cell.geomeanCompile, cell.geomeanCompileCi) << QString::number(cell.noisy)
        << QString::number(cell.suspicious) << QString::number(cell.rejected)
        << QString::number(cell.inputTokens) + QLatin1Char('/') + QString::number(cell.outputTokens)
        << cost(cell);
    return row;
}

QString markdownEscape(const QString& text) {
    QString escaped = text;
    escaped.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    return escaped;
}

void appendGroup(QStringList& row, const Leaderboard& board, const LeaderboardCell* cell,
                 bool hasWeight) {
    if (!cell || !hasWeight) {
        for (qsizetype i = 0; i < 5 + static_cast<qsizetype>(board.passAtKs.size()); ++i) {
            row << kNotAvailable;
        }
        return;
    }
    row << rate(cell->passRate);
    for (int k : board.passAtKs) {
        row << passAtK(*cell, k);
    }
    row << rate(fastEager(*cell, 1.0)) << rate(fastCompile(*cell, 1.0))
        << speedupCi(cell->geomeanEager, cell->geomeanEagerCi)
        << speedupCi(cell->geomeanCompile, cell->geomeanCompileCi);
}

} // namespace

QString formatLeaderboardText(const Leaderboard& board) {
    if (board.models.empty()) {
        return QStringLiteral("No results.\n");
    }
    QString out;
    for (int level : board.levels) {
        const int tasks = board.tasksPerLevel.at(level);
        out += QStringLiteral("Level ") + QString::number(level) + QStringLiteral(" (") +
               QString::number(tasks) +
               (tasks == 1 ? QStringLiteral(" task") : QStringLiteral(" tasks")) +
               QStringLiteral(", weight ") + QString::number(board.levelWeights.at(level)) +
               QStringLiteral(")\n");
        std::vector<QStringList> rows{textHeader(board)};
        for (const std::string& model : board.models) {
            if (const auto* cell = board.find(model, level)) {
                rows.push_back(textRow(board, *cell, true));
            }
        }
        out += alignedTable(rows) + QLatin1Char('\n');
    }
    out += QStringLiteral("Overall (weighted: ") + weightList(board) + QStringLiteral(")\n");
    std::vector<QStringList> rows{textHeader(board)};
    bool anyWeight = false;
    for (const auto& [level, weight] : board.levelWeights) {
        anyWeight = anyWeight || weight > 0;
    }
    for (const LeaderboardCell& cell : board.overall) {
        rows.push_back(textRow(board, cell, anyWeight));
    }
    out += alignedTable(rows);
    out +=
        QStringLiteral("\nfast_p counts a speedup only when the lower bound of its 95% interval "
                       "is above p (the speedup itself when it has no interval). Geomean "
                       "intervals: percentile bootstrap over tasks (overall: within each level), "
                       "2000 resamples, fixed seed. pass@k: unbiased estimator over the samples "
                       "of each task.\n");
    return out;
}

QString formatLeaderboardMarkdown(const Leaderboard& board) {
    if (board.models.empty()) {
        return QStringLiteral("No results.\n");
    }
    QStringList groupColumns{QStringLiteral("Pass")};
    for (int k : board.passAtKs) {
        groupColumns << QStringLiteral("pass@") + QString::number(k);
    }
    groupColumns << QStringLiteral("Faster than eager") << QStringLiteral("Faster than compile")
                 << QStringLiteral("Geomean vs eager") << QStringLiteral("Geomean vs compile");
    QStringList header{QStringLiteral("Model")};
    QStringList groups;
    for (int level : board.levels) {
        groups << levelName(level);
    }
    groups << QStringLiteral("Overall");
    for (const QString& group : groups) {
        for (const QString& column : groupColumns) {
            header << group + QLatin1Char(' ') + column;
        }
    }
    bool anyWeight = false;
    for (const auto& [level, weight] : board.levelWeights) {
        anyWeight = anyWeight || weight > 0;
    }
    std::vector<QStringList> rows{header};
    for (const std::string& model : board.models) {
        QStringList row{markdownEscape(QString::fromStdString(model))};
        for (int level : board.levels) {
            appendGroup(row, board, board.find(model, level), true);
        }
        appendGroup(row, board, board.find(model, kb::metrics::kOverallLevel), anyWeight);
        rows.push_back(row);
    }

    std::vector<qsizetype> widths(static_cast<std::size_t>(header.size()), 3);
    for (const QStringList& row : rows) {
        for (qsizetype i = 0; i < row.size(); ++i) {
            auto& width = widths[static_cast<std::size_t>(i)];
            width = std::max(width, row[i].size());
        }
    }
    auto line = [&widths](const QStringList& row) -> QString {
        QStringList cells;
        for (qsizetype i = 0; i < row.size(); ++i) {
            const auto width = widths[static_cast<std::size_t>(i)];
            cells << (i == 0 ? row[i].leftJustified(width) : row[i].rightJustified(width));
        }
        return QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    };
    QString out = line(rows.front());
    QStringList rule;
    for (std::size_t i = 0; i < widths.size(); ++i) {
        const auto dashes = widths[i] - 1;
        const QString dashLine(dashes, QLatin1Char('-'));
        rule << (i == 0 ? QString(QLatin1Char(':') + dashLine)
                        : QString(dashLine + QLatin1Char(':')));
    }
    out += QStringLiteral("| ") + rule.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    for (std::size_t r = 1; r < rows.size(); ++r) {
        out += line(rows[r]);
    }

    QStringList sizes;
    for (int level : board.levels) {
        sizes << levelName(level) + QLatin1Char(' ') +
                     QString::number(board.tasksPerLevel.at(level));
    }
    out += QStringLiteral("\nPass = correct / tasks (best of the samples). pass@k = unbiased "
                          "estimator over each task's samples. Faster than eager / compile = "
                          "fast_1.0: correct and the lower bound of the speedup's 95% interval "
                          "above 1.0 (the speedup itself when measured without one), over all "
                          "tasks. Geomeans over correct tasks, with their 95% percentile-bootstrap "
                          "interval (overall: resampled within each level). Tasks per level: ") +
           sizes.join(QStringLiteral(", ")) + QStringLiteral(". Overall weighted: ") +
           weightList(board) + QStringLiteral(".\n");

    // Cost and flags per model over every level (not only the weighted ones).
    out += QStringLiteral("\n| Model | Input tokens | Output tokens | Cost | Noisy timings | "
                          "Suspicious | Rejected |\n| :-- | --: | --: | --: | --: | --: | --: |\n");
    for (const std::string& model : board.models) {
        LeaderboardCell total;
        for (const LeaderboardCell& cell : board.cells) {
            if (cell.model == model) {
                total.inputTokens += cell.inputTokens;
                total.outputTokens += cell.outputTokens;
                total.costUsd += cell.costUsd;
                total.noisy += cell.noisy;
                total.suspicious += cell.suspicious;
                total.rejected += cell.rejected;
            }
        }
        out += QStringLiteral("| ") + markdownEscape(QString::fromStdString(model)) +
               QStringLiteral(" | ") + QString::number(total.inputTokens) + QStringLiteral(" | ") +
               QString::number(total.outputTokens) + QStringLiteral(" | ") + cost(total) +
               QStringLiteral(" | ") + QString::number(total.noisy) + QStringLiteral(" | ") +
               QString::number(total.suspicious) + QStringLiteral(" | ") +
               QString::number(total.rejected) + QStringLiteral(" |\n");
    }
    return out;
}

} // namespace kb::report
