/* Site behaviour: a visible cue on tables, code and figures that scroll sideways; figures
   kept legible on phones and opened full size on a tap; the phone's contents panel closed
   after a pick; the language switch kept at the reader's section; search snippets taken
   from the article's prose only, a glossary term's with its definition. */
"use strict";

(() => {
  // Numbers (with their unit) must not break mid-value, whatever the column's alignment.
  const NUMBER = /^[-+−~≈<>≤≥]?\s*[\d.,]+(e[-+]?\d+)?\s*(%|×|x|ms|μs|s|MiB|GiB|MB|GB|GB\/s|TB\/s|TFLOP\/s|GFLOP\/s)?$/i;
  const markNumbers = () => {
    document.querySelectorAll(".bd-article td, .bd-article th").forEach((cell) => {
      if (NUMBER.test(cell.textContent.trim())) cell.classList.add("ib-num");
    });
  };

  const english = document.documentElement.lang.startsWith("en");
  const HINTS = english
    ? { table: "← wide table: scroll sideways →", block: "← wide block: scroll sideways →",
        figure: "← wide figure: scroll sideways, or tap it to open it full size →" }
    : { table: "← 表格较宽，可左右滑动 →", block: "← 内容较宽，可左右滑动 →",
        figure: "← 图较宽，可左右滑动；点按图可单独打开原尺寸 →" };
  // A calculator's tables (built or live) scroll together in its .live-output, so the
  // table built into the page and the one computed live are laid out alike.
  const SCROLLERS = [
    [".bd-article .pst-scrollable-table-container:not(.live-output *), " +
     ".bd-article .cell_output .text_html, .bd-article .live-output", "table"],
    [".bd-article div.highlight > pre, .bd-article div.cell_output div.output > pre", "block"],
    [".bd-article a.ib-figure", "figure"],
  ];
  // A table cut short on a phone, and long, is read row by row instead: each row a card
  // with every cell under its column's name (the verdict of the audit's 51 rows, not off
  // to the side of each of them).
  const STACK_ROWS = 12;
  const stack = (box) => {
    const table = box.querySelector("table");
    if (!table || table.tBodies.length === 0 || table.tBodies[0].rows.length < STACK_ROWS) {
      return;
    }
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (!names.length) return;
    for (const row of table.tBodies[0].rows) {
      [...row.cells].forEach((cell, i) => { cell.dataset.ibLabel = names[i] || ""; });
    }
    box.classList.add("ib-stacked");
  };
  // A block whose last few pixels are only its own right padding fits once that padding
  // gives way: no scroll bar and cue for a closing ")" (both kept for anything more).
  const snug = (box) => {
    box.style.paddingRight = "";
    const over = box.scrollWidth - box.clientWidth;
    const padding = parseFloat(getComputedStyle(box).paddingRight) || 0;
    if (over > 1 && over < padding) box.style.paddingRight = `${padding - over - 1}px`;
  };
  const place = (box, kind, hint) => {
    // a table's cue comes before it, where a reader of a long table starts
    if (kind === "table" ? box.previousElementSibling !== hint : box.nextElementSibling !== hint) {
      if (kind === "table") box.before(hint); else box.after(hint);
    }
  };
  // Mark scroll containers whose content is wider than they are, and add a hint by them.
  const markOverflow = () => {
    const desktop = window.matchMedia("(min-width: 1200px)").matches;
    const phone = window.matchMedia("(max-width: 540px)").matches;
    for (const [selector, kind] of SCROLLERS) {
      document.querySelectorAll(selector).forEach((box) => {
        box.classList.add("ib-scroll");
        // A table may first take the column's gutter (infrabook-site.css), then scroll.
        box.classList.remove("ib-wide", "ib-stacked");
        if (kind === "table" && desktop && box.scrollWidth > box.clientWidth + 1) {
          box.classList.add("ib-wide");
        }
        if (kind === "table" && phone && box.scrollWidth > box.clientWidth + 1) stack(box);
        if (kind === "block") snug(box);
        const wide = box.scrollWidth > box.clientWidth + 1;
        box.classList.toggle("ib-overflows", wide);
        let hint = box.ibHint;
        if (!hint) {
          hint = document.createElement("p");
          hint.className = "ib-scroll-hint";
          hint.setAttribute("aria-hidden", "true");
          hint.textContent = HINTS[kind];
          box.ibHint = hint;
        }
        hint.classList.toggle("ib-shown", wide);
        place(box, kind, hint);
      });
    }
  };

  // Figures are SVG drawn for the desktop column with labels of 10 pt or more. On a narrow
  // screen each keeps at least the width at which its smallest label is MIN_LABEL_PX (read
  // from the SVG: font sizes against the viewBox), scrolling in its box if need be; a tap
  // opens the SVG on its own, full size.
  const MIN_LABEL_PX = 11;
  const smallestLabel = async (src) => {
    const svg = new DOMParser().parseFromString(
      await (await fetch(src)).text(), "image/svg+xml").documentElement;
    const width = svg.viewBox.baseVal ? svg.viewBox.baseVal.width : 0;
    const sizes = [...svg.querySelectorAll("text")].map((t) => {
      const m = /font(?:-size)?:[^;]*?([\d.]+)px/.exec(t.getAttribute("style") || "");
      return m ? Number(m[1]) : Number(t.getAttribute("font-size")) || 0;
    }).filter((v) => v > 0);
    return width && sizes.length ? Math.min(...sizes) / width : 0;
  };
  const fitFigures = async () => {
    const figures = [...document.querySelectorAll('.bd-article figure img[src$=".svg"]')];
    await Promise.all(figures.map(async (img) => {
      if (!img.closest("a")) {
        const link = document.createElement("a");
        link.className = "ib-figure";
        link.href = img.getAttribute("src");
        img.replaceWith(link);
        link.append(img);
      }
      let ratio = 0;
      try {
        ratio = await smallestLabel(img.src);
      } catch {
        return;
      }
      if (ratio > 0) {
        // the width at which the smallest label is MIN_LABEL_PX, never above natural size
        const needed = Math.ceil(MIN_LABEL_PX / ratio);
        img.style.minWidth = `${Math.min(needed, img.naturalWidth || needed)}px`;
      }
      markOverflow();
    }));
    // for the site's browser check, which measures the figures once they are fitted
    document.documentElement.dataset.ibFigures = "ready";
  };

  // On a phone the page's contents open as a dialog over the page; once the reader has
  // picked an entry, it closes, so the section they asked for is what they see.
  // (The theme gives focus back to its button when the dialog closes, which would scroll the
  // page back; so the jump to the section comes after that.)
  document.addEventListener("click", (event) => {
    const link = event.target.closest("dialog[open] a[href^='#']");
    if (!link) return;
    event.preventDefault();
    const dialog = link.closest("dialog");
    dialog.addEventListener("close", () => setTimeout(() => {
      const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
      if (location.hash !== link.hash) location.hash = link.hash;
      else if (target) target.scrollIntoView();
    }), { once: true });
    dialog.close();
  });

  // The language switch opens the same section of the other edition. Both editions have the
  // same sections in the same order (one is translated from the other) but not the same ids,
  // so the link carries the section's position, and the other page turns it into its id.
  const SECTION = "#ib-section-";
  const sections = () => [...document.querySelectorAll("article.bd-article section[id]")];
  function keepSectionOnSwitch() {
    document.querySelectorAll("a.lang-switch").forEach((a) => {
      a.addEventListener("click", () => {
        // a section counts once its heading has reached the top, under the sticky header
        // (the theme's scroll-padding-top, which a jump to a section leaves above it)
        const padding = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop);
        const top = Math.max(document.querySelector(".bd-header")?.offsetHeight || 0,
                             padding || 0) + 8;
        const all = sections();
        let current = -1;
        all.forEach((el, i) => {
          if (el.getBoundingClientRect().top <= top) current = i;
        });
        const url = new URL(a.href, location.href);
        url.hash = current > 0 ? `${SECTION}${current}` : "";
        a.href = url.href;
      });
    });
    if (location.hash.startsWith(SECTION)) {
      const target = sections()[Number(location.hash.slice(SECTION.length))];
      if (target) {
        history.replaceState(null, "", `#${target.id}`);
        target.scrollIntoView();
      }
    }
  }

  const ready = () => {
    markNumbers();
    fitFigures();
    markOverflow();
    keepSectionOnSwitch();
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
  // Fonts and MathJax change widths after the first layout.
  window.addEventListener("load", markOverflow);
  window.addEventListener("resize", markOverflow);
  // a live calculator has replaced its tables (docs/_static/live/live.js)
  document.addEventListener("ib:tables", markOverflow);

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
      let part = anchor ? article.querySelector(anchor) : null;
      // A glossary term's hit shows the term with its definition (the <dd> after its <dt>s).
      if (part && part.tagName === "DT") {
        let dd = part;
        while (dd && dd.tagName === "DT") dd = dd.nextElementSibling;
        return `${part.textContent} — ${dd ? dd.textContent : ""}`.replace(/\s+/g, " ").trim();
      }
      return (part || article).textContent.replace(/\s+/g, " ").trim();
    };
  }
})();
