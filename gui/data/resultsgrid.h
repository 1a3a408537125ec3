#pragma once
// The tasks x models grid of a set of attempts, as plain data: one row per (level, task), one
// cell per model holding every sample and the best one ("best of k"). Built off the GUI thread
// with a scope's attempts, so showing a large scope costs the GUI thread nothing.

#include "db/records.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace kb::gui {

struct ResultsGridCell {
    std::vector<const db::AttemptRow*> samples;
    const db::AttemptRow* best = nullptr;
    int scoring = 0; // samples that count as correct
};

struct ResultsGridRow {
    int level = 1;
    QString key;
    QString name;
    std::vector<ResultsGridCell> cells; // one per model
};

struct ResultsGrid {
    QStringList models;               // sorted
    std::vector<ResultsGridRow> rows; // by (level, key)
};

// The attempts must outlive the grid.
ResultsGrid buildResultsGrid(const std::vector<const db::AttemptRow*>& attempts);

} // namespace kb::gui
