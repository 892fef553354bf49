// The table follows the game: htmx polls #live every few seconds, and when the tab comes back
// into view it refreshes at once. That check lives here rather than in an hx-trigger filter,
// because htmx evaluates filters as code, which the Content-Security-Policy forbids.
(function () {
  "use strict";
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      document.dispatchEvent(new CustomEvent("pirates-visible"));
    }
  });
})();
