/* Site behaviour: a visible cue on tables that scroll sideways, and search snippets
   taken from the article's prose only. */
"use strict";

(() => {
  // Numbers (with their unit) must not break mid-value, whatever the column's alignment.
  const NUMBER = /^[-+−~≈<>≤≥]?\s*[\d.,]+(e[-+]?\d+)?\s*(%|×|x|ms|μs|s|MiB|GiB|MB|GB|GB\/s|TB\/s|TFLOP\/s|GFLOP\/s)?$/i;
  const markNumbers = () => {
    document.querySelectorAll(".bd-article td, .bd-article th").forEach((cell) => {
      if (NUMBER.test(cell.textContent.trim())) cell.classList.add("ib-num");
    });
  };

  // Mark scroll containers whose content is wider than they are, and add a hint under them.
  const markOverflow = () => {
    document
      .querySelectorAll(
        ".bd-article .pst-scrollable-table-container, .bd-article .cell_output .text_html",
      )
      .forEach((box) => {
        box.classList.add("ib-scroll");
        const wide = box.scrollWidth > box.clientWidth + 1;
        box.classList.toggle("ib-overflows", wide);
        let hint = box.nextElementSibling;
        if (!hint || !hint.classList.contains("ib-scroll-hint")) {
          hint = document.createElement("p");
          hint.className = "ib-scroll-hint";
          hint.setAttribute("aria-hidden", "true");
          hint.textContent = document.documentElement.lang.startsWith("en")
            ? "← wide table: scroll sideways →"
            : "← 表格较宽，可左右滑动 →";
          box.after(hint);
        }
      });
  };
  const ready = () => {
    markNumbers();
    markOverflow();
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
  // Fonts and MathJax change widths after the first layout.
  window.addEventListener("load", markOverflow);
  window.addEventListener("resize", markOverflow);

  // Search snippets: Sphinx reads [role=main], which in this theme also holds the header
  // menu and the page's table of contents; cells and math come through as source code.
  if (typeof Search !== "undefined") {
    const dropped = [
      ".headerlink", "script", "style", "nav", ".bd-toc", ".toctree-wrapper",
      ".header-article", ".cell", ".prev-next-area", ".bd-header-article",
      ".bd-sidebar-secondary", ".footer-article-items",
    ];
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      const article =
        doc.querySelector("article.bd-article") || doc.querySelector('[role="main"]');
      if (!article) return "";
      dropped.forEach((q) => article.querySelectorAll(q).forEach((el) => el.remove()));
      // A formula's LaTeX source means nothing in a snippet: an ellipsis marks its place.
      article.querySelectorAll(".math").forEach((el) => el.replaceWith("…"));
      const part = anchor ? article.querySelector(anchor) : null;
      return (part || article).textContent.replace(/\s+/g, " ").trim();
    };
  }
})();
