#include "resultsgrid.h"

#include "cellstyle.h"

#include <map>
#include <string>

namespace kb::gui {

ResultsGrid buildResultsGrid(const std::vector<const db::AttemptRow*>& attempts) {
    ResultsGrid grid;
    std::map<std::string, std::size_t> columnOf;
    std::map<std::pair<int, std::string>, std::size_t> rowOf;
    for (const auto* a : attempts) {
        columnOf.emplace(a->modelName, 0);
        rowOf.emplace(std::make_pair(a->level, a->taskKey), 0);
    }
    for (auto& [name, column] : columnOf) {
        column = static_cast<std::size_t>(grid.models.size());
        grid.models << QString::fromStdString(name);
    }
    for (auto& [key, index] : rowOf) {
        index = grid.rows.size();
        ResultsGridRow row;
        row.level = key.first;
        row.key = QString::fromStdString(key.second);
        row.cells.resize(columnOf.size());
        grid.rows.push_back(std::move(row));
    }
    std::pair<int, std::string> key;
    for (const auto* a : attempts) {
        key.first = a->level;
        key.second = a->taskKey;
        ResultsGridRow& row = grid.rows[rowOf.at(key)];
        if (row.name.isEmpty())
            row.name = QString::fromStdString(a->taskName);
        ResultsGridCell& cell = row.cells[columnOf.at(a->modelName)];
        cell.samples.push_back(a);
        if (scores(*a))
            ++cell.scoring;
        // Best of k; on equal rank the lower sample (then the older attempt) wins.
        if (!cell.best || attemptRank(*a) > attemptRank(*cell.best))
            cell.best = a;
    }
    return grid;
}

} // namespace kb::gui
