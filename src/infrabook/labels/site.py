"""The site's templates and scripts (``docs/_templates``, ``docs/_ext``) and the PDF editions
(``docs/pdf/build.py``).

Keys: ``ui.``, ``a11y.``, ``site.``, ``index.``, ``pdf.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("ui", "a11y", "site", "index", "pdf")

LABELS: dict[str, str] = {
    "pdf.subtitle": "为什么 kernel 会变快",
    "pdf.edition_label": "版本",
    "pdf.edition": "中文版",
    "pdf.version_label": "修订",
    "pdf.date_label": "构建日期",
    "pdf.site_label": "网站",
    "pdf.blurb": (
        "融合、FlashAttention、编译器与运行时。书中每个数字、表格和图都由 infrabook "
        "包在构建时算出；本 PDF 与网站出自同一次构建。"
    ),
    "pdf.contents": "目录",
    "pdf.introduction": "导读",
    "pdf.figure": "图",
    "pdf.table": "表",
    "pdf.number_sep": "\u3000",
    "pdf.live_inputs": "输入：",
    "pdf.live_note": (
        "这是一个实时计算器：上表是按这些默认输入在构建时算出的；在网站上可以改输入、即时重算："
    ),
    "pdf.author": "infrabook 作者们",
    "ui.pdf_download": "下载本书 PDF（中文版）",
    "ui.colour": "配色",
    "ui.light": "亮色",
    "ui.dark": "暗色",
    "ui.auto": "跟随系统",
    "ui.toggle_chapters": "显示或隐藏章节目录",
    "ui.toggle_contents": "显示或隐藏本页目录",
    "ui.by": "作者：",
    "ui.other_edition": "English",
    "ui.other_edition_label": "Read this page in English",
    # the footer (copyright.html): licences, then the version and build of the page
    "ui.licence_code": "代码：",
    "ui.licence_text": "文字与图：",
    "ui.notices": "第三方组件",
    "ui.version": "版本",
    "ui.commit": "提交",
    "ui.uncommitted": "（另有未提交的修改）",
    "ui.built": "构建于",
    "ui.records": "实测记录：",
    "ui.records_none": "无",
    "ui.records_unreadable": "无法读取",
    "ui.changelog": "版本记录与勘误",
    "ui.report": "报告本页的错误",
    # {title} is the chapter's title
    "a11y.sections": "展开或收起“{title}”的小节",
    "a11y.chapters": "章节目录",
    "a11y.open_chapters": "打开章节目录",
    "a11y.open_contents": "打开本页目录",
    "a11y.site": "书名",
    # the per-edition settings (docs/_ext/infrabook_i18n.py); {prefix} is the edition's root
    "site.title": "infrabook · 为什么 kernel 会变快",
    "site.author": "infrabook 作者们",
    "site.copyright": "2026，{author}",
    "site.code_show": "显示代码",
    "site.code_hide": "隐藏代码",
    "site.search": "搜索…",
    "site.notfound_title": "页面不存在（404）",
    "site.notfound_body": (
        "<h1>页面不存在</h1><p>这个地址没有页面。请从<a href='{prefix}"
        "index.html'>目录</a>重新进入，或<a href='{prefix}search.html'>搜索</a>要找的内容。</p>"
    ),
}
