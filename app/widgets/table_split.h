// A splitter with a result view on the left and its table on the right, the table given the
// width its columns need: what the Logit attribution, Activation patching and Circuits tabs do
// when their first result arrives.
#pragma once

class QSplitter;
class QTableView;

namespace attnscope::app {

// The width `table` needs to show every visible column whole (each column's widest cell or its
// header), with its frame and a vertical scroll bar.
int tableColumnsWidth(const QTableView* table);

// Gives the splitter's second pane tableColumnsWidth(table), at least `least` pixels and at most
// half the splitter; the first pane the rest.
void fitTableSide(QSplitter* split, const QTableView* table, int least = 0);

}  // namespace attnscope::app
