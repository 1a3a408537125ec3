#include "suitefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::engine {
namespace {

QString kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a regular file");
}

QString sizeText(qint64 bytes) {
    return bytes >= 1024 * 1024 ? QStringLiteral("%1 MiB").arg(
                                      static_cast<double>(bytes) / (1024.0 * 1024.0), 0, 'f', 1)
                                : QStringLiteral("%1 bytes").arg(bytes);
}

QString errnoText(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace

bool readSuiteFile(const QString& path, qint64 maxBytes, QByteArray& bytes, QString& problem) {
    return readRegularFile(path, maxBytes, bytes, problem, QStringLiteral("suite file"));
}

bool readRegularFile(const QString& path, qint64 maxBytes, QByteArray& bytes, QString& problem,
                     const QString& kind) {
    const QByteArray native = QFile::encodeName(path);
    struct stat st {};
    // Looked at before opening, so that opening a device has no side effect...
    if (::stat(native.constData(), &st) != 0) {
        problem = QStringLiteral("%1: cannot read (%2)").arg(path, errnoText(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        problem = QStringLiteral("%1: is %2; %3s must be regular files")
                      .arg(path, kindOf(st.st_mode), kind);
        return false;
    }
    // ...and again once open, in case it was swapped for something else in between. O_NONBLOCK
    // keeps a FIFO put there meanwhile from blocking the open.
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        problem = QStringLiteral("%1: cannot read (%2)").arg(path, errnoText(errno));
        return false;
    }
    const auto fail = [&](const QString& why) {
        ::close(fd);
        problem = QStringLiteral("%1: %2").arg(path, why);
        return false;
    };
    if (::fstat(fd, &st) != 0)
        return fail(QStringLiteral("cannot read (%1)").arg(errnoText(errno)));
    if (!S_ISREG(st.st_mode))
        return fail(
            QStringLiteral("is %1; %2s must be regular files").arg(kindOf(st.st_mode), kind));
    if (st.st_size > maxBytes) {
        return fail(QStringLiteral("is %1, more than the %2 a %3 may have")
                        .arg(sizeText(st.st_size), sizeText(maxBytes), kind));
    }
    bytes.clear();
    bytes.reserve(static_cast<qsizetype>(st.st_size));
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(QStringLiteral("cannot read (%1)").arg(errnoText(errno)));
        if (n == 0)
            break;
        bytes.append(buffer, static_cast<qsizetype>(n));
        // A file that grows while it is read is held to the same limit.
        if (bytes.size() > maxBytes) {
            return fail(QStringLiteral("grew past the %1 a %2 may have while it was read")
                            .arg(sizeText(maxBytes), kind));
        }
    }
    ::close(fd);
    return true;
}

bool isInsideFolder(const QString& path, const QString& folder) {
    const QString file = QFileInfo(path).canonicalFilePath();
    const QString dir = QFileInfo(folder).canonicalFilePath();
    if (file.isEmpty() || dir.isEmpty())
        return false;
    return file.startsWith(dir + QLatin1Char('/'));
}

} // namespace kb::engine
