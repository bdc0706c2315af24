/* The after-action report on the projector: a screen nobody scrolls. Its parts (headings,
   paragraphs, each list item, each ship's card, each chart) are split into pages of whole parts
   that fit the window as the page is drawn, shown in turn with "page 2 of 5" in a corner. A
   heading never ends a page (it goes with what it heads), and a page never ends inside a row of
   a list laid out in columns. A part taller than the window is shown alone. Parts are only
   hidden and shown, never dropped or reordered. */
(function () {
  "use strict";
  var SECONDS_PER_PART = 2, MIN_SECONDS = 8;
  var PARTS = "main.report :is(h1, h2, h3, h4, p, li, tbody tr, figure):not(figure *, li *)";
  var HOLDERS = "main.report :is(ul, ol, table, .report-charts, section)";
  var pages = [], page = 0, timer = null, mark = null;

  function parts() { return Array.prototype.slice.call(document.querySelectorAll(PARTS)); }

  // Shows parts [from, to) and, of the lists, tables and sections, those holding one of them.
  function only(from, to) {
    var all = parts();
    all.forEach(function (part, i) { part.hidden = i < from || i >= to; });
    // A list, a table or a section with nothing on this page takes no room either.
    var holders = Array.prototype.slice.call(document.querySelectorAll(HOLDERS)).reverse();
    holders.forEach(function (holder) { holder.hidden = false; });
    holders.forEach(function (holder) {
      holder.hidden = !all.some(function (part, i) {
        return !part.hidden && holder.contains(part);
      });
    });
    return all;
  }

  function show() {
    var current = pages[page] || [0, parts().length];
    only(current[0], current[1]);
    mark.hidden = pages.length < 2;
    mark.textContent = (mark.dataset.pager || "{n}/{total}")
      .replace("{n}", page + 1).replace("{total}", pages.length);
    document.body.dataset.page = page + 1;
    document.body.dataset.pages = pages.length;
  }

  // Each page laid out as it will be shown (what it leaves out takes no room, so it starts at the
  // top), and ended before the first part that runs under the page number.
  function measure() {
    var found = [], start = 0, count = parts().length;
    mark.hidden = false;
    mark.textContent = "0/0";
    var limit = window.innerHeight - mark.getBoundingClientRect().height - 8;
    window.scrollTo(0, 0);
    while (start < count) {
      var all = only(start, count), end = start + 1;
      while (end < count && all[end].getBoundingClientRect().bottom <= limit) end++;
      if (end < count) {
        // A page ends with a row of a list laid out in columns, never within one.
        var top = all[end].getBoundingClientRect().top;
        while (end - 1 > start && Math.abs(all[end - 1].getBoundingClientRect().top - top) < 1) end--;
        // A heading goes with what follows it.
        while (end - 1 > start && /^H[1-4]$/.test(all[end - 1].tagName)) end--;
      }
      found.push([start, end]);
      start = end;
    }
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
