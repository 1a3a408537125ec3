#include "sandboxpolicy.h"

#include "core/paths.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace kb::engine {
namespace {

// What compilers, the dynamic loader and Python read under /etc: the same list as the harness's
// candidate sandbox (resources/harness/kbharness/sandbox.py, ETC_FILES). Never shadow, ssh, ssl.
const QStringList& etcFiles() {
    static const QStringList files{
        QStringLiteral("/etc/alternatives"),   QStringLiteral("/etc/ld.so.cache"),
        QStringLiteral("/etc/ld.so.conf"),     QStringLiteral("/etc/ld.so.conf.d"),
        QStringLiteral("/etc/passwd"),         QStringLiteral("/etc/group"),
        QStringLiteral("/etc/nsswitch.conf"),  QStringLiteral("/etc/localtime"),
        QStringLiteral("/etc/timezone"),       QStringLiteral("/etc/os-release"),
        QStringLiteral("/etc/debian_version"), QStringLiteral("/etc/host.conf"),
        QStringLiteral("/etc/hosts"),          QStringLiteral("/etc/python3"),
        QStringLiteral("/etc/python3.11"),     QStringLiteral("/etc/python3.12"),
        QStringLiteral("/etc/python3.13"),     QStringLiteral("/etc/mime.types"),
    };
    return files;
}

// What the GPU driver reads besides its device nodes and /sys (sandbox.py, cuda_binds).
const QStringList& gpuFiles() {
    static const QStringList files{
        QStringLiteral("/run/nvidia-persistenced"),
        QStringLiteral("/etc/nvidia"),
        QStringLiteral("/etc/OpenCL"),
        QStringLiteral("/etc/vulkan"),
        QStringLiteral("/etc/cuda"),
    };
    return files;
}

// The CUDA toolkit where it lies outside /usr: $CUDA_HOME, $CUDA_PATH, the nvcc on PATH.
QStringList cudaToolkitRoots() {
    QStringList roots;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        const QString v = qEnvironmentVariable(var);
        if (QFileInfo(v).isAbsolute() && QFileInfo::exists(v))
            roots << QDir::cleanPath(v);
    }
    const QString nvcc = QStandardPaths::findExecutable(QStringLiteral("nvcc"));
    if (!nvcc.isEmpty()) {
        roots << QFileInfo(QFileInfo(nvcc).absolutePath()).absolutePath();
        roots << QFileInfo(QFileInfo(QFileInfo(nvcc).canonicalFilePath()).absolutePath())
                     .absolutePath();
    }
    roots.removeDuplicates();
    return roots;
}

bool isUnder(const QString& path, const QString& dir) {
    return path == dir || path.startsWith(dir + QLatin1Char('/'));
}

} // namespace

QStringList defaultExtraReadOnlyPaths() {
    QStringList out;
    for (const QString& p : qEnvironmentVariable("KBSTUDIO_SANDBOX_RO_PATHS")
                                .split(QLatin1Char(':'), Qt::SkipEmptyParts))
        out << QDir::cleanPath(p);
    // A virtual environment's python is a link into /usr; its site-packages are not.
    const QFileInfo python(pythonExecutable());
    if (python.isAbsolute()) {
        const QString prefix = QFileInfo(python.absolutePath()).absolutePath();
        if (!isUnder(prefix, QStringLiteral("/usr")) && prefix != QLatin1String("/") &&
            !isUnder(QDir::homePath(), prefix))
            out << prefix;
    }
    for (const QString& root : cudaToolkitRoots())
        if (!isUnder(root, QStringLiteral("/usr")) && root != QLatin1String("/") &&
            !isUnder(QDir::homePath(), root))
            out << root;
    out.removeDuplicates();
    return out;
}

QStringList sandboxArguments(const SandboxSpec& spec) {
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
    for (const QString& f : etcFiles())
        if (exists(f))
            a << QStringLiteral("--ro-bind") << root + f << f;
    for (const QString& p : spec.readOnly)
        if (QFileInfo::exists(p) && !isUnder(spec.workspace, p))
            a << QStringLiteral("--ro-bind") << p << p;
    a << QStringLiteral("--dev") << QStringLiteral("/dev") << QStringLiteral("--proc")
      << QStringLiteral("/proc") << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    if (spec.gpu) {
        const QDir dev(root + QStringLiteral("/dev"));
        for (const QString& node : dev.entryList({QStringLiteral("nvidia*")},
                                                 QDir::System | QDir::Dirs | QDir::NoDotAndDotDot))
            a << QStringLiteral("--dev-bind") << dev.filePath(node)
              << QStringLiteral("/dev/") + node;
        if (exists(QStringLiteral("/dev/dri")))
            a << QStringLiteral("--dev-bind") << root + QStringLiteral("/dev/dri")
              << QStringLiteral("/dev/dri");
        if (exists(QStringLiteral("/sys")))
            a << QStringLiteral("--ro-bind") << root + QStringLiteral("/sys")
              << QStringLiteral("/sys");
        for (const QString& f : gpuFiles())
            if (exists(f))
                a << QStringLiteral("--ro-bind") << root + f << f;
    }
    for (const QString& dir : spec.hidden)
        if (QFileInfo(dir).isDir() && !isUnder(spec.workspace, dir))
            for (int i = 0; i < a.size(); ++i)
                if (a.at(i) == QLatin1String("--ro-bind") && i + 2 < a.size() &&
                    isUnder(dir, a.at(i + 2))) {
                    a << QStringLiteral("--tmpfs") << dir; // inside something bound: blank it
                    break;
                }
    // the sandbox's own root (the folders bwrap made for the binds) is read-only as well
    a << QStringLiteral("--bind") << spec.workspace << spec.workspace
      << QStringLiteral("--remount-ro") << QStringLiteral("/") << QStringLiteral("--setenv")
      << QStringLiteral("HOME") << spec.workspace << QStringLiteral("--unshare-net")
      << QStringLiteral("--unshare-pid") << QStringLiteral("--unshare-ipc")
      << QStringLiteral("--unshare-uts") << QStringLiteral("--die-with-parent")
      << QStringLiteral("--new-session") << QStringLiteral("--chdir") << spec.workspace;
    return a;
}

} // namespace kb::engine
