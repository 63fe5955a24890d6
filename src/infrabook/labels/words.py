"""Words many places share: units, yes and no, verdicts, table and strategy names.

Keys: ``unit.``, ``word.``, ``verdict.``, ``table.``, ``strategy.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("unit", "word", "verdict", "table", "strategy")

LABELS: dict[str, str] = {
    "unit.us_value": "{value} μs",
    "word.yes": "是",
    "word.no": "否",
    "word.unknown": "未知",
    "word.named": "{name}：{value}",
    "word.list_sep": "；",
    "verdict.matches": "一致",
    "verdict.rounded": "取整",
    "verdict.differs": "不符",
    "verdict.implausible": "不可信",
    "strategy.generic": "通用",
    "strategy.bucketed": "分桶",
    "strategy.specialised": "逐形状特化",
    "table.each": "{name}（各）",
}
