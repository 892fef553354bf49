// Replay viewer: slider, buttons, arrow keys, autoplay and the move list over
// /games/<id>/replay/<seq>/ fragments. The chart's cursor and legend follow the frame shown.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var last = parseInt(root.dataset.last, 10);
  var base = root.dataset.frameUrl;
  // ?as=<seat>: a finished game watched through one seat's eyes, in every frame.
  var asSeat = root.dataset.as ? "as=" + encodeURIComponent(root.dataset.as) : "";
  var slider = document.getElementById("replay-slider");
  var pos = document.getElementById("replay-pos");
  var frame = document.getElementById("replay-frame");
  var playButton = document.getElementById("replay-play");
  var cursor = document.getElementById("chart-cursor");
  var xsNode = document.getElementById("chart-xs");
  var xs = xsNode ? JSON.parse(xsNode.textContent) : [];
  var seriesNode = document.getElementById("chart-series");
  var series = seriesNode ? JSON.parse(seriesNode.textContent) : [];
  var legend = document.getElementById("chart-legend");
  var chartSeq = document.getElementById("chart-seq");
  var moveList = document.getElementById("move-list");
  var current = parseInt(slider.value, 10);
  var timer = null;
  var pending = null;

  function moveCursor(seq) {
    var index = Math.min(Math.max(seq - 1, 0), Math.max(xs.length - 1, 0));
    if (cursor && xs.length) {
      cursor.setAttribute("x1", xs[index]);
      cursor.setAttribute("x2", xs[index]);
    }
    // The legend reads the values under the cursor, not the final ones.
    if (legend && series.length) {
      var row = series[Math.min(index, series.length - 1)];
      legend.querySelectorAll("li[data-seat]").forEach(function (item) {
        var value = item.querySelector(".legend-value");
        if (value) value.textContent = String(row[parseInt(item.dataset.seat, 10)]);
      });
    }
    if (chartSeq) chartSeq.textContent = String(seq);
  }

  function markMove(seq) {
    if (!moveList) return;
    var old = moveList.querySelector("[aria-current]");
    if (old) old.removeAttribute("aria-current");
    var link = moveList.querySelector('.move-link[data-seq="' + seq + '"]');
    if (!link) return;
    link.setAttribute("aria-current", "step");
    // Keep the current move in sight inside the list without scrolling the page.
    var list = link.closest("ol");
    if (list) {
      var top = link.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - link.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }
  }

  function show(seq) {
    seq = Math.min(Math.max(seq, 1), last);
    current = seq;
    slider.value = String(seq);
    pos.textContent = String(seq);
    moveCursor(seq);
    markMove(seq);
    if (pending) pending.abort();
    var controller = new AbortController();
    pending = controller;
    frame.setAttribute("aria-busy", "true");
    fetch(base + seq + "/" + (asSeat ? "?" + asSeat : ""), { signal: controller.signal, headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        if (current !== seq) return;
        frame.innerHTML = html;
        frame.removeAttribute("aria-busy");
        if (window.history && window.history.replaceState) {
          window.history.replaceState(null, "", "?seq=" + seq + (asSeat ? "&" + asSeat : ""));
        }
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") return;
        frame.removeAttribute("aria-busy");
        stop();
      });
  }

  function stop() {
    if (timer) window.clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-label", "Play");
  }

  function play() {
    if (timer) { stop(); return; }
    if (current >= last) show(1);
    playButton.textContent = "❚❚ Pause";
    playButton.setAttribute("aria-label", "Pause");
    timer = window.setInterval(function () {
      if (current >= last) { stop(); return; }
      show(current + 1);
    }, 700);
  }

  document.getElementById("replay-first").addEventListener("click", function () { stop(); show(1); });
  document.getElementById("replay-prev").addEventListener("click", function () { stop(); show(current - 1); });
  document.getElementById("replay-next").addEventListener("click", function () { stop(); show(current + 1); });
  document.getElementById("replay-last").addEventListener("click", function () { stop(); show(last); });
  playButton.addEventListener("click", play);
  if (moveList) {
    moveList.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest(".move-link");
      if (!link) return;
      event.preventDefault();
      stop();
      show(parseInt(link.dataset.seq, 10));
    });
  }
  slider.addEventListener("input", function () {
    stop();
    var seq = parseInt(slider.value, 10);
    pos.textContent = String(seq);
    moveCursor(seq);
  });
  slider.addEventListener("change", function () { show(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (event) {
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" && event.target !== slider) return;
    if (tag === "TEXTAREA" || tag === "SELECT") return;
    var handled = true;
    if (event.key === "ArrowRight") { stop(); show(current + 1); }
    else if (event.key === "ArrowLeft") { stop(); show(current - 1); }
    else if (event.key === "Home") { stop(); show(1); }
    else if (event.key === "End") { stop(); show(last); }
    else if (event.key === " " && tag !== "BUTTON" && tag !== "A") { play(); }
    else handled = false;
    if (handled) event.preventDefault();
  });
  moveCursor(current);
  markMove(current);
})();
