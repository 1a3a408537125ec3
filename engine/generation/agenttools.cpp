#include "agenttools.h"

#include <QJsonArray>

namespace kb::engine {
namespace {

QJsonObject stringProp(const QString& description) {
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("description"), description}};
}

QJsonObject schema(const QJsonObject& properties, const QStringList& required) {
    return {{QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("properties"), properties},
            {QStringLiteral("required"), QJsonArray::fromStringList(required)}};
}

} // namespace

QList<ToolDefinition> agentToolDefinitions() {
    const QJsonObject path = stringProp(QStringLiteral("Path relative to the workspace."));
    QList<ToolDefinition> tools;
    tools.append(
        {QStringLiteral("list_files"),
         QStringLiteral("List the files under a folder of the workspace (default: all)."),
         schema({{QStringLiteral("path"),
                  stringProp(QStringLiteral("Folder relative to the workspace; default '.'."))}},
                {})});
    tools.append({QStringLiteral("read_file"), QStringLiteral("Read a text file of the workspace."),
                  schema({{QStringLiteral("path"), path},
                          {QStringLiteral("offset"),
                           QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                       {QStringLiteral("description"),
                                        QStringLiteral("First line (1-based).")}}},
                          {QStringLiteral("limit"),
                           QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                       {QStringLiteral("description"),
                                        QStringLiteral("Number of lines.")}}}},
                         {QStringLiteral("path")})});
    tools.append(
        {QStringLiteral("write_file"),
         QStringLiteral("Create or overwrite a file of the workspace."),
         schema({{QStringLiteral("path"), path},
                 {QStringLiteral("content"), stringProp(QStringLiteral("The whole new content."))}},
                {QStringLiteral("path"), QStringLiteral("content")})});
    tools.append(
        {QStringLiteral("edit_file"),
         QStringLiteral(
             "Replace an exact piece of text in a file (it must occur once unless replace_all)."),
         schema({{QStringLiteral("path"), path},
                 {QStringLiteral("old_string"),
                  stringProp(QStringLiteral("Text to replace, exactly as in the file."))},
                 {QStringLiteral("new_string"), stringProp(QStringLiteral("Replacement text."))},
                 {QStringLiteral("replace_all"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}}},
                {QStringLiteral("path"), QStringLiteral("old_string"),
                 QStringLiteral("new_string")})});
    tools.append(
        {QStringLiteral("grep"),
         QStringLiteral("Search the workspace's files for a regular expression."),
         schema(
             {{QStringLiteral("pattern"), stringProp(QStringLiteral("Regular expression (PCRE)."))},
              {QStringLiteral("path"), stringProp(QStringLiteral("File or folder; default '.'."))}},
             {QStringLiteral("pattern")})});
    tools.append(
        {QStringLiteral("run_command"),
         QStringLiteral("Run a shell command in the workspace, in a sandbox: no network, only the "
                        "workspace is "
                        "writable, with a time limit. Output is cut to its last 16000 characters."),
         schema({{QStringLiteral("command"),
                  stringProp(QStringLiteral("The command line (/bin/sh -c)."))}},
                {QStringLiteral("command")})});
    tools.append(
        {QStringLiteral("build"),
         QStringLiteral(
             "Static checks and build of model_new.py with the evaluation harness. Returns the "
             "first compiler errors or 'Build succeeded'."),
         schema({}, {})});
    tools.append(
        {QStringLiteral("verify"),
         QStringLiteral(
             "Build model_new.py and check its outputs against model.py on several fresh seeded "
             "inputs; a quick timing follows when it is correct."),
         schema({}, {})});
    tools.append(
        {QStringLiteral("benchmark"),
         QStringLiteral(
             "Full evaluation of model_new.py: correctness, then timing against PyTorch eager (and "
             "torch.compile where available), with the run's settings."),
         schema({}, {})});
    tools.append(
        {QStringLiteral("profile"),
         QStringLiteral(
             "Profile model_new.py's forward pass on the GPU with Nsight Compute (and Nsight "
             "Systems where installed); CUDA runs only, outputs are not checked. Returns the "
             "kernels by GPU time (calls, total and mean time, share) and, for the top kernels, "
             "achieved vs theoretical occupancy, SM (compute) and memory/DRAM throughput as % of "
             "peak, grid and block, registers per thread, arithmetic intensity (FLOP/byte) against "
             "the roofline's ridge point, whether the kernel is memory-, compute- or "
             "latency-bound, and a one-line hint."),
         schema({}, {})});
    return tools;
}

QString agentSystemPrompt(const GenerationContext& c) {
    const bool cuda = c.eval.device == QLatin1String("cuda");
    QString p = QStringLiteral("You are a performance engineer working in a sandboxed workspace "
                               "with tools. The workspace holds "
                               "model.py, a PyTorch reference program (class Model, get_inputs(), "
                               "get_init_inputs()). Write "
                               "model_new.py: a class ModelNew with the same constructor arguments "
                               "and outputs as Model, whose "
                               "forward pass runs your own %1 kernels built with "
                               "torch.utils.cpp_extension.load_inline (%2).\n"
                               "Use the tools: write and edit files, run commands (no network), "
                               "build, verify and benchmark with the evaluation harness, and "
                               "profile with Nsight Compute to see where GPU time goes and what "
                               "limits each kernel. The final model_new.py in the workspace is "
                               "your answer; it is evaluated again "
                               "independently when you stop.\n"
                               "Stop (reply without calling a tool) when the verified solution is "
                               "at least %3x as fast as "
                               "torch.compile (or PyTorch eager where torch.compile is "
                               "unavailable), or when you cannot improve it. "
                               "You have at most %4 model turns.\n")
                    .arg(cuda ? QStringLiteral("CUDA") : QStringLiteral("C++ CPU"),
                         cuda ? QStringLiteral("cuda_sources") : QStringLiteral("cpp_sources"))
                    .arg(c.settings.targetSpeedup, 0, 'f', 2)
                    .arg(c.settings.maxTurns);
    p += QStringLiteral("Outputs must match within atol = %1, rtol = %2 (%3).\n")
             .arg(c.eval.atol)
             .arg(c.eval.rtol)
             .arg(c.eval.precision);
    if (!c.settings.skillText.isEmpty()) {
        p += QStringLiteral("\nFollow this skill (%1):\n\n").arg(c.settings.skillName);
        p += c.settings.skillText;
    }
    return p;
}

QString agentTaskPrompt(const GenerationContext& c) {
    QString p =
        QStringLiteral("Task %1 (%2, level %3). The reference program model.py:\n\n```python\n")
            .arg(c.taskKey, c.taskName)
            .arg(c.level);
    p += c.taskSource;
    if (!c.taskSource.endsWith(QLatin1Char('\n')))
        p += QLatin1Char('\n');
    p += QStringLiteral("```\n\nWrite model_new.py, verify it, and make it fast.");
    return p;
}

} // namespace kb::engine
