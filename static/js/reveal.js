/* The projector's reveal, a page at a time. A turn's results seldom fit the box at a size the room
   can read from five metres, so its entries (each result and order, as the server rendered them)
   are split into pages of whole entries that fit, shown in turn with "page 2 of 4" beside the
   heading. An entry is never cut: one taller than the box (the next turn's ready list and a GM's
   message above it leave it little room) folds the reveal to its heading until there is room.
   Entries are only hidden and shown, never dropped or reordered.

   A push that re-renders the same turn, or a box that changes size, keeps the entry the room is
   reading on screen; a new turn starts at its first page. */
(function () {
  "use strict";
  // The whole turn stays up long enough to read it: a couple of seconds an entry of a line or two,
  // six at least, each page its share by its entries. So the time does not hang on how the pages
  // fall, and the GM's dashboard (static/js/app.js, roomReading) counts the same entries to tell
  // when the room has seen them all.
  var SECONDS_PER_ENTRY = 2, MIN_SECONDS = 6;
  // Each page: [first entry, entry after the last].
  var pages = [], page = 0, turn = null, timer = null;

  function section() { return document.getElementById("reveal"); }

  // While the next turn's orders are open (the ready list is up), the last reveal keeps only
  // what it did to each ship (static/css/display.css hides the rest).
  function entries(el) {
    var ordering = document.querySelector("#ready:not(.empty)");
    return Array.prototype.slice.call(el.querySelectorAll(
      ordering ? ".turn-tally > li" : ".turn-tally > li, .results > li, .orders-revealed > li"));
  }

  // The lists go in a window under the heading that clips them: what the room reads is in it.
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
    var current = pages[page] || [0, items.length];
    items.forEach(function (item, i) { item.hidden = i < current[0] || i >= current[1]; });
    // A list with nothing on this page takes no room either.
    el.querySelectorAll(".turn-tally, .results, .orders-revealed").forEach(function (list) {
      list.hidden = !list.querySelector(":scope > li:not([hidden])");
    });
    if (mark) {
      mark.hidden = pages.length < 2;
      mark.textContent = (el.dataset.pager || "{n}/{total}")
        .replace("{n}", page + 1).replace("{total}", pages.length);
    }
    el.dataset.page = page + 1;
    el.dataset.pages = pages.length;
  }

  // Pages from the entries' places with everything shown: as many whole entries as fit the
  // window; none while one is taller than the window.
  function measure(el) {
    var items = entries(el), win = windowOf(el), found = [];
    var mark = pager(el);
    if (mark) { mark.hidden = false; mark.textContent = "0/0"; }
    if (!win || !items.length) return found;
    items.forEach(function (item) { item.hidden = false; });
    win.querySelectorAll(".turn-tally, .results, .orders-revealed").forEach(function (list) { list.hidden = false; });
    var room = win.clientHeight - 2, start = 0, startY = items[0].getBoundingClientRect().top;
    var tallest = Math.max.apply(null, items.map(function (item) { return item.getBoundingClientRect().height; }));
    el.classList.toggle("folded", tallest > room);
    if (tallest > room) return [[0, 0]];
    items.forEach(function (item, i) {
      var r = item.getBoundingClientRect();
      if (i > start && r.bottom - startY > room) {
        found.push([start, i]);
        start = i;
        startY = r.top;
      }
    });
    if (start < items.length) found.push([start, items.length]);
    return found;
  }

  function schedule() {
    clearTimeout(timer);
    if (pages.length < 2) return;
    var shown = pages[page][1] - pages[page][0], all = pages[pages.length - 1][1];
    timer = setTimeout(function () {
      page = (page + 1) % pages.length;
      var el = section();
      if (el) { show(el); schedule(); }
    }, Math.max(MIN_SECONDS, all * SECONDS_PER_ENTRY) * 1000 * shown / all);
  }

  function layout() {
    var el = section();
    if (!el) return;
    var now = el.dataset.turn;
    var reading = now === turn && pages[page] ? pages[page] : [0, 0];
    pages = measure(el);
    page = 0;
    pages.forEach(function (p, i) {
      if (p[0] <= reading[0] && reading[0] < p[1]) page = i;
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
