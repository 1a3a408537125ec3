#pragma once
// What the agent's run_command sandbox sees, as bubblewrap arguments. An allow-list, not a
// read-only view of everything -- the same one as the harness's candidate sandbox
// (resources/harness/kbharness/sandbox.py): the system and the toolchain (/usr and the /bin,
// /lib*, /sbin links, the few /etc files compilers and Python need, the CUDA toolkit where it
// lies outside /usr, the Python that runs the harness) read-only, the workspace
// writable, a private /tmp, and nothing else: no $HOME, no database, no key store, no other
// attempt. No network, its own PID namespace. GPU device nodes are bound only when asked for,
// so nvcc, a verify script or ncu run by the agent reach the GPU.

#include <QString>
#include <QStringList>

namespace kb::engine {

struct SandboxSpec {
    QString workspace;    // bound read-write (and the working directory)
    QStringList readOnly; // extra read-only paths (e.g. a toolchain outside /usr and /opt)
    QStringList hidden;   // replaced by an empty tmpfs if they would be visible
    bool gpu = false;     // bind /dev/nvidia*, /dev/dri and /sys
};

// Read-only paths from $KBSTUDIO_SANDBOX_RO_PATHS (colon-separated), the prefix of the Python
// the harness runs with when it lives outside /usr (a virtual environment), and the CUDA toolkit
// when it lies outside /usr ($CUDA_HOME, $CUDA_PATH, the nvcc on PATH).
QStringList defaultExtraReadOnlyPaths();

// bwrap arguments up to (not including) "--" and the command.
QStringList sandboxArguments(const SandboxSpec& spec);

} // namespace kb::engine
