#pragma once
// A small Python highlighter for task sources and candidates: keywords, builtins, strings,
// numbers, comments and decorators. Colours come from the palette so it works in dark themes.

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace kb::gui {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* document, bool dark = false);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> m_rules;
    QTextCharFormat m_string;
    QTextCharFormat m_comment;
};

} // namespace kb::gui
