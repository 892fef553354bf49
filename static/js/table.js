// The table: each move is confirmed with its preview before it is sent (one extra tap; the
// player can switch it off in the profile), and the live fragment htmx swaps in is announced.
(function () {
  "use strict";
  var pendingForm = null;
  var pendingButton = null;

  function panel() { return document.getElementById("confirm-move"); }

  function closeConfirm(returnFocus) {
    var box = panel();
    if (box) box.hidden = true;
    var form = pendingForm;
    var button = pendingButton || (form && form.querySelector("button[type=submit]"));
    pendingForm = null;
    pendingButton = null;
    if (returnFocus && button) button.focus();
  }

  // A form may carry one move (its data-label and data-preview) or, as a stack's form does in
  // some tables, one move per button (the button pressed names it).
  function openConfirm(form, button) {
    var box = panel();
    if (!box) return false;
    pendingForm = form;
    pendingButton = button || null;
    var source = button && button.dataset.label ? button.dataset : form.dataset;
    var label = source.label || (button ? button.textContent.trim() : "");
    document.getElementById("confirm-label").textContent = label;
    document.getElementById("confirm-preview").textContent = source.preview || "";
    box.hidden = false;
    document.getElementById("confirm-yes").focus();
    return true;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    // Every form of the move controls that submits a move, whatever the table calls it.
    if (!form.closest || !form.closest("#controls") || !/\/act\/$/.test(form.getAttribute("action") || "")) return;
    if (form.dataset.confirmed === "1") {
      // One submission only: a double tap must not send the move twice. Disabled after this
      // event, since a disabled button's value would not be sent with the form.
      window.setTimeout(function () {
        form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      }, 0);
      return;
    }
    var controls = form.closest("#controls");
    if (!controls || controls.dataset.confirm !== "1") return;
    if (openConfirm(form, event.submitter)) event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target || !target.id) return;
    if (target.id === "confirm-yes" && pendingForm) {
      var form = pendingForm;
      var button = pendingButton;
      form.dataset.confirmed = "1";
      closeConfirm(false);
      // The pressed button goes along: where it carries the action, the move is its value.
      if (form.requestSubmit) form.requestSubmit(button || undefined); else form.submit();
    } else if (target.id === "confirm-no") {
      closeConfirm(true);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && pendingForm) closeConfirm(true);
  });
})();
