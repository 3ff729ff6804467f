#include "widgets/table_split.h"

#include <algorithm>

#include <QHeaderView>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>

namespace attnscope::app {

int tableColumnsWidth(const QTableView* table) {
    int need = table->verticalScrollBar()->sizeHint().width() + 2 * table->frameWidth() + 8;
    const QAbstractItemView* view = table;  // sizeHintForColumn is public there
    for (int c = 0; c < table->model()->columnCount(); ++c) {
        if (!table->isColumnHidden(c)) {
            need +=
                std::max(view->sizeHintForColumn(c), table->horizontalHeader()->sectionSizeHint(c));
        }
    }
    return need;
}

void fitTableSide(QSplitter* split, const QTableView* table, int least) {
    const int total = split->width() - split->handleWidth();
    const int need = std::min(std::max(tableColumnsWidth(table), least), total / 2);
    split->setSizes({total - need, need});
}

}  // namespace attnscope::app
