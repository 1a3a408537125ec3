#pragma once
// Reading the files of a suite someone else may have written: regular files only, inside the
// suite's folder, of bounded size. A FIFO, a device such as /dev/zero, a directory or a link out
// of the folder is refused with a readable reason instead of blocking or filling memory.

#include <QByteArray>
#include <QString>

namespace kb::engine {

// A task file (a KernelBench problem) is a few kilobytes; 1 MiB leaves room for generated ones.
inline constexpr qint64 kMaxTaskFileBytes = 1024 * 1024;
// suite.json lists tasks: 8 MiB is room for about 50,000 of them.
inline constexpr qint64 kMaxManifestBytes = 8 * 1024 * 1024;

// Reads at most maxBytes of the regular file at path; never blocks. On failure returns false
// and sets problem to "PATH: why" (the path as given).
bool readSuiteFile(const QString& path, qint64 maxBytes, QByteArray& bytes, QString& problem);
// The same for any file a user hands in; kind names such a file in the problem ("candidate file").
bool readRegularFile(const QString& path, qint64 maxBytes, QByteArray& bytes, QString& problem,
                     const QString& kind);

// True when path, with every link resolved, lies inside folder (also resolved).
bool isInsideFolder(const QString& path, const QString& folder);

} // namespace kb::engine
