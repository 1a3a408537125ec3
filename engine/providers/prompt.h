#pragma once
// One-shot prompts from template files: the built-in templates under resources/prompts/
// (kernelbench, kbstudio) or a user's file. A template is plain text with placeholders
// ({task_source}, {language}, ...; see docs/prompt-templates.md) and optional section markers:
// a line "@system" starts the system message, a line "@user" the user message; text before the
// first marker is a comment. Without markers the whole file is the user message.

#include <QString>
#include <QStringList>

namespace kb::engine {

inline const QString kPromptKernelBench = QStringLiteral("kernelbench");
inline const QString kPromptStudio = QStringLiteral("kbstudio");

struct PromptTemplate {
    QString name;   // the built-in's name, or the file's base name
    QString text;   // the whole file as read
    QString sha256; // hex digest of the UTF-8 text
    QString path;   // where it was read from (not stored: a run keeps the text)
};

// What the placeholders stand for in one prompt.
struct PromptValues {
    QString taskSource;
    QString device = QStringLiteral("cuda"); // cuda or cpu
    QString precision = QStringLiteral("fp32");
    double atol = 1e-4;
    double rtol = 1e-4;
};

struct RenderedPrompt {
    QString system; // empty when the template has no system section
    QString user;
};

// $KBSTUDIO_PROMPTS_DIR, else resources/prompts (the source tree's when the resources folder
// has none).
QString promptsDir();
// The built-in templates' names (the *.prompt files of promptsDir()), sorted.
QStringList builtinPromptTemplates();
// The default template of a suite: kernelbench for suites whose name starts with "kernelbench"
// (any case), kbstudio otherwise.
QString defaultPromptTemplateFor(const QString& suiteName);
// A built-in by name or a template file by path; throws Error naming the built-ins.
PromptTemplate loadPromptTemplate(const QString& nameOrPath);
QString promptSha256(const QString& text);
// The placeholder names a template may use, without braces.
QStringList promptPlaceholders();

// Splits the template into its sections and fills the known placeholders; other text in braces
// (C++ code, say) is left as it is.
RenderedPrompt renderPrompt(const QString& templateText, const PromptValues& values);
// The messages as one text, for providers that take a single prompt: system, blank line, user.
QString flattenPrompt(const RenderedPrompt& prompt);

// The built-in kbstudio prompt for fp32 (runs stored before templates were chosen per run).
QString buildOneShotPrompt(const QString& taskSource, const QString& device);

// The candidate program in a model's reply: the last fenced python block (or the only fenced
// block of any language); empty when there is none.
QString extractCandidateCode(const QString& response);

} // namespace kb::engine
