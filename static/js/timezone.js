// Sign-up guesses the player's time zone from the browser, so deadlines and times show in
// their own zone from the start (they can change it in the profile).
(function () {
  "use strict";
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
  document.querySelectorAll("input[data-guess-timezone]").forEach(function (input) {
    if (!input.value) input.value = zone;
  });
})();
