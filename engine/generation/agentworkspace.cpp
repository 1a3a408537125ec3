#include "agentworkspace.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace kb::engine {
namespace {
constexpr qsizetype kMaxRead = 40000;
constexpr qsizetype kMaxWrite = 1024 * 1024;
constexpr int kMaxListed = 500;
constexpr int kMaxMatches = 200;

ToolOutput error(const QString& text) {
    return {text, true};
}

QString arg(const QJsonObject& args, const char* key) {
    return args.value(QLatin1String(key)).toString();
}
} // namespace

AgentWorkspace::AgentWorkspace(QString root)
    : m_root(QDir(root).absolutePath()) {
    QDir().mkpath(m_root);
    const QString canonical = QFileInfo(m_root).canonicalFilePath();
    if (!canonical.isEmpty())
        m_root = canonical;
}

QString AgentWorkspace::resolve(const QString& relative, QString* why) const {
    QString rel = relative.trimmed();
    if (rel.isEmpty())
        rel = QStringLiteral(".");
    if (QDir::isAbsolutePath(rel)) {
        if (rel == m_root || rel.startsWith(m_root + QLatin1Char('/')))
            rel = rel.mid(m_root.size() + 1);
        else {
            *why = QStringLiteral("'%1' is outside the workspace; use paths relative to it")
                       .arg(relative);
            return {};
        }
    }
    const QString path = QDir::cleanPath(m_root + QLatin1Char('/') + rel);
    if (path != m_root && !path.startsWith(m_root + QLatin1Char('/'))) {
        *why = QStringLiteral("'%1' is outside the workspace").arg(relative);
        return {};
    }
    // A symbolic link (made by a command) must not lead out of the workspace either: check the
    // deepest part of the path that exists.
    QString existing = path;
    while (!QFileInfo::exists(existing) && existing != m_root)
        existing = QFileInfo(existing).absolutePath();
    const QString canonical = QFileInfo(existing).canonicalFilePath();
    if (!canonical.isEmpty() && canonical != m_root &&
        !canonical.startsWith(m_root + QLatin1Char('/'))) {
        *why = QStringLiteral("'%1' leads outside the workspace").arg(relative);
        return {};
    }
    return path;
}

ToolOutput AgentWorkspace::listFiles(const QJsonObject& args) const {
    QString why;
    const QString dir = resolve(arg(args, "path"), &why);
    if (dir.isEmpty())
        return error(why);
    if (!QFileInfo(dir).isDir())
        return error(QStringLiteral("'%1' is not a folder").arg(arg(args, "path")));
    QStringList lines;
    QDirIterator it(dir, QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (lines.size() >= kMaxListed) {
            lines << QStringLiteral("[... more files left out]");
            break;
        }
        lines << QStringLiteral("%1  (%2 bytes)")
                     .arg(QDir(m_root).relativeFilePath(it.filePath()))
                     .arg(it.fileInfo().size());
    }
    lines.sort();
    return {lines.isEmpty() ? QStringLiteral("(no files)") : lines.join(QLatin1Char('\n')), false};
}

ToolOutput AgentWorkspace::readFile(const QJsonObject& args) const {
    QString why;
    const QString path = resolve(arg(args, "path"), &why);
    if (path.isEmpty())
        return error(why);
    QFile f(path);
    if (!QFileInfo(path).isFile() || !f.open(QIODevice::ReadOnly))
        return error(QStringLiteral("cannot read '%1': no such file").arg(arg(args, "path")));
    QString text = QString::fromUtf8(f.read(kMaxRead * 4));
    const int offset = std::max(1, args.value(QStringLiteral("offset")).toInt(1));
    const int limit = args.value(QStringLiteral("limit")).toInt(0);
    if (offset > 1 || limit > 0) {
        QStringList lines = text.split(QLatin1Char('\n'));
        lines = lines.mid(offset - 1, limit > 0 ? limit : -1);
        text = lines.join(QLatin1Char('\n'));
    }
    if (text.size() > kMaxRead)
        text =
            text.left(kMaxRead) +
            QStringLiteral("\n[... cut at %1 characters; read on with offset/limit]").arg(kMaxRead);
    return {text, false};
}

