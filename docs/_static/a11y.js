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

  function run() {
    nameSectionArrows();
    nameNavigation();
    markSiteTitle();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
