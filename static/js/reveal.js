/* The projector's reveal, a page at a time. A turn's results seldom fit the box at a size the room
   can read from five metres, so its entries (each result and order, as the server rendered them)
   are split into pages of whole entries that fit, shown in turn with "page 2 of 4" beside the
   heading. An entry taller than the box (the list of who passed, under long names) is shown a
   box at a time, cut between lines. Entries are only hidden and shown, never dropped or
   reordered.

   A push that re-renders the same turn, or a box that changes size, keeps the entry the room is
   reading on screen; a new turn starts at its first page. */
(function () {
  "use strict";
  // A page stays up long enough to read its dice aloud: a few seconds an entry.
  var SECONDS_PER_ENTRY = 3, MIN_SECONDS = 8;
  // Each page: [first entry, entry after the last, how far down the first entry it starts].
  var pages = [], page = 0, turn = null, timer = null;

  function section() { return document.getElementById("reveal"); }

  function entries(el) {
    return Array.prototype.slice.call(el.querySelectorAll(".turn-tally > li, .results > li, .orders-revealed > li"));
  }

  // The lists go in a window under the heading that clips them, so that a tall entry can be
  // moved up inside it without passing over the heading.
  function windowOf(el) {
    var win = el.querySelector(".reveal-window");
    var lists = el.querySelectorAll(".turn-tally, .results, .orders-revealed");
    if (!win && lists.length) {
      win = document.createElement("div");
      win.className = "reveal-window";
      lists[0].parentNode.insertBefore(win, lists[0]);
      lists.forEach(function (list) { win.appendChild(list); });
    }
    return win;
  }

  function pager(el) {
    var heading = el.querySelector("h2");
    if (!heading) return null;
    var mark = heading.querySelector(".reveal-page");
    if (!mark) {
      mark = document.createElement("span");
      mark.className = "reveal-page";
      heading.appendChild(mark);
    }
    return mark;
  }

  function show(el) {
    var items = entries(el), mark = pager(el), win = windowOf(el);
    var current = pages[page] || [0, items.length, 0];
    items.forEach(function (item, i) { item.hidden = i < current[0] || i >= current[1]; });
    // A list with nothing on this page takes no room either.
    el.querySelectorAll(".turn-tally, .results, .orders-revealed").forEach(function (list) {
      list.hidden = !list.querySelector(":scope > li:not([hidden])");
    });
    if (win) win.scrollTop = current[2];
    if (mark) {
      mark.hidden = pages.length < 2;
      mark.textContent = (el.dataset.pager || "{n}/{total}")
        .replace("{n}", page + 1).replace("{total}", pages.length);
    }
    el.dataset.page = page + 1;
    el.dataset.pages = pages.length;
  }

  function lineHeight(item) {
    var style = getComputedStyle(item);
    return parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
  }

  // Pages from the entries' places with everything shown: as many whole entries as fit the
  // window; an entry taller than it gets pages of its own, each a window's worth of whole lines.
  function measure(el) {
    var items = entries(el), win = windowOf(el), found = [];
    var mark = pager(el);
    if (mark) { mark.hidden = false; mark.textContent = "0/0"; }
    if (!win || !items.length) return found;
    items.forEach(function (item) { item.hidden = false; });
    win.querySelectorAll(".turn-tally, .results, .orders-revealed").forEach(function (list) { list.hidden = false; });
    win.scrollTop = 0;
    var room = win.clientHeight - 2, start = 0, startY = items[0].getBoundingClientRect().top;
    items.forEach(function (item, i) {
      var r = item.getBoundingClientRect();
      if (i > start && r.bottom - startY > room) {
        found.push([start, i, 0]);
        start = i;
        startY = r.top;
      }
      if (r.height > room) {
        if (i > start) found.push([start, i, 0]);
        var step = Math.max(1, Math.floor(room / lineHeight(item))) * lineHeight(item);
        for (var shift = 0; shift < r.height - 1; shift += step) found.push([i, i + 1, shift]);
        start = i + 1;
        startY = i + 1 < items.length ? items[i + 1].getBoundingClientRect().top : 0;
      }
    });
    if (start < items.length) found.push([start, items.length, 0]);
    return found;
  }

  function schedule() {
    clearTimeout(timer);
    if (pages.length < 2) return;
    var shown = pages[page][1] - pages[page][0];
    timer = setTimeout(function () {
      page = (page + 1) % pages.length;
      var el = section();
      if (el) { show(el); schedule(); }
    }, Math.max(MIN_SECONDS, shown * SECONDS_PER_ENTRY) * 1000);
  }

  function layout() {
    var el = section();
    if (!el) return;
    var now = el.dataset.turn;
    var reading = now === turn && pages[page] ? pages[page] : [0, 0, 0];
    pages = measure(el);
    page = 0;
    pages.forEach(function (p, i) {
      if (p[0] <= reading[0] && reading[0] < p[1] && p[2] <= reading[2]) page = i;
    });
    turn = now;
    show(el);
    schedule();
  }

  // Laid out again when the box is a new one (a push re-rendered it) or changes size (the
  // ready list or a GM message above it came or went); never on its content, which paging changes.
  var watched = null, size = null;
  var observer = new ResizeObserver(function () {
    var el = section();
    if (!el) return;
    var r = el.getBoundingClientRect(), now = Math.round(r.width) + "x" + Math.round(r.height);
    if (now !== size) { size = now; layout(); }
  });

  function watch() {
    var el = section();
    if (!el || el === watched) return;
    watched = el;
    size = null;
    observer.disconnect();
    observer.observe(el);
  }

  document.addEventListener("DOMContentLoaded", function () {
    watch();
    document.body.addEventListener("htmx:afterSettle", watch);
    document.body.addEventListener("htmx:oobAfterSwap", watch);
  });
})();
