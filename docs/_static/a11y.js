/* Names for the controls the themes leave nameless or name in English, and a landmark for
   the sidebar's site title (axe-core: summary-name, region). The words come from
   docs/_ext/infrabook_a11y.py in the build's language. Runs before the themes' scripts
   (both deferred, this one first), so the tooltips they create read the new titles. */
(function () {
  "use strict";
  const words = JSON.parse(document.currentScript.dataset.words);

  function name(element, label) {
    element.setAttribute("aria-label", label);
    if (element.hasAttribute("title")) element.setAttribute("title", label);
  }

  function nameSectionArrows() {
    document.querySelectorAll(".bd-sidenav details > summary").forEach((summary) => {
      if (summary.textContent.trim()) return;
      const link = summary.parentElement.previousElementSibling;
      const title = link ? link.textContent.trim() : "";
      name(summary, words.sections.replace("{title}", title));
    });
  }

  function nameNavigation() {
    document.querySelectorAll("nav.bd-docs-nav").forEach((nav) => name(nav, words.chapters));
    document.querySelectorAll(".bd-header-article .primary-toggle").forEach(
      (button) => name(button, words.open_chapters));
    document.querySelectorAll(".bd-header-article .secondary-toggle").forEach(
      (button) => name(button, words.open_contents));
  }

  function markSiteTitle() {
    const brand = document.querySelector(".bd-sidebar-primary .navbar-brand");
    const item = brand && brand.closest(".sidebar-primary-item");
    if (item && !item.hasAttribute("role")) {
      item.setAttribute("role", "banner");
      item.setAttribute("aria-label", words.site);
    }
  }

  // The book theme blurs ☰ and ☷ as they are clicked, so a drawer, when closed, gives
  // focus back to nothing and a keyboard user starts again from the top of the page.
  function refocusToggleOnClose() {
    [["pst-primary-sidebar-modal", ".primary-toggle"],
     ["pst-secondary-sidebar-modal", ".secondary-toggle"]].forEach(([id, button]) => {
      const drawer = document.getElementById(id);
      const toggle = document.querySelector(`.bd-header-article ${button}`);
      if (!drawer || !toggle) return;
      drawer.addEventListener("close", () => {
        setTimeout(() => {
          if (document.activeElement === document.body) toggle.focus();
        });
      });
    });
  }

  // A display formula wider than a phone scrolls sideways: let the keyboard reach it.
  function focusableWideMath() {
    document.querySelectorAll('mjx-container[display="true"]').forEach((math) => {
      if (math.scrollWidth > math.clientWidth) math.setAttribute("tabindex", "0");
      else math.removeAttribute("tabindex");
    });
  }

  function afterTypesetting() {
    const startup = window.MathJax && window.MathJax.startup;
    if (!startup || !startup.promise) return;
    startup.promise.then(focusableWideMath);
    window.addEventListener("resize", focusableWideMath);
  }

  // docutils marks the bibliography role="list" but its entries role="doc-biblioentry",
  // which is not a list item, so assistive technology gets a broken list: make the
  // entries list items of that list.
  function repairCitationList() {
    document.querySelectorAll('.citation-list[role="list"] > [role="doc-biblioentry"]')
      .forEach((entry) => entry.setAttribute("role", "listitem"));
  }

  function run() {
    repairCitationList();
    nameSectionArrows();
    nameNavigation();
    markSiteTitle();
    refocusToggleOnClose();
  }

  window.addEventListener("load", afterTypesetting);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
