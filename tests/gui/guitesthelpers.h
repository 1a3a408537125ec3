#pragma once
// Small helpers shared by the GUI tests.

#include "data/snapshotloader.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

namespace kb::test {

// Reads a snapshot synchronously; fails the test when the database cannot be read.
inline gui::SnapshotPtr loadSnapshot(const QString& path) {
    const auto result = gui::loadSnapshotFile(path);
    if (!result.snapshot)
        qFatal("cannot load fixture: %s", qPrintable(result.error));
    return result.snapshot;
}

// Points QSettings at a private folder so tests never read or write the user's settings.
inline void isolateSettings(const QTemporaryDir& dir) {
    QCoreApplication::setOrganizationName(QStringLiteral("KernelBenchStudioTest"));
    QCoreApplication::setApplicationName(QStringLiteral("kbstudio-test"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings().clear();
}

// The display text of a cell.
inline QString text(const QAbstractItemModel* model, int row, int column) {
    return model->index(row, column).data().toString();
}

} // namespace kb::test
