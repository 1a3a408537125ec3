#include "codecompareview.h"

#include "pages/pythonhighlighter.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

namespace kb::gui {

CodeCompareView::CodeCompareView(QWidget* parent)
    : QWidget(parent)
    , m_compare(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_text(new QPlainTextEdit(this)) {
    m_compare->setObjectName(QStringLiteral("codeCompare"));
    m_compare->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setObjectName(QStringLiteral("candidateCode"));
    new PythonHighlighter(m_text->document(), palette().color(QPalette::Base).lightness() < 128);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_compare);
    bar->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
    connect(m_compare, &QComboBox::activated, this, &CodeCompareView::render);
    clear();
}

void CodeCompareView::clear() {
    setSources({}, {}, {});
}

void CodeCompareView::setSources(const QString& candidate, const QString& reference,
                                 const std::vector<db::CandidateRow>& turns) {
    m_candidate = candidate;
    m_reference = reference;
    m_turns = turns;
    const int wanted = m_compare->currentIndex(); // kept while the new sources offer it
    m_compare->clear();
    m_compare->addItem(tr("Candidate"));
    m_compare->addItem(tr("Diff: reference → candidate"));
    for (const auto& t : m_turns)
        m_compare->addItem(tr("Diff: turn %1 → final candidate").arg(t.turnIndex));
    m_compare->setEnabled(!m_candidate.isEmpty());
    m_compare->setCurrentIndex(wanted > 0 && wanted < m_compare->count() ? wanted : 0);
    render();
}

int CodeCompareView::compareCount() const {
    return m_compare->count();
}

QString CodeCompareView::compareLabel(int index) const {
    return m_compare->itemText(index);
}

void CodeCompareView::setCompareIndex(int index) {
    m_compare->setCurrentIndex(index);
    render();
}

void CodeCompareView::render() {
    m_text->setExtraSelections({});
    const int index = m_compare->currentIndex();
    if (m_candidate.isEmpty()) {
        m_text->setPlainText(tr("No candidate was extracted from the response."));
        m_summary->clear();
        return;
    }
    if (index <= 0) {
        m_text->setPlainText(m_candidate);
        m_summary->setText(tr("%1 lines").arg(m_candidate.count(QLatin1Char('\n')) + 1));
        return;
    }
    const QString base =
        index == 1 ? m_reference
                   : QString::fromStdString(m_turns.at(static_cast<std::size_t>(index - 2)).code);
    const auto diff = diffTexts(base, m_candidate);
    const auto stats = diffStats(diff);
    m_summary->setText(tr("+%1 / −%2 lines").arg(stats.added).arg(stats.removed));
    m_text->setPlainText(diffText(diff));
    QList<QTextEdit::ExtraSelection> marks;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    const QColor added = dark ? QColor(0x1b, 0x5e, 0x20) : QColor(0xe6, 0xff, 0xed);
    const QColor removed = dark ? QColor(0x7f, 0x1d, 0x1d) : QColor(0xff, 0xeb, 0xe9);
    QTextBlock block = m_text->document()->firstBlock();
    for (const auto& d : diff) {
        if (!block.isValid())
            break;
        if (d.kind != DiffLine::Same) {
            QTextEdit::ExtraSelection sel;
            sel.cursor = QTextCursor(block);
            sel.format.setBackground(d.kind == DiffLine::Added ? added : removed);
            sel.format.setProperty(QTextFormat::FullWidthSelection, true);
            marks << sel;
        }
        block = block.next();
    }
    m_text->setExtraSelections(marks);
}

void CodeCompareView::goToLine(int line) {
    if (m_compare->currentIndex() != 0)
        setCompareIndex(0);
    const QTextBlock block = m_text->document()->findBlockByNumber(std::max(0, line - 1));
    if (!block.isValid())
        return;
    QTextCursor cursor(block);
    cursor.select(QTextCursor::LineUnderCursor);
    m_text->setTextCursor(cursor);
    m_text->centerCursor();
    QTextEdit::ExtraSelection sel;
    sel.cursor = QTextCursor(block);
    sel.format.setBackground(QColor(0xff, 0xcd, 0xd2));
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    m_text->setExtraSelections({sel});
}

int CodeCompareView::currentLine() const {
    return m_text->textCursor().blockNumber() + 1;
}

QString CodeCompareView::text() const {
    return m_text->toPlainText();
}

QString CodeCompareView::summaryText() const {
    return m_summary->text();
}

} // namespace kb::gui
