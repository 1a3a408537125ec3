#include "sandboxpolicy.h"

#include "core/paths.h"

#include <QDir>
#include <QFileInfo>

namespace kb::engine {
namespace {

// What compilers, the dynamic loader and Python read under /etc.
const QStringList& etcFiles()
{
    static const QStringList files{
        QStringLiteral("/etc/alternatives"),   QStringLiteral("/etc/ld.so.cache"),
        QStringLiteral("/etc/ld.so.conf"),     QStringLiteral("/etc/ld.so.conf.d"),
        QStringLiteral("/etc/passwd"),         QStringLiteral("/etc/group"),
        QStringLiteral("/etc/nsswitch.conf"),  QStringLiteral("/etc/localtime"),
        QStringLiteral("/etc/os-release"),     QStringLiteral("/etc/debian_version"),
        QStringLiteral("/etc/python3"),        QStringLiteral("/etc/python3.11"),
        QStringLiteral("/etc/python3.12"),     QStringLiteral("/etc/python3.13"),
        QStringLiteral("/etc/mime.types"),     QStringLiteral("/etc/nvidia"),
        QStringLiteral("/etc/OpenCL"),         QStringLiteral("/etc/vulkan"),
        QStringLiteral("/etc/cuda"),
    };
    return files;
}

bool isUnder(const QString& path, const QString& dir)
{
    return path == dir || path.startsWith(dir + QLatin1Char('/'));
}

} // namespace

QStringList defaultExtraReadOnlyPaths()
{
    QStringList out;
    for (const QString& p : qEnvironmentVariable("KBSTUDIO_SANDBOX_RO_PATHS").split(QLatin1Char(':'), Qt::SkipEmptyParts))
        out << QDir::cleanPath(p);
    // A virtual environment's python is a link into /usr; its site-packages are not.
    const QFileInfo python(pythonExecutable());
    if (python.isAbsolute()) {
        const QString prefix = QFileInfo(python.absolutePath()).absolutePath();
        if (!isUnder(prefix, QStringLiteral("/usr")) && !isUnder(prefix, QStringLiteral("/opt"))
            && prefix != QLatin1String("/") && !isUnder(QDir::homePath(), prefix))
            out << prefix;
    }
    return out;
}

QStringList sandboxArguments(const SandboxSpec& spec)
{
    const QString root; // "/" itself
    auto exists = [&](const QString& p) { return QFileInfo::exists(p); };
    QStringList a;
    a << QStringLiteral("--ro-bind") << root + QStringLiteral("/usr") << QStringLiteral("/usr");
    for (const char* name : {"bin", "sbin", "lib", "lib32", "lib64", "libx32"}) {
        const QString p = QStringLiteral("/") + QString::fromLatin1(name);
        const QFileInfo info(root + p);
        if (info.isSymLink())
            a << QStringLiteral("--symlink") << info.symLinkTarget() << p;
        else if (info.isDir())
            a << QStringLiteral("--ro-bind") << root + p << p;
    }
    if (exists(QStringLiteral("/opt")))
        a << QStringLiteral("--ro-bind") << root + QStringLiteral("/opt") << QStringLiteral("/opt");
    for (const QString& f : etcFiles())
        if (exists(f))
            a << QStringLiteral("--ro-bind") << root + f << f;
    for (const QString& p : spec.readOnly)
        if (QFileInfo::exists(p) && !isUnder(spec.workspace, p))
            a << QStringLiteral("--ro-bind") << p << p;
    a << QStringLiteral("--dev") << QStringLiteral("/dev") << QStringLiteral("--proc") << QStringLiteral("/proc")
      << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    if (spec.gpu) {
        const QDir dev(root + QStringLiteral("/dev"));
        for (const QString& node : dev.entryList({QStringLiteral("nvidia*")}, QDir::System | QDir::Dirs | QDir::NoDotAndDotDot))
            a << QStringLiteral("--dev-bind") << dev.filePath(node) << QStringLiteral("/dev/") + node;
        if (exists(QStringLiteral("/dev/dri")))
            a << QStringLiteral("--dev-bind") << root + QStringLiteral("/dev/dri") << QStringLiteral("/dev/dri");
        if (exists(QStringLiteral("/sys")))
            a << QStringLiteral("--ro-bind") << root + QStringLiteral("/sys") << QStringLiteral("/sys");
    }
    for (const QString& dir : spec.hidden)
        if (QFileInfo(dir).isDir() && !isUnder(spec.workspace, dir))
            for (int i = 0; i < a.size(); ++i)
                if (a.at(i) == QLatin1String("--ro-bind") && i + 2 < a.size() && isUnder(dir, a.at(i + 2))) {
                    a << QStringLiteral("--tmpfs") << dir; // inside something bound: blank it
                    break;
                }
    a << QStringLiteral("--bind") << spec.workspace << spec.workspace << QStringLiteral("--setenv")
      << QStringLiteral("HOME") << spec.workspace << QStringLiteral("--unshare-net") << QStringLiteral("--unshare-pid")
      << QStringLiteral("--unshare-ipc") << QStringLiteral("--unshare-uts") << QStringLiteral("--die-with-parent")
      << QStringLiteral("--new-session") << QStringLiteral("--chdir") << spec.workspace;
    return a;
}

} // namespace kb::engine