ToolOutput AgentWorkspace::writeFile(const QJsonObject& args) const {
    QString why;
    const QString path = resolve(arg(args, "path"), &why);
    if (path.isEmpty())
        return error(why);
    const QByteArray bytes = arg(args, "content").toUtf8();
    if (bytes.size() > kMaxWrite)
        return error(QStringLiteral("the content is larger than %1 bytes").arg(kMaxWrite));
    if (QFileInfo(path).isDir())
        return error(QStringLiteral("'%1' is a folder").arg(arg(args, "path")));
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        return error(
            QStringLiteral("cannot write '%1': %2").arg(arg(args, "path"), f.errorString()));
    return {QStringLiteral("wrote %1 bytes to %2")
                .arg(bytes.size())
                .arg(QDir(m_root).relativeFilePath(path)),
            false};
}

ToolOutput AgentWorkspace::editFile(const QJsonObject& args) const {
    QString why;
    const QString path = resolve(arg(args, "path"), &why);
    if (path.isEmpty())
        return error(why);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return error(QStringLiteral("cannot read '%1': no such file").arg(arg(args, "path")));
    QString text = QString::fromUtf8(f.readAll());
    f.close();
    const QString oldText = arg(args, "old_string");
    const QString newText = arg(args, "new_string");
    if (oldText.isEmpty())
        return error(QStringLiteral("old_string is empty"));
    const qsizetype count = text.count(oldText);
    if (count == 0)
        return error(QStringLiteral("old_string does not occur in '%1'").arg(arg(args, "path")));
    if (count > 1 && !args.value(QStringLiteral("replace_all")).toBool())
        return error(QStringLiteral("old_string occurs %1 times; make it unique or set replace_all")
                         .arg(count));
    text.replace(oldText, newText);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.toUtf8()) < 0)
        return error(QStringLiteral("cannot write '%1'").arg(arg(args, "path")));
    return {QStringLiteral("replaced %1 occurrence(s) in %2").arg(count).arg(arg(args, "path")),
            false};
}

ToolOutput AgentWorkspace::grep(const QJsonObject& args) const {
    const QRegularExpression re(arg(args, "pattern"));
    if (!re.isValid() || arg(args, "pattern").isEmpty())
        return error(QStringLiteral("invalid pattern: %1").arg(re.errorString()));
    QString why;
    const QString where = resolve(arg(args, "path"), &why);
    if (where.isEmpty())
        return error(why);
    QStringList files;
    if (QFileInfo(where).isDir()) {
        QDirIterator it(where, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        files.sort();
    } else {
        files << where;
    }
    QStringList hits;
    for (const QString& file : std::as_const(files)) {
        QFile f(file);
        if (f.size() > kMaxWrite || !f.open(QIODevice::ReadOnly))
            continue;
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            if (!re.match(lines.at(i)).hasMatch())
                continue;
            if (hits.size() >= kMaxMatches) {
                hits << QStringLiteral("[... more matches left out]");
                return {hits.join(QLatin1Char('\n')), false};
            }
            hits << QStringLiteral("%1:%2: %3")
                        .arg(QDir(m_root).relativeFilePath(file))
                        .arg(i + 1)
                        .arg(lines.at(i).left(300));
        }
    }
    return {hits.isEmpty() ? QStringLiteral("(no matches)") : hits.join(QLatin1Char('\n')), false};
}

bool AgentWorkspace::write(const QString& relative, const QByteArray& bytes) const {
    QFile f(m_root + QLatin1Char('/') + relative);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

std::optional<QString> AgentWorkspace::read(const QString& relative) const {
    QFile f(m_root + QLatin1Char('/') + relative);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    return QString::fromUtf8(f.readAll());
}

} // namespace kb::engine
