// Where the live calculators cannot run, say so in one line and keep the static tables.
// A classic script, not a module: from file:// Chromium refuses to load module scripts at
// all, so live.js never runs there and only this one can explain why.
(function () {
  "use strict";
  var reason = null;
  if (location.protocol === "file:") reason = "msgFile";
  else if (typeof WebAssembly !== "object") reason = "msgUnsupported";
  if (reason === null) return;
  document.addEventListener("DOMContentLoaded", function () {
    var sections = document.querySelectorAll(".live-calc");
    for (var i = 0; i < sections.length; i++) {
      var section = sections[i];
      section.dataset.state = "unavailable";
      section.querySelector(".live-status").textContent = section.dataset[reason];
      section.querySelector(".live-enable").hidden = true;
    }
  });
})();
