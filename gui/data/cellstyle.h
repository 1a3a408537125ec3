#pragma once
// What a results cell means (its kind) and how it is coloured. Colours are mixed into the
// current palette's base colour, so the grid reads in light and dark themes alike.

#include "db/records.h"

#include <QColor>
#include <QPalette>
#include <QString>
#include <optional>

namespace kb::gui {

enum class CellKind {
    Empty,          // no attempt of this model on this task
    Pending,        // queued or still running
    Faster,         // correct and faster than eager
    Slower,         // correct and not faster than eager
    CorrectUntimed, // correct, no usable speedup
    Suspicious,     // correct but flagged, not reviewed (does not score)
    Incorrect,      // wrong output
    Failed,         // build, runtime, timeout, no candidate, harness error
    Rejected,       // rejected by a static check or by a person
};

CellKind cellKindOf(const db::AttemptRow& attempt);
// True when the attempt scores: correct, not rejected by review, not unreviewed-suspicious.
bool scores(const db::AttemptRow& attempt);
// How good an attempt is for "best of k": scoring correct first (by speedup), then the rest.
double attemptRank(const db::AttemptRow& attempt);

QString cellKindLabel(CellKind kind);

// The background of a cell. Speedups are coloured on a log2 scale: green when faster than
// eager, orange when slower, deeper the further from 1× (saturating at 8× / 1/8×).
QColor cellBackground(CellKind kind, std::optional<double> speedup, const QPalette& palette);
// The pure hue of a kind (legend swatches, plots).
QColor cellHue(CellKind kind);

} // namespace kb::gui
