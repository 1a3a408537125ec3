#pragma once
// Golden-file comparison: on mismatch the actual output is written next to the test binary as
// <name>.actual and the returned message says how to compare.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

namespace kb::test {

inline QString goldenMismatch(const QByteArray& actual, const QString& goldenName) {
    const QString goldenPath = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/golden/") + goldenName;
    QFile golden(goldenPath);
    const QByteArray expected = golden.open(QIODevice::ReadOnly) ? golden.readAll() : QByteArray();
    if (actual == expected)
        return {};
    const QString actualPath =
        QDir::current().absoluteFilePath(goldenName + QStringLiteral(".actual"));
    QFile out(actualPath);
    if (out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        out.write(actual);
    return QStringLiteral("output differs from %1; compare with: diff -u %1 %2 (copy the .actual "
                          "over the golden file when the change is intended)")
        .arg(goldenPath, actualPath);
}

} // namespace kb::test
