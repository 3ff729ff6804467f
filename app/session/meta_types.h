// The core's value types that travel through Qt signals and QVariant. Declared once, here, and
// included by every header that uses them in a signal, a slot or a QVariant: a declaration that
// comes after a first use is a compile error that depends on the order moc files are compiled.
#pragma once

#include <QMetaType>

#include "attnscope/analysis/attribution.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/seq2seq_pass.h"

Q_DECLARE_METATYPE(attnscope::HeadId)
Q_DECLARE_METATYPE(attnscope::forward::AttentionKind)
Q_DECLARE_METATYPE(attnscope::analysis::AttributionMethod)
