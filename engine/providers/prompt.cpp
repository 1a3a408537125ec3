#include "prompt.h"

#include <QRegularExpression>

namespace kb::engine {

QString buildOneShotPrompt(const QString& taskSource, const QString& device)
{
    const bool cuda = device == QLatin1String("cuda");
    QString p;
    p += QStringLiteral("You write high-performance %1 kernels that replace PyTorch operators.\n\n")
             .arg(cuda ? QStringLiteral("CUDA") : QStringLiteral("C++ CPU"));
    p += QStringLiteral("Below is a PyTorch program: a class `Model` with a `forward` method, and "
                        "the functions `get_inputs()` and `get_init_inputs()` that create its "
                        "inputs.\n\n```python\n");
    p += taskSource;
    if (!taskSource.endsWith(QLatin1Char('\n')))
        p += QLatin1Char('\n');
    p += QStringLiteral("```\n\n");
    p += QStringLiteral("Write a class `ModelNew` with the same constructor arguments and the same "
                        "outputs as `Model`, whose forward pass runs your own kernels, compiled "
                        "with `torch.utils.cpp_extension.load_inline` (%1). Rules:\n")
             .arg(cuda ? QStringLiteral("cuda_sources") : QStringLiteral("cpp_sources"));
    p += QStringLiteral("- Do not call PyTorch compute operators (torch.*, F.*, tensor methods that "
                        "compute) in forward; allocating outputs is fine.\n"
                        "- Outputs must match the reference within atol = rtol = 1e-4 (fp32).\n"
                        "- No threads, processes, file or network access, or patching of any "
                        "module.\n\n");
    p += QStringLiteral("Reply with the complete Python file of `ModelNew` in one ```python code "
                        "block.\n");
    return p;
}

QString extractCandidateCode(const QString& response)
{
    static const QRegularExpression fence(
        QStringLiteral("```([A-Za-z0-9_+-]*)[ \\t]*\\n(.*?)```"),
        QRegularExpression::DotMatchesEverythingOption);
    QString lastPython;
    QString lastAny;
    int blocks = 0;
    auto it = fence.globalMatch(response);
    while (it.hasNext()) {
        const auto m = it.next();
        ++blocks;
        const QString lang = m.captured(1).toLower();
        lastAny = m.captured(2);
        if (lang == QLatin1String("python") || lang == QLatin1String("py"))
            lastPython = m.captured(2);
    }
    if (!lastPython.isEmpty())
        return lastPython;
    return blocks == 1 ? lastAny : QString();
}

} // namespace kb::engine
