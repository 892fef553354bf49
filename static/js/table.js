// The table: each move is confirmed with its preview before it is sent (one extra tap; the
// player can switch it off in the profile), and the live fragment htmx swaps in is announced.
(function () {
  "use strict";
  var pendingForm = null;

  function panel() { return document.getElementById("confirm-move"); }

  function closeConfirm(returnFocus) {
    var box = panel();
    if (box) box.hidden = true;
    var form = pendingForm;
    pendingForm = null;
    if (returnFocus && form) {
      var button = form.querySelector("button[type=submit]");
      if (button) button.focus();
    }
  }

  function openConfirm(form) {
    var box = panel();
    if (!box) return false;
    pendingForm = form;
    document.getElementById("confirm-label").textContent = form.dataset.label || "";
    document.getElementById("confirm-preview").textContent = form.dataset.preview || "";
    box.hidden = false;
    document.getElementById("confirm-yes").focus();
    return true;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("move-form")) return;
    if (form.dataset.confirmed === "1") {
      // One submission only: a double tap must not send the move twice.
      form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      return;
    }
    var controls = form.closest("#controls");
    if (!controls || controls.dataset.confirm !== "1") return;
    if (openConfirm(form)) event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target || !target.id) return;
    if (target.id === "confirm-yes" && pendingForm) {
      var form = pendingForm;
      form.dataset.confirmed = "1";
      closeConfirm(false);
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    } else if (target.id === "confirm-no") {
      closeConfirm(true);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && pendingForm) closeConfirm(true);
  });
})();
