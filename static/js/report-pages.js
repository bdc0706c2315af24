/* The after-action report on the projector: a screen nobody scrolls. Its parts (headings,
   paragraphs, each list item, each ship's card, each chart) are split into pages of whole parts
   that fit the window, shown in turn with "page 2 of 5" in a corner; a heading never ends a page
   (it goes with what it heads). A part taller than the window is shown alone. Parts are only
   hidden and shown, never dropped or reordered. */
(function () {
  "use strict";
  var SECONDS_PER_PART = 2, MIN_SECONDS = 8;
  var PARTS = "main.report :is(h1, h2, h3, h4, p, li, tbody tr, figure):not(figure *, li *)";
  var HOLDERS = "main.report :is(ul, ol, table, .report-charts, section)";
  var pages = [], page = 0, timer = null, mark = null;

  function parts() { return Array.prototype.slice.call(document.querySelectorAll(PARTS)); }

  function show() {
    var all = parts(), current = pages[page] || [0, all.length];
    all.forEach(function (part, i) { part.hidden = i < current[0] || i >= current[1]; });
    // A list, a table or a section with nothing on this page takes no room either.
    var holders = Array.prototype.slice.call(document.querySelectorAll(HOLDERS)).reverse();
    holders.forEach(function (holder) { holder.hidden = false; });
    holders.forEach(function (holder) {
      holder.hidden = !all.some(function (part, i) {
        return !part.hidden && holder.contains(part);
      });
    });
    mark.hidden = pages.length < 2;
    mark.textContent = (mark.dataset.pager || "{n}/{total}")
      .replace("{n}", page + 1).replace("{total}", pages.length);
    document.body.dataset.page = page + 1;
    document.body.dataset.pages = pages.length;
  }

  function measure() {
    var all = parts(), found = [], start = 0;
    all.forEach(function (part) { part.hidden = false; });
    document.querySelectorAll(HOLDERS).forEach(function (holder) { holder.hidden = false; });
    window.scrollTo(0, 0);
    var startY = all.length ? all[0].getBoundingClientRect().top : 0;
    // Below the page's own margin at the top, above the page number at the bottom.
    var room = window.innerHeight - startY - mark.getBoundingClientRect().height - 8;
    for (var i = 0; i < all.length; i++) {
      if (i > start && all[i].getBoundingClientRect().bottom - startY > room) {
        var end = i;
        // A heading goes with what follows it.
        while (end - 1 > start && /^H[1-4]$/.test(all[end - 1].tagName)) end--;
        found.push([start, end]);
        start = end;
        startY = all[start].getBoundingClientRect().top;
        i = start;
      }
    }
    if (start < all.length) found.push([start, all.length]);
    return found;
  }

  function schedule() {
    clearTimeout(timer);
    if (pages.length < 2) return;
    var shown = pages[page][1] - pages[page][0];
    timer = setTimeout(function () {
      page = (page + 1) % pages.length;
      show();
      schedule();
    }, Math.max(MIN_SECONDS, shown * SECONDS_PER_PART) * 1000);
  }

  function layout() {
    pages = measure();
    page = Math.min(page, pages.length - 1);
    show();
    schedule();
  }

  document.addEventListener("DOMContentLoaded", function () {
    mark = document.querySelector(".report-page");
    if (!mark) return;
    layout();
    window.addEventListener("resize", layout);
  });
})();
