/* The scenario editor's zone map, drawn (templates/_editor_scenario.html): drag a zone to place
   it, drag from its outer ring to another zone to link the two, click a link to remove it.

   The form's fields hold the map: each zone's x and y, and each link ticked once, on the first
   of its two zones (app/web/editor_form.py). The drawing is made from those fields and only
   writes them, so a save goes through the same checks, their errors stand beside the same
   fields, and the fields stay the way to edit the map by keyboard, by screen reader or without
   JavaScript. Pointer events serve mouse, pen and touch alike. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var BODY = 6; // a zone's inner disc: drag it to move the zone
  var RING = 10; // its outer ring: drag from it to draw a link

  function init() {
    var box = document.getElementById("zone-draw");
    var form = document.getElementById("item-form");
    if (!box || !form) return;
    var svg = box.querySelector("svg");
    var width = Number(box.dataset.width);
    var height = Number(box.dataset.height);
    var drag = null; // {kind: "move" | "link", id, dx, dy, at: {x, y}}
    box.hidden = false;

    function field(name) {
      return form.querySelector('[name="' + CSS.escape(name) + '"]');
    }

    function number(input, fallback) {
      var value = input ? parseInt(input.value, 10) : NaN;
      return isNaN(value) ? fallback : value;
    }

    // The zones as the form has them now: id, name, place, terrain, whether a field is in error.
    function zones() {
      var found = [];
      form.querySelectorAll('.row-box[id^="f-map-zones-"]').forEach(function (row) {
        var at = "map.zones[" + row.id.slice("f-map-zones-".length) + "]";
        var id = field(at + ".id");
        if (!id) return;
        var name = field(at + ".name");
        var terrain = field(at + ".terrain");
        found.push({
          id: id.value,
          at: at,
          name: name && name.value.trim() ? name.value.trim() : id.value,
          x: number(field(at + ".x|int"), width / 2),
          y: number(field(at + ".y|int"), height / 2),
          terrain: terrain ? terrain.value : "open",
          error: !!row.querySelector(".field-error"),
        });
      });
      return found;
    }

    // A link's box: on the first of its two zones, naming the other (either way round).
    function linkBox(list, a, b) {
      for (var i = 0; i < list.length; i++) {
        var here = list[i], other = here.id === a ? b : here.id === b ? a : null;
        if (other === null) continue;
        var tick = form.querySelector(
          'input[type=checkbox][name="' + CSS.escape(here.at + ".touches|list") + '"][value="' +
            CSS.escape(other) + '"]'
        );
        if (tick) return tick;
      }
      return null;
    }

    function links(list) {
      var found = [];
      list.forEach(function (zone) {
        form.querySelectorAll(
          'input[type=checkbox][name="' + CSS.escape(zone.at + ".touches|list") + '"]:checked'
        ).forEach(function (tick) {
          found.push([zone.id, tick.value]);
        });
      });
      return found;
    }

    function changed(input) {
      // As if typed: the preview (htmx, "change from:#item-form") follows.
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }

    function place(zone, x, y) {
      var fx = field(zone.at + ".x|int"), fy = field(zone.at + ".y|int");
      fx.value = String(Math.max(0, Math.min(width, Math.round(x))));
      fy.value = String(Math.max(0, Math.min(height, Math.round(y))));
      return [fx, fy];
    }

    function link(a, b, on) {
      var tick = linkBox(zones(), a, b);
      if (tick && tick.checked !== on) {
        tick.checked = on;
        changed(tick);
      }
    }

    function point(event) {
      var p = new DOMPoint(event.clientX, event.clientY).matrixTransform(
        svg.getScreenCTM().inverse()
      );
      return { x: p.x, y: p.y };
    }

    function zoneAt(list, p) {
      for (var i = list.length - 1; i >= 0; i--) {
        if (Math.hypot(list[i].x - p.x, list[i].y - p.y) <= RING) return list[i];
      }
      return null;
    }

    function make(tag, attrs, parent) {
      var el = document.createElementNS(NS, tag);
      Object.keys(attrs).forEach(function (k) {
        el.setAttribute(k, attrs[k]);
      });
      if (parent) parent.appendChild(el);
      return el;
    }

    function words(template, values) {
      return template.replace(/\{(\w+)\}/g, function (_, k) {
        return values[k];
      });
    }

    function draw() {
      var list = zones();
      var byId = {};
      list.forEach(function (z) {
        byId[z.id] = z;
      });
      var focused = document.activeElement && svg.contains(document.activeElement)
        ? document.activeElement.getAttribute("data-key")
        : null;
      svg.replaceChildren();
      make("rect", { x: 0, y: 0, width: width, height: height, class: "zone-draw-bg" }, svg);
      links(list).forEach(function (pair) {
        var a = byId[pair[0]], b = byId[pair[1]];
        if (!a || !b) return;
        var ends = { x1: a.x, y1: a.y, x2: b.x, y2: b.y };
        make("line", Object.assign({ class: "zone-draw-link" }, ends), svg);
        var hit = make(
          "line",
          Object.assign(
            {
              class: "zone-draw-link-hit",
              tabindex: 0,
              role: "button",
              "data-a": a.id,
              "data-b": b.id,
              "data-key": "link:" + a.id + ":" + b.id,
              "aria-label": words(box.dataset.linkWords, { zone: a.name, other: b.name }),
            },
            ends
          ),
          svg
        );
        make("title", {}, hit).textContent = hit.getAttribute("aria-label");
      });
      if (drag && drag.kind === "link" && byId[drag.id]) {
        var from = byId[drag.id];
        make("line", { class: "zone-draw-rubber", x1: from.x, y1: from.y, x2: drag.at.x, y2: drag.at.y }, svg);
      }
      list.forEach(function (z) {
        var g = make(
          "g",
          {
            class: "zone-draw-zone terrain-" + z.terrain + (z.error ? " has-error" : "") +
              (drag && drag.id === z.id ? " dragged" : ""),
            transform: "translate(" + z.x + " " + z.y + ")",
            tabindex: 0,
            "data-zone": z.id,
            "data-key": "zone:" + z.id,
            "aria-label": words(box.dataset.zoneWords, { zone: z.name }),
          },
          svg
        );
        make("circle", { r: RING, class: "zone-draw-ring" }, g);
        make("circle", { r: BODY, class: "zone-draw-body" }, g);
        make("text", { y: RING + 4.5, class: "zone-draw-name" }, g).textContent = z.name;
      });
      if (focused) {
        var again = svg.querySelector('[data-key="' + CSS.escape(focused) + '"]');
        if (again) again.focus();
      }
    }

    svg.addEventListener("pointerdown", function (event) {
      var g = event.target.closest(".zone-draw-zone");
      if (!g || event.button > 0) return;
      var list = zones();
      var zone = list.filter(function (z) {
        return z.id === g.dataset.zone;
      })[0];
      var p = point(event);
      var inRing = Math.hypot(zone.x - p.x, zone.y - p.y) > BODY;
      drag = { kind: inRing ? "link" : "move", id: zone.id, dx: zone.x - p.x, dy: zone.y - p.y, at: p };
      svg.setPointerCapture(event.pointerId);
      event.preventDefault();
      draw();
    });

    svg.addEventListener("pointermove", function (event) {
      if (!drag) return;
      drag.at = point(event);
      if (drag.kind === "move") {
        var zone = zones().filter(function (z) {
          return z.id === drag.id;
        })[0];
        if (zone) place(zone, drag.at.x + drag.dx, drag.at.y + drag.dy);
      }
      draw();
    });

    function end(event) {
      if (!drag) return;
      var done = drag;
      drag = null;
      var list = zones();
      if (done.kind === "link" && event.type === "pointerup") {
        var target = zoneAt(list, point(event));
        if (target && target.id !== done.id) link(done.id, target.id, true);
      } else if (done.kind === "move") {
        var zone = list.filter(function (z) {
          return z.id === done.id;
        })[0];
        if (zone) place(zone, zone.x, zone.y).forEach(changed);
      }
      draw();
    }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);

    function remove(target) {
      if (target.classList && target.classList.contains("zone-draw-link-hit")) {
        link(target.dataset.a, target.dataset.b, false);
        draw();
      }
    }
    svg.addEventListener("click", function (event) {
      remove(event.target);
    });

    // The keyboard: arrows move the focused zone (Shift: further); Enter, Space or Delete on a
    // link removes it.
    var STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    svg.addEventListener("keydown", function (event) {
      var step = STEPS[event.key];
      var g = event.target.closest && event.target.closest(".zone-draw-zone");
      if (step && g) {
        var by = event.shiftKey ? 5 : 1;
        var zone = zones().filter(function (z) {
          return z.id === g.dataset.zone;
        })[0];
        place(zone, zone.x + step[0] * by, zone.y + step[1] * by).forEach(changed);
        event.preventDefault();
        draw();
      } else if (["Enter", " ", "Delete", "Backspace"].indexOf(event.key) >= 0) {
        if (event.target.classList.contains("zone-draw-link-hit")) {
          event.preventDefault();
          remove(event.target);
        }
      }
    });

    // Typed in the fields (a name, a place, a link ticked): the drawing follows.
    form.addEventListener("input", function () {
      if (!drag) draw();
    });
    form.addEventListener("change", function () {
      if (!drag) draw();
    });
    draw();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
