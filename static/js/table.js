// The table: each move is confirmed with its preview before it is sent (one extra tap; the
// player can switch it off in the profile), and the player keeps their place when the live
// fragment htmx swaps in (static/js/live.js polls it) lands while they are choosing.
(function () {
  "use strict";
  var pendingForm = null;
  var pendingButton = null;

  function panel() { return document.getElementById("confirm-move"); }

  function isMoveForm(form) {
    return !!(form && form.closest && form.closest("#controls") &&
      /\/act\/$/.test(form.getAttribute("action") || ""));
  }

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
  function openConfirm(form, button, takeFocus) {
    var box = panel();
    if (!box) return false;
    pendingForm = form;
    pendingButton = button || null;
    var source = button && button.dataset.label ? button.dataset : form.dataset;
    var label = source.label || (button ? button.textContent.trim() : "");
    document.getElementById("confirm-label").textContent = label;
    document.getElementById("confirm-preview").textContent = source.preview || "";
    // A move the rules make final says so, and why, before it is confirmed.
    var final = document.getElementById("confirm-final");
    if (final) { final.textContent = source.final || ""; final.hidden = !source.final; }
    box.hidden = false;
    if (takeFocus !== false) document.getElementById("confirm-yes").focus();
    return true;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    // Every form of the move controls that submits a move, whatever the table calls it.
    if (!isMoveForm(form)) return;
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
    if (openConfirm(form, event.submitter)) {
      event.preventDefault();
      setNews("");
      setConfirmNews("", false);
    }
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
    } else if (target.id === "table-news-dismiss") {
      setNews("");
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && pendingForm) closeConfirm(true);
  });

  // ---- Keeping the player's place through live updates ----
  //
  // The whole fragment is swapped, controls included, and the player's place is carried over
  // by stable keys, rather than pausing the controls while the player chooses: the forms must
  // carry the fresh position (where one seat moves at a time, any event, such as another seat
  // handed to a bot, makes the old seq stale, and the service would refuse the move), and only
  // the fresh fragment knows whether the move being confirmed is still offered. So the move
  // being confirmed is found again by its action (the JSON its form posts) and its confirm
  // step reopened on the fresh form: confirming then posts the seq the player now sees, with
  // the move checked against it. (Where several seats decide at once the service would also
  // accept the older seq, since only other seats' decisions came since; the fresh one is
  // right everywhere.) Open details elements and scrolled lists are found by their id or
  // data-keep, the focused control by its id, data-keep or action, typed text by its field's
  // id. When the update changed the player's choices, the table says so in words: in the
  // confirm step, at the top of the controls and in the news box outside the fragment, which
  // is a live region that no swap replaces.

  function keyOf(el) {
    if (!el || el.nodeType !== 1) return null;
    if (el.id) return "#" + el.id;
    if (el.dataset && el.dataset.keep) return "keep:" + el.dataset.keep;
    return null;
  }

  function findKey(root, key) {
    if (!key) return null;
    if (key.charAt(0) === "#") {
      var byId = document.getElementById(key.slice(1));
      return byId && root.contains(byId) ? byId : null;
    }
    if (key.indexOf("keep:") === 0) {
      var wanted = key.slice(5);
      var all = root.querySelectorAll("[data-keep]");
      for (var i = 0; i < all.length; i++) if (all[i].dataset.keep === wanted) return all[i];
    }
    return null;
  }

  // Every move the controls offer: its action (the key), its form and the button that sends it.
  function offered(root) {
    var controls = root.querySelector("#controls");
    var moves = [];
    if (!controls) return moves;
    controls.querySelectorAll("form").forEach(function (form) {
      if (!isMoveForm(form)) return;
      var input = form.querySelector("input[name=action]");
      if (input) {
        moves.push({ key: input.value, form: form, button: form.querySelector("button[type=submit]") });
        return;
      }
      form.querySelectorAll("button[name=action]").forEach(function (button) {
        moves.push({ key: button.value, form: form, button: button });
      });
    });
    return moves;
  }

  function moveKey(form, button) {
    if (button && button.name === "action") return button.value;
    var input = form && form.querySelector("input[name=action]");
    return input ? input.value : null;
  }

  function findMove(moves, key) {
    for (var i = 0; i < moves.length; i++) if (moves[i].key === key) return moves[i];
    return null;
  }

  function keysOf(moves) {
    return moves.map(function (m) { return m.key; }).sort().join("\n");
  }

  function focusKey(live) {
    var el = document.activeElement;
    if (!el || !live.contains(el)) return null;
    var form = el.closest && el.closest("form");
    if (el.tagName === "BUTTON" && isMoveForm(form)) return "move:" + moveKey(form, el);
    if (el.tagName === "SUMMARY") {
      var details = keyOf(el.parentElement);
      if (details) return "summary:" + details;
    }
    return keyOf(el);
  }

  function findFocus(live, key, moves) {
    if (!key) return null;
    if (key.indexOf("move:") === 0) {
      var move = findMove(moves, key.slice(5));
      return move && move.button;
    }
    if (key.indexOf("summary:") === 0) {
      var details = findKey(live, key.slice(8));
      return details && details.querySelector(":scope > summary");
    }
    return findKey(live, key);
  }

  // A scrolled list keeps the item at its top where it was (the log grows at the top, newest
  // first); one scrolled to its end stays at the end (the chat grows there).
  function scrollState(el) {
    var box = el.getBoundingClientRect();
    var state = { key: keyOf(el), top: el.scrollTop, left: el.scrollLeft, item: null, offset: 0,
      atEnd: el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 2 };
    for (var i = 0; i < el.children.length; i++) {
      var child = el.children[i];
      var r = child.getBoundingClientRect();
      var itemKey = child.getAttribute("value") || keyOf(child);
      if (r.bottom > box.top && itemKey) {
        state.item = itemKey;
        state.offset = r.top - box.top;
        break;
      }
    }
    return state;
  }

  function restoreScroll(el, state) {
    if (state.atEnd) { el.scrollTop = el.scrollHeight; return; }
    el.scrollTop = state.top;
    el.scrollLeft = state.left;
    if (!state.item) return;
    for (var i = 0; i < el.children.length; i++) {
      var child = el.children[i];
      if ((child.getAttribute("value") || keyOf(child)) === state.item) {
        el.scrollTop += (child.getBoundingClientRect().top - el.getBoundingClientRect().top) - state.offset;
        return;
      }
    }
  }

  function setNews(text) {
    var news = document.getElementById("table-news");
    var box = document.getElementById("table-news-box");
    var dismiss = document.getElementById("table-news-dismiss");
    if (!news || !box) return;
    news.textContent = text;
    box.classList.toggle("has-news", !!text);
    if (dismiss) dismiss.hidden = !text;
  }

  function setConfirmNews(text, changed) {
    var line = document.getElementById("confirm-news");
    if (!line) return;
    line.textContent = text;
    line.hidden = !text;
    line.classList.toggle("changed", !!changed);
  }

  function sentence(text) {
    text = (text || "").trim();
    return text && !/[.!?…]$/.test(text) ? text + "." : text;
  }

  var saved = null;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var live = event.detail && event.detail.target;
    if (!live || live.id !== "live") return;
    var box = panel();
    var confirmOpen = !!(box && !box.hidden && pendingForm);
    var news = document.getElementById("confirm-news");
    saved = {
      seq: live.dataset.seq || "",
      moves: keysOf(offered(live)),
      pending: confirmOpen ? moveKey(pendingForm, pendingButton) : null,
      pendingLabel: confirmOpen ? document.getElementById("confirm-label").textContent : "",
      confirmNews: news && !news.hidden ? news.textContent : "",
      confirmNewsChanged: !!(news && news.classList.contains("changed")),
      focus: focusKey(live),
      focusInConfirm: !!(box && box.contains(document.activeElement)),
      open: [],
      scroll: [],
      fields: [],
      anchor: null,
    };
    live.querySelectorAll("details[open]").forEach(function (d) {
      var key = keyOf(d);
      if (key) saved.open.push(key);
    });
    live.querySelectorAll("[data-keep], [id]").forEach(function (el) {
      if ((el.scrollTop || el.scrollLeft) && keyOf(el)) saved.scroll.push(scrollState(el));
    });
    live.querySelectorAll("input[id], textarea[id]").forEach(function (field) {
      if (field.type === "hidden" || field.value === field.defaultValue) return;
      saved.fields.push({ id: field.id, value: field.value, start: field.selectionStart, end: field.selectionEnd });
    });
    // Whatever the player looks at stays where it is on the screen, though things above it
    // grew or shrank: the confirm step, else the focused control, else the controls.
    var anchorEl = confirmOpen ? box : (document.activeElement && live.contains(document.activeElement) &&
      document.activeElement !== live ? document.activeElement : live.querySelector("#controls"));
    if (anchorEl) {
      saved.anchor = { key: confirmOpen ? "#confirm-move" : (focusKey(live) || keyOf(anchorEl)),
        top: anchorEl.getBoundingClientRect().top };
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var live = event.target;
    if (!live || live.id !== "live" || !saved) return;
    var was = saved;
    saved = null;
    pendingForm = null;
    pendingButton = null;
    var moves = offered(live);

    was.fields.forEach(function (f) {
      var field = document.getElementById(f.id);
      if (!field || !live.contains(field) || field.value !== field.defaultValue) return;
      field.value = f.value;
      if (document.activeElement === field && f.start !== null) {
        try { field.setSelectionRange(f.start, f.end); } catch (e) { /* not a text field */ }
      }
    });
    was.open.forEach(function (key) {
      var details = findKey(live, key);
      if (details && details.tagName === "DETAILS") details.open = true;
    });
    was.scroll.forEach(function (state) {
      var el = findKey(live, state.key);
      if (el) restoreScroll(el, state);
    });

    var moved = was.seq !== (live.dataset.seq || "");
    var changed = was.moves !== keysOf(moves);
    var what = sentence(live.dataset.latest) || "The game moved on.";
    var kept = was.pending !== null ? findMove(moves, was.pending) : null;
    var focusTarget = null;
    if (was.pending !== null && kept) {
      openConfirm(kept.form, kept.button, false);
      if (!moved) {
        setConfirmNews(was.confirmNews, was.confirmNewsChanged);
      } else if (changed) {
        setConfirmNews(what + " Your choices changed; this move is still possible.", true);
        setNews(what + " Your choices changed; the move you are confirming is still possible.");
      } else {
        setConfirmNews(what + " Nothing changed for this move.", false);
      }
      if (was.focusInConfirm) focusTarget = findKey(live, was.focus) || document.getElementById("confirm-yes");
    } else if (was.pending !== null) {
      setNews(what + " Your choices changed: “" + was.pendingLabel + "” is no longer possible." +
        (moves.length ? " Choose again." : " It is not your move now."));
      focusTarget = document.getElementById("table-news");
    } else if (moved && changed && was.moves) {
      setNews(what + " Your choices changed." + (moves.length ? "" : " It is not your move now."));
    }
    // Where no confirm step says it, the controls do, above the (new) choices.
    if (moved && changed && was.moves && moves.length && !kept) {
      var controls = live.querySelector("#controls");
      var heading = controls && controls.querySelector("h2");
      var note = document.createElement("p");
      note.className = "controls-news";
      note.id = "controls-news";
      note.textContent = "Your choices changed: " + what;
      if (heading) heading.insertAdjacentElement("afterend", note);
      else if (controls) controls.insertBefore(note, controls.firstChild);
    }

    if (!focusTarget && was.focus && !was.focusInConfirm) focusTarget = findFocus(live, was.focus, moves);
    if (focusTarget) focusTarget.focus({ preventScroll: true });

    if (was.anchor) {
      var anchorEl = was.anchor.key === "#confirm-move" ? (kept ? panel() : null)
        : (findFocus(live, was.anchor.key, moves) || findKey(live, was.anchor.key));
      if (anchorEl && anchorEl.getClientRects().length) {
        window.scrollBy(0, anchorEl.getBoundingClientRect().top - was.anchor.top);
      }
    }
    if (focusTarget && focusTarget.id === "table-news") focusTarget.scrollIntoView({ block: "nearest" });
  });
})();
