/* Bridge Crew's browser glue: reconnecting, countdowns, card totals, keeping what a player was
   doing when a panel is replaced by a push. No framework; htmx does the talking. */
(function () {
  "use strict";

  /* --- htmx settings ---------------------------------------------------------------------------- */
  // A phone in a dark room should be back within ~3 s of the server returning, not 64 s later.
  htmx.config.wsReconnectDelay = function (retry) {
    return Math.min(3000, 300 * Math.pow(2, retry)) * (0.6 + 0.4 * Math.random());
  };
  // A socket says what the screen shows when it opens (?shown=): one that comes back to a game
  // that has not moved on since is sent nothing again (app/web/live/hub.py, welcome). And in
  // which language the page is (?lang=): its pushes come in that one, whatever the browser
  // would say of itself when it opens a socket.
  htmx.createWebSocket = function (url) {
    var asked = url + (url.indexOf("?") < 0 ? "?" : "&") + "lang=" + encodeURIComponent(document.documentElement.lang || "en");
    if (shownAs) asked += "&shown=" + encodeURIComponent(shownAs);
    var opened = new WebSocket(asked, []);
    opened.binaryType = htmx.config.wsBinaryType;
    return opened;
  };
  // Error responses carry an out-of-band toast: swap them in, still report them as errors.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "4..", swap: true, error: true },
    { code: "5..", swap: false, error: true },
  ];

  var body = document.body;
  // The page's sentences for what this script says (templates/base.html, #bc-words).
  var WORDS = {};
  try { WORDS = JSON.parse(document.getElementById("bc-words").textContent); } catch (err) { /* none */ }
  function say(key, values) {
    var text = WORDS[key] || key;
    Object.keys(values || {}).forEach(function (name) { text = text.split("{" + name + "}").join(values[name]); });
    return text;
  }
  var serverOffset = (parseFloat(body.dataset.now) || Date.now() / 1000) - Date.now() / 1000;
  function now() { return Date.now() / 1000 + serverOffset; }

  /* --- Toasts ----------------------------------------------------------------------------------- */
  var toastTimer = null;
  function showToast(el) {
    el = el || document.getElementById("toast");
    if (!el || !el.textContent.trim()) return;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { el.hidden = true; }, 7000);
  }
  function toast(text) {
    var el = document.getElementById("toast");
    if (!el) return;
    el.className = "toast error";
    el.textContent = text;
    showToast(el);
  }
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("#toast")) e.target.closest("#toast").hidden = true;
  });
  // The GM's section links: scroll here, as the page's <base href> would send "#seats" elsewhere.
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("a[data-jump]");
    var section = link && document.getElementById(link.dataset.jump);
    if (!section) return;
    e.preventDefault();
    section.scrollIntoView({ block: "start" });
    if (section.tabIndex < 0) section.setAttribute("tabindex", "-1");
    section.focus({ preventScroll: true });
  });
  // What cannot be undone asks first, in two clicks: the first arms the button (it turns red and
  // asks again), a second within 5 s acts. Not window.confirm: kiosk browsers block dialogs,
  // and a blocked confirm answers "no" without a word.
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button[data-confirm]");
    if (!button) return;
    if (button.classList.contains("confirming")) {
      setTimeout(function () { disarm(button); }, 0);
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    arm(button, Date.now() + 5000);
  }, true);
  function arm(button, until) {
    button.dataset.label = button.textContent;
    button.textContent = button.dataset.confirm;
    button.classList.add("confirming");
    button.armedUntil = until;
    button.timer = setTimeout(function () { disarm(button); }, Math.max(0, until - Date.now()));
  }
  // A form that makes something new (the GM's "Add a ship") empties once it has worked.
  body.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (e.detail.successful && form.matches && form.matches("form[data-reset]")) form.reset();
  });
  function disarm(button) {
    clearTimeout(button.timer);
    if (!button.classList.contains("confirming")) return;
    button.classList.remove("confirming");
    button.textContent = button.dataset.label;
  }
  body.addEventListener("htmx:sendError", function (e) {
    var config = e.detail.requestConfig;
    if (config && config.verb === "get") return; // a poll or resync: the banner says enough
    toast(say("no_connection"));
  });
  body.addEventListener("htmx:responseError", function (e) {
    var xhr = e.detail.xhr;
    if ((xhr.getResponseHeader("Content-Type") || "").indexOf("json") >= 0) {
      // Refusals from outside the HTML routes (a freed seat, a GM-only route) are {code, message}.
      try { toast(JSON.parse(xhr.responseText).message); return; } catch (err) { /* not JSON after all */ }
    }
    if (xhr.status >= 500) toast(say("server_problem", { status: xhr.status }));
  });

  /* --- Commands: an id per request, forms reset once the server took them ---------------------- */
  function randomId() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes); // randomUUID needs https; the venue LAN is plain http
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  body.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.verb !== "get") e.detail.parameters.command_id = randomId();
  });
  body.addEventListener("htmx:beforeSwap", function (e) {
    staleMessage = false; // until this answer's #bc-version says otherwise
    // A successful form: the server's re-render is the truth now, so drop the typed-in values.
    var form = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("form");
    if (form && e.detail.xhr.status < 400) form.reset();
  });
  body.addEventListener("htmx:beforeRequest", function (e) {
    var config = e.detail.requestConfig;
    if (!config || config.verb === "get") return;
    // A new try makes the last refusal stale: it must not stand beside the order that goes through.
    var old = document.getElementById("toast");
    if (old && old.classList.contains("error")) old.hidden = true;
    // An order taken is the server's: its draft goes. Watched on the request itself, because the
    // push often replaces the form before the answer comes, and htmx's later events fire on it.
    var form = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("form");
    if (form && form.id === "order-form") {
      e.detail.xhr.addEventListener("load", function () { if (this.status < 400) forgetDraft(); });
    }
  });

  /* --- Pushed panels: skip unchanged ones, keep choices in changed ones -------------------------- */
  var lastHtml = {};
  var pending = {};
  // Each push and panel answer starts with #bc-version, the game version its panels show. Pushes
  // carry only the panels that changed, so an htmx answer that arrives after a newer push must
  // not put its older panels back: all of a message older than the screen is skipped.
  var marker = document.getElementById("bc-version");
  var shownVersion = marker ? Number(marker.getAttribute("data-version")) || 0 : 0;
  // The server's name for all of what the screen shows (app/web/render.py, shown_as).
  var shownAs = marker ? marker.getAttribute("data-shown") || "" : "";
  var staleMessage = false;
  body.addEventListener("htmx:wsBeforeMessage", function () { staleMessage = false; });
  function recordPanels() {
    document.querySelectorAll("[hx-swap-oob], main [id]").forEach(function (el) {
      if (el.id && !(el.id in lastHtml)) lastHtml[el.id] = el.outerHTML;
    });
  }
  // A field's identity across a re-render: its form (by id, else by the form's hidden fields,
  // which name what the form acts on, e.g. "SetTrack kestrel hull"), its name, and for boxes and
  // radios its value. Positions would shift when a row is added.
  function formKey(el) {
    var id = el.getAttribute("form");
    if (id) return id;
    var form = el.form;
    if (!form) return "";
    if (form.id) return form.id;
    return Array.prototype.map.call(form.querySelectorAll("input[type=hidden]"), function (h) {
      return h.name + "=" + h.value;
    }).join("&");
  }
  function fieldKey(el) {
    var multi = el.type === "checkbox" || el.type === "radio";
    return formKey(el) + "|" + el.name + "|" + (multi ? el.value : "");
  }
  function defaultOption(select) {
    for (var i = 0; i < select.options.length; i++) if (select.options[i].defaultSelected) return select.options[i];
    return select.options[0];
  }
  function captureState(root) {
    var fields = {};
    root.querySelectorAll("input[name], select[name], textarea[name]").forEach(function (el) {
      if (el.type === "hidden") return;
      if (el.type === "checkbox" || el.type === "radio") {
        if (el.checked !== el.defaultChecked) fields[fieldKey(el)] = el.checked;
      } else if (el.tagName === "SELECT") {
        if (el.options[el.selectedIndex] !== defaultOption(el)) fields[fieldKey(el)] = el.value;
      } else if (el.value !== el.defaultValue) {
        fields[fieldKey(el)] = el.value;
      }
    });
    var open = {};
    root.querySelectorAll("details[id]").forEach(function (d) { open[d.id] = d.open; });
    var focus = root.contains(document.activeElement) && document.activeElement.name ? fieldKey(document.activeElement) : null;
    var scroll = {};
    root.querySelectorAll(".map-scroll, .scroll-keep").forEach(function (s, i) { scroll[i] = s.scrollLeft; });
    var armed = {};  // a Destroy armed for its second click stays armed when its panel is redrawn
    root.querySelectorAll("button.confirming").forEach(function (b) { armed[formKey(b)] = b.armedUntil; });
    return { fields: fields, open: open, focus: focus, scroll: scroll, armed: armed, epoch: root.dataset.epoch };
  }
  function restoreState(root, state) {
    Object.keys(state.open).forEach(function (id) {
      var d = root.querySelector("#" + CSS.escape(id));
      if (d) d.open = state.open[id];
    });
    root.querySelectorAll(".map-scroll, .scroll-keep").forEach(function (s, i) {
      if (i in state.scroll) s.scrollLeft = state.scroll[i];
    });
    root.querySelectorAll("button[data-confirm]").forEach(function (b) {
      var until = state.armed[formKey(b)];
      if (until && until > Date.now()) arm(b, until);
    });
    var fresh = state.epoch !== root.dataset.epoch; // a new turn or phase: values start afresh
    root.querySelectorAll("input[name], select[name], textarea[name]").forEach(function (el) {
      var key = fieldKey(el);
      if (el.disabled) return;
      if (!fresh && key in state.fields) {
        var value = state.fields[key];
        if (el.type === "checkbox" || el.type === "radio") el.checked = value;
        else if (el.tagName !== "SELECT" || Array.prototype.some.call(el.options, function (o) { return o.value === value; })) el.value = value;
      }
      // The field being typed into keeps the focus, typed into yet or not: what the user types
      // next goes where they clicked.
      if (key === state.focus && document.activeElement !== el) el.focus({ preventScroll: true });
    });
  }

  body.addEventListener("htmx:oobBeforeSwap", function (e) {
    var target = e.detail.target;
    var incoming = e.detail.fragment.firstElementChild;
    if (!target.id) return;
    if (target.id === "bc-version" && incoming) {
      var version = Number(incoming.getAttribute("data-version")) || 0;
      staleMessage = version < shownVersion;
      if (!staleMessage) {
        shownVersion = version;
        shownAs = incoming.getAttribute("data-shown") || "";
      }
      e.detail.shouldSwap = false;
      return;
    }
    if (staleMessage && target.id !== "toast") { e.detail.shouldSwap = false; return; }
    // An entry taken out of a list (nothing comes in), or entries put into one: nothing of
    // what is there to keep.
    if (!incoming || incoming.id !== target.id) return;
    var html = incoming.outerHTML;
    if (lastHtml[target.id] === html) { e.detail.shouldSwap = false; return; }
    lastHtml[target.id] = html;
    pending[target.id] = { state: captureState(target), health: target.dataset.health, prompt: target.dataset.prompt };
  });
  var promptUntil = 0, promptScroll = null;  // bringing a new allocation prompt into view
  body.addEventListener("htmx:oobAfterSwap", function (e) {
    var el = e.detail.target && e.detail.target.id ? document.getElementById(e.detail.target.id) : null;
    if (!el) return;
    var before = pending[el.id];
    delete pending[el.id];
    if (el.id === "toast") { showToast(el); return; }
    // A panel drawn whole drew its entries too: what was last swapped into them is gone.
    el.querySelectorAll("[id]").forEach(function (inner) { delete lastHtml[inner.id]; });
    if (before) restoreState(el, before.state);
    // The tab names the screen's station or battle: after a change of position or a move to the
    // next battle (E-EVENING-1), the new one.
    if (el.dataset.title) document.title = el.dataset.title;
    if (el.id === "me" && before && before.health !== "" && el.dataset.health !== "" &&
        Number(el.dataset.health) < Number(before.health)) {
      hit();
    }
    // (Read data-* here, not classes: htmx gives a swapped element its old classes until it settles.)
    if (el.id === "allocation" && before && !before.prompt && el.dataset.prompt) {
      // Engineering has seconds to answer: bring the prompt into view wherever they had scrolled.
      buzz([120, 80, 120]);
      // After the whole push has been swapped in, or later panels would move it away again;
      // and again after any swap in the next two seconds (the answer to the phone's own order
      // may land just after the push that brought the prompt).
      promptUntil = Date.now() + 2000;
    }
    if (Date.now() < promptUntil) {
      clearTimeout(promptScroll);
      promptScroll = setTimeout(function () {
        var prompt = document.getElementById("allocation");
        if (prompt && prompt.dataset.prompt) prompt.scrollIntoView({ block: "start" });
      }, 60);
    }
    refresh();
  });

  /* --- Being hit: the phone buzzes and the station panel flashes -------------------------------- */
  function buzz(pattern) { if (navigator.vibrate) navigator.vibrate(pattern); }
  // A short low thud with the buzz, for phones that cannot vibrate (iPhones). Browsers allow sound
  // only after a tap, so the first tap on the page readies it; until then the phone stays silent.
  var thud = null;
  window.bridgecrewSounds = window.bridgecrewSounds || [];
  document.addEventListener("pointerdown", function () {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!thud && Ctx && document.body.classList.contains("screen-station")) thud = new Ctx();
    if (thud && thud.state === "suspended") thud.resume().catch(function () {});
  });
  function thump() {
    if (!thud || thud.state !== "running") return;
    var osc = thud.createOscillator(), env = thud.createGain(), t = thud.currentTime;
    osc.frequency.value = 110;
    env.gain.setValueAtTime(.5, t);
    env.gain.exponentialRampToValueAtTime(.001, t + .3);
    osc.connect(env);
    env.connect(thud.destination);
    osc.start(t);
    osc.stop(t + .35);
    window.bridgecrewSounds.push({cue: "phone-hit"});
  }
  function hit() {
    buzz([250, 100, 250, 100, 400]);
    thump();
    setTimeout(function () { // after htmx has settled the panel's classes
      var me = document.getElementById("me");
      if (!me) return;
      me.classList.remove("flash");
      void me.offsetWidth;
      me.classList.add("flash");
    }, 60);
  }

  /* --- Hand: running total, cards that cannot count for the chosen action ---------------------- */
  var handSnapshot = null;
  function snapshotHand() {
    var hand = document.getElementById("hand");
    if (!hand) return null;
    var cards = {};
    hand.querySelectorAll(".card input").forEach(function (input) {
      var card = input.closest(".card");
      cards[input.value] = { name: card.dataset.name, value: card.dataset.value, sent: input.defaultChecked };
    });
    return { epoch: hand.dataset.epoch, cards: cards };
  }
  function showDiscards(before, after) {
    var box = document.querySelector("[data-discards]");
    if (!box || !before || !after) return;
    // Turn 0 is a new battle's Downtime (E-EVENING-1): the old ship's hand went with the ship.
    if (after.epoch.indexOf("0-") === 0) return;
    // Cards gone without being played were lost to damage (the engine drops the lowest first).
    var lost = Object.keys(before.cards).filter(function (id) { return !(id in after.cards) && !before.cards[id].sent; });
    if (!lost.length) return;
    box.textContent = say("lost_to_damage", { cards: lost.map(function (id) {
      return before.cards[id].name + " (" + before.cards[id].value + ")";
    }).join(", ") });
    box.hidden = false;
  }

  function refresh() {
    var form = document.getElementById("order-form");
    var action = form && form.querySelector("[name=action]:checked");
    var kinds = action ? (action.dataset.kinds || "").split(" ").filter(Boolean) : null;
    var closed = !form || form.querySelector("fieldset").disabled;
    if (form) {
      form.dataset.action = action ? action.value : "";
      var target = form.querySelector("[name=target]:checked");
      form.dataset.target = target ? target.value : "";
    }
    var total = 0;
    document.querySelectorAll("#hand .card").forEach(function (card) {
      var input = card.querySelector("input");
      var fits = kinds === null || kinds.indexOf(card.dataset.kind) >= 0;
      card.classList.toggle("unfit", !fits);
      input.disabled = closed || !fits;
      if (!fits && input.checked && !closed) input.checked = false;
      if (input.checked && fits) total += Number(card.dataset.value);
    });
    document.querySelectorAll("[data-total]").forEach(function (el) { el.textContent = total; });
    var chosen = document.querySelector("[data-chosen]");
    var count = document.querySelectorAll("#hand .card input:checked").length;
    if (chosen) chosen.textContent = count ? say(count === 1 ? "chosen_one" : "chosen_other", { count: count, total: total }) : "";
    if (form) reach(form, total);
    marks();
    allocationSums();
    var hand = snapshotHand();
    if (hand && handSnapshot && hand.epoch !== handSnapshot.epoch) showDiscards(handSnapshot, hand);
    if (hand) handSnapshot = hand;
  }

  // Checked and disabled state as classes on the tappable tiles (cards, choices, map squares).
  function marks() {
    document.querySelectorAll(".card, .choice, .cell").forEach(function (tile) {
      var input = tile.querySelector("input");
      if (!input) return;
      tile.classList.toggle("on", input.checked);
      tile.classList.toggle("off", input.disabled);
    });
  }

  // Zone maps (G-ZONE-6): a zone the selected cards cannot pay for is marked, with what it lacks;
  // tapping a zone on the map picks it in the list below.
  function zoneReach(form, total) {
    var open = !form.querySelector("fieldset").disabled;
    form.querySelectorAll(".zone-choice").forEach(function (tile) {
      var need = Number(tile.dataset.need), full = Number(tile.dataset.full);
      var ok = total >= need;
      var input = tile.querySelector("input");
      tile.classList.toggle("reach", ok);
      tile.classList.toggle("out", !ok);
      var short = tile.querySelector("[data-short]");
      if (short) {
        short.textContent = need >= 999 ? "" : !ok ? say("short", { n: need - total }) :
          total < full ? say("hazard", { n: full - total }) : "";
      }
      if (open) input.disabled = !ok;
      if (!ok && input.checked) input.checked = false;
      var zone = form.querySelector(".zone-pick-map [data-zone='" + tile.dataset.zone + "']");
      if (zone) {
        zone.classList.toggle("reach", ok);
        zone.classList.toggle("out", !ok);
        zone.classList.toggle("picked", input.checked);
      }
    });
  }
  document.addEventListener("click", function (e) {
    var zone = e.target.closest && e.target.closest(".zone-pick-map [data-zone]");
    var form = zone && zone.closest("#order-form");
    if (!form) return;
    var input = form.querySelector(".zone-choice[data-zone='" + zone.dataset.zone + "'] input");
    if (input && !input.disabled) {
      input.checked = true;
      refresh();
    }
  });

  function reach(form, total) {
    zoneReach(form, total);
    var x0 = Number(form.dataset.x), y0 = Number(form.dataset.y);
    form.querySelectorAll(".cell").forEach(function (cell) {
      var input = cell.querySelector("input");
      var at = input.value.split(",");  // "x,y"
      var d = Math.max(Math.abs(at[0] - x0), Math.abs(at[1] - y0));
      var ok = d <= total && d > 0;
      cell.classList.toggle("reach", ok);
      cell.classList.toggle("out", !ok && !cell.classList.contains("own"));
      if (!form.querySelector("fieldset").disabled) input.disabled = !ok;
      if (!ok && input.checked) input.checked = false;
    });
  }
  function centreMap() {
    var own = document.querySelector(".map-scroll .cell.own");
    var box = own && own.closest(".map-scroll");
    if (box) box.scrollLeft = own.offsetLeft - box.clientWidth / 2 + own.offsetWidth / 2;
  }

  /* --- Damage allocation steppers --------------------------------------------------------------- */
  function allocationSums() {
    document.querySelectorAll(".alloc-form").forEach(function (form) {
      var most = Number(form.dataset.most), sum = 0;
      form.querySelectorAll("input[type=number]").forEach(function (i) { sum += Number(i.value) || 0; });
      var left = form.querySelector("[data-hull-left]");
      if (left) left.textContent = most + 1 - sum;
      form.querySelector("button[type=submit]").disabled = sum > most;
    });
  }
  document.addEventListener("click", function (e) {
    var step = e.target.closest && e.target.closest("button.step");
    if (!step) return;
    var input = step.parentElement.querySelector("input");
    var form = step.closest(".alloc-form");
    var sum = 0;
    form.querySelectorAll("input[type=number]").forEach(function (i) { sum += Number(i.value) || 0; });
    var delta = Number(step.dataset.step);
    if (delta > 0 && sum >= Number(form.dataset.most)) return;
    input.value = Math.max(0, Math.min(Number(input.max), (Number(input.value) || 0) + delta));
    allocationSums();
  });

  document.addEventListener("change", refresh);

  /* --- An order chosen but not sent survives a reload (this tab only) --------------------------- */
  // Kept per page and per #order-body epoch (turn, orders open or shut, order sent), so a draft
  // never outlives the phase it was made in; the server's sent order wins over any draft.
  var DRAFT = "bc-order-draft:" + location.pathname;
  function orderEpoch() {
    var order = document.getElementById("order-body");
    return order ? order.dataset.epoch : null;
  }
  function saveDraft() {
    var form = document.getElementById("order-form");
    if (!form || form.querySelector("fieldset").disabled) return;
    var fields = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.tagName === "BUTTON") return;
      var multi = el.type === "checkbox" || el.type === "radio";
      fields.push({ name: el.name, value: el.value, checked: multi ? el.checked : null });
    });
    try { sessionStorage.setItem(DRAFT, JSON.stringify({ epoch: orderEpoch(), fields: fields })); } catch (err) { /* private mode */ }
  }
  function forgetDraft() {
    try { sessionStorage.removeItem(DRAFT); } catch (err) { /* private mode */ }
  }
  function restoreDraft() {
    var form = document.getElementById("order-form");
    var draft = null;
    try { draft = JSON.parse(sessionStorage.getItem(DRAFT) || "null"); } catch (err) { /* none */ }
    if (!form || !draft) return;
    if (draft.epoch !== orderEpoch() || form.querySelector("fieldset").disabled) { forgetDraft(); return; }
    // Radios first: the action decides which cards and targets can be chosen (refresh()).
    var ordered = draft.fields.filter(function (f) { return f.checked !== null && f.name === "action"; })
      .concat(draft.fields.filter(function (f) { return !(f.checked !== null && f.name === "action"); }));
    ordered.forEach(function (f) {
      Array.prototype.forEach.call(form.elements, function (el) {
        if (el.name !== f.name) return;
        if (f.checked === null) el.value = f.value;
        else if (el.value === f.value) el.checked = f.checked;
      });
      if (f.name === "action") refresh();
    });
  }
  document.addEventListener("change", function (e) {
    var el = e.target;
    if (el && el.form && el.form.id === "order-form") saveDraft();
  });
  document.addEventListener("input", function (e) {
    var el = e.target;
    if (el && el.form && el.form.id === "order-form") saveDraft();
  });
  document.addEventListener("input", function (e) { if (e.target.closest(".alloc-form")) allocationSums(); });

  /* --- Countdowns from the deadline epoch ------------------------------------------------------- */
  function tick() {
    var t = now();
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = Math.max(0, Number(el.dataset.deadline) - t);
      var whole = Math.ceil(left);
      el.textContent = Math.floor(whole / 60) + ":" + ("0" + (whole % 60)).slice(-2);
      el.classList.toggle("low", left <= 15 && left > 5);
      el.classList.toggle("urgent", left <= 5);
    });
  }
  setInterval(tick, 250);

  /* --- The GM's messages put away on a phone ---------------------------------------------------- */
  // Which messages this phone has put away, for this game's page: hidden whenever the panel is
  // drawn again.
  function awayKey() { return "bc-away " + location.pathname; }
  function putAway() {
    try { return JSON.parse(localStorage.getItem(awayKey()) || "[]"); } catch (err) { return []; }
  }
  function hideAway() {
    var away = putAway(), box = document.getElementById("messages");
    if (!box || !body.classList.contains("screen-station")) return;
    box.querySelectorAll(".message[data-message]").forEach(function (m) {
      m.hidden = away.indexOf(m.dataset.message) >= 0;
    });
    box.classList.toggle("all-away", !box.querySelector(".message:not([hidden])"));
  }
  document.addEventListener("click", function (e) {
    var button = e.target.closest(".message-dismiss");
    if (!button) return;
    var away = putAway();
    away.push(button.closest(".message").dataset.message);
    try { localStorage.setItem(awayKey(), JSON.stringify(away.slice(-50))); } catch (err) { /* private mode */ }
    hideAway();
  });
  body.addEventListener("htmx:oobAfterSwap", hideAway);
  body.addEventListener("htmx:afterSettle", hideAway);
  hideAway();

  /* --- The room's reading, on the GM's dashboard ------------------------------------------------- */
  // Whether the projector has had time to show the whole last reveal before the GM starts the
  // next turn. The projector (static/js/reveal.js) shows a turn's tally and results (of the
  // orders only overrides, which are rare) two seconds an entry, six at least, however its pages
  // fall; the dashboard counts the same entries from when it first showed the reveal, a time
  // kept for the page's session so that a reload does not start it again. While no projector is
  // connected (the turn panel says so) the room reads nothing, and the line is hidden.
  var ROOM_SECONDS_PER_ENTRY = 2, ROOM_MIN_SECONDS = 6;
  function roomReading() {
    var spot = document.querySelector("#turn .room-reading");
    var reveal = document.querySelector("#reveal[data-turn]");
    if (!spot) return;
    var unseen = document.querySelector("#turn .gm-no-projector");
    if (unseen || !reveal || !reveal.dataset.turn) { spot.hidden = true; return; }
    var key = "bc-reveal-seen " + location.pathname + " " + reveal.dataset.turn;
    var since = Number(sessionStorage.getItem(key));
    if (!since) { since = Date.now(); sessionStorage.setItem(key, String(since)); }
    var entries = reveal.querySelectorAll(".turn-tally > li, .results > li").length;
    var needed = Math.max(ROOM_MIN_SECONDS, entries * ROOM_SECONDS_PER_ENTRY);
    var left = Math.ceil(needed - (Date.now() - since) / 1000);
    spot.textContent = say(left > 0 ? "room_reading" : "room_read", {turn: reveal.dataset.turn, s: left});
    spot.classList.toggle("reading", left > 0);
    spot.hidden = false;
  }
  setInterval(roomReading, 500);

  /* --- Connection: banner, reconnect on any close, resync when the phone wakes ------------------ */
  var socket = null;      // the live WebSocket, to tell its close from an old one's
  var wrapper = null;     // htmx-ext-ws's handle, which can reconnect
  var retries = 0;
  var bannerTimer = null;
  var hiddenAt = null;
  function banner(show, now) {
    var el = document.getElementById("offline");
    if (!el) return;
    clearTimeout(bannerTimer);
    if (show) bannerTimer = setTimeout(function () { el.hidden = false; }, now ? 0 : 1200);
    else el.hidden = true;
  }
  var heardAt = Date.now();  // the last message (heartbeats included) or the last (re)connect
  body.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.event.target;
    wrapper = e.detail.socketWrapper;
    retries = 0;
    heardAt = Date.now();
    banner(false);
  });
  body.addEventListener("htmx:wsBeforeMessage", function () { heardAt = Date.now(); });
  body.addEventListener("htmx:wsClose", function (e) {
    wrapper = e.detail.socketWrapper;
    var closed = e.detail.event.target;
    if (closed !== socket) return; // an old socket we replaced on purpose
    socket = null;
    banner(true);
    var code = e.detail.event.code;
    // Too many sockets from this address (app/web/limits.py): reloading would only knock again,
    // so the banner stays until the player comes back to the page (visibilitychange resyncs).
    if (code === 4429) return;
    // The game was deleted (app/web/live/hub.py, CLOSE_GONE): there is nothing to go back to, so
    // the banner says why, in the words the server sent, and stays.
    if (code === 4410) {
      var gone = document.getElementById("offline");
      clearTimeout(bannerTimer);
      if (gone) {
        gone.textContent = String(e.detail.event.reason || "").replace(/^[A-Z_]+: /, "");
        gone.hidden = false;
      }
      return;
    }
    if (code === 1008 || (code >= 4000 && code < 5000)) {
      // The server refused this screen (seat freed, game gone): the page route knows where to go.
      setTimeout(function () { location.reload(); }, 1500);
      return;
    }
    // htmx-ext-ws retries only after abnormal closes; a server shutting down cleanly says 1000/1001.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      setTimeout(function () { if (!socket && wrapper) wrapper.reconnect(); }, htmx.config.wsReconnectDelay(retries++));
    }
  });
  body.addEventListener("htmx:wsError", function () { banner(true); });
  window.addEventListener("offline", function () { banner(true); });

  function resync() {
    // A phone that slept may hold a dead socket that never said goodbye: open a fresh one (the
    // server pushes every panel on connect) and fetch the panels over HTTP in case that is slow.
    heardAt = Date.now();
    if (wrapper) {
      // The dead socket's close may come a minute later as 1006, which would make htmx-ext-ws
      // reopen (and so close) the fresh one: it no longer gets a say.
      if (socket) { socket.onclose = null; socket.onerror = null; }
      socket = null;
      wrapper.reconnect();
    }
    if (document.querySelector("base")) htmx.ajax("GET", "panels", { source: body, swap: "none" });
  }
  // The watchdog. A connection lost without a close (a Wi-Fi hand-over, a router that forgot it)
  // leaves the socket open and silent: no close, no offline event, the old turn on screen for
  // minutes. The server sends a heartbeat every data-heartbeat seconds (5 by default, see
  // app/settings.py), so three heartbeats' worth of silence (15 s) means the socket is dead.
  var heartbeat = Number(body.dataset.heartbeat) || 0;
  if (heartbeat > 0) {
    setInterval(function () {
      // Only an open socket: a closed one is already being retried (htmx:wsClose), and a hidden
      // page is resynced when it is shown again (visibilitychange).
      if (!socket || document.hidden || Date.now() - heardAt < 3 * heartbeat * 1000) return;
      banner(true, true);
      resync();
    }, Math.min(1000, heartbeat * 250));
  }
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { hiddenAt = Date.now(); return; }
    if (hiddenAt && Date.now() - hiddenAt > 2000) resync();
    hiddenAt = null;
  });
  window.addEventListener("online", resync);
  window.addEventListener("pageshow", function (e) { if (e.persisted) resync(); });

  /* --- The join page: seats freed or taken while it is open ------------------------------------ */
  // The page is a plain form (it works before any script); this only keeps its seats current.
  function refreshSeats() {
    if (document.hidden) return;
    fetch(location.href, { credentials: "same-origin", redirect: "manual" }).then(function (answer) {
      return answer.ok ? answer.text() : null;
    }).then(function (html) {
      if (!html) return;
      var fresh = new DOMParser().parseFromString(html, "text/html");
      var wasFull = !!document.querySelector(".join-full"), isFull = !!fresh.querySelector(".join-full");
      if (wasFull !== isFull) { location.reload(); return; }
      fresh.querySelectorAll(".join-ship .choice").forEach(function (label) {
        var input = label.querySelector("input[name=seat]");
        var mine = input && document.querySelector(".join-ship input[name=seat][value='" + CSS.escape(input.value) + "']");
        if (!mine) return;
        var here = mine.closest(".choice");
        here.classList.toggle("taken", label.classList.contains("taken"));
        mine.disabled = input.disabled;
        if (mine.disabled) mine.checked = false;
        here.querySelector("small").textContent = label.querySelector("small").textContent;
      });
      marks();
    }).catch(function () { /* offline for now: the next round tries again */ });
  }
  if (body.classList.contains("screen-join") && document.querySelector(".join-ship, .join-full")) {
    setInterval(refreshSeats, 4000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    recordPanels();
    restoreDraft();
    refresh();
    centreMap();
    tick();
  });
  body.addEventListener("htmx:load", function () { centreMap(); });
})();
