#include "pythonhighlighter.h"

namespace kb::gui {

PythonHighlighter::PythonHighlighter(QTextDocument* document, bool dark)
    : QSyntaxHighlighter(document) {
    QTextCharFormat keyword;
    keyword.setForeground(dark ? QColor(0xc6, 0x78, 0xdd) : QColor(0x7b, 0x1f, 0xa2));
    keyword.setFontWeight(QFont::Bold);
    QTextCharFormat builtin;
    builtin.setForeground(dark ? QColor(0x61, 0xaf, 0xef) : QColor(0x15, 0x65, 0xc0));
    QTextCharFormat number;
    number.setForeground(dark ? QColor(0xd1, 0x9a, 0x66) : QColor(0xbf, 0x36, 0x0c));
    QTextCharFormat decorator;
    decorator.setForeground(dark ? QColor(0xe5, 0xc0, 0x7b) : QColor(0x82, 0x77, 0x17));
    m_string.setForeground(dark ? QColor(0x98, 0xc3, 0x79) : QColor(0x2e, 0x7d, 0x32));
    m_comment.setForeground(dark ? QColor(0x7f, 0x84, 0x8e) : QColor(0x75, 0x75, 0x75));
    m_comment.setFontItalic(true);

    const QString keywords = QStringLiteral("\\b(and|as|assert|async|await|break|class|continue|"
                                            "def|del|elif|else|except|False|finally|for|from|"
                                            "global|if|import|in|is|lambda|None|nonlocal|not|or|"
                                            "pass|raise|return|True|try|while|with|yield)\\b");
    const QString builtins = QStringLiteral("\\b(self|super|len|range|int|float|str|list|dict|"
                                            "tuple|print|isinstance|torch|nn|F|triton|tl)\\b");
    m_rules.push_back({QRegularExpression(keywords), keyword});
    m_rules.push_back({QRegularExpression(builtins), builtin});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\\b[0-9][0-9_]*(\\.[0-9_]*)?([eE][-+]?[0-9]+)?\\b")),
         number});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*@[A-Za-z_.]+")), decorator});
}

void PythonHighlighter::highlightBlock(const QString& text) {
    for (const auto& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()),
                      rule.format);
        }
    }
    // Strings and comments last, scanning so that '#' inside a string is not a comment.
    // Triple-quoted strings carry over lines through the block state (1 = ''' open, 2 = """).
    int i = 0;
    const int n = static_cast<int>(text.size());
    int state = previousBlockState() > 0 ? previousBlockState() : 0;
    if (state > 0) {
        const QString close = state == 1 ? QStringLiteral("'''") : QStringLiteral("\"\"\"");
        const int end = static_cast<int>(text.indexOf(close));
        if (end < 0) {
            setFormat(0, n, m_string);
            setCurrentBlockState(state);
            return;
        }
        setFormat(0, end + 3, m_string);
        i = end + 3;
        state = 0;
    }
    while (i < n) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('#')) {
            setFormat(i, n - i, m_comment);
            break;
        }
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            const QString triple = QString(3, c);
            if (text.mid(i, 3) == triple) {
                const int end = static_cast<int>(text.indexOf(triple, i + 3));
                if (end < 0) {
                    setFormat(i, n - i, m_string);
                    state = c == QLatin1Char('\'') ? 1 : 2;
                    break;
                }
                setFormat(i, end + 3 - i, m_string);
                i = end + 3;
                continue;
            }
            int j = i + 1;
            while (j < n && text.at(j) != c) {
                if (text.at(j) == QLatin1Char('\\'))
                    ++j;
                ++j;
            }
            setFormat(i, std::min(j + 1, n) - i, m_string);
            i = j + 1;
            continue;
        }
        ++i;
    }
    setCurrentBlockState(state);
}

} // namespace kb::gui
