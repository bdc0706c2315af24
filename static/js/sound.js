/* The projector's sound cues, synthesised here with WebAudio (nothing to download, nothing from
   the internet). The page is watched rather than told: after every swap the ships' filled boxes,
   wrecks, RED ALERT, the turn and the countdown are compared with the last look, and each change
   plays its cue; a sound the GM or a cue plays comes numbered (#sound: data-played, -n), and is
   played when its number grows. The GM's setting (#sound: data-on, data-volume) mutes it or sets
   the volume.
   Every cue played is recorded in window.bridgecrewSounds, so a test can tell it fired. */
(function () {
  "use strict";
  window.bridgecrewSounds = [];
  var ctx = null, last = null, pending = false;

  // Each cue: notes of [frequency Hz, start s, length s, wave]; distinct in pitch and rhythm.
  var CUES = {
    "hit-players": [[180, 0, .35, "sawtooth"], [120, .12, .4, "sawtooth"]],
    "hit-enemy": [[520, 0, .12, "square"], [780, .1, .18, "square"]],
    "destroyed": [[300, 0, .25, "sawtooth"], [200, .2, .3, "sawtooth"], [90, .45, .8, "sawtooth"]],
    "red-alert": [[660, 0, .35, "square"], [440, .4, .35, "square"], [660, .8, .35, "square"], [440, 1.2, .35, "square"]],
    "turn-start": [[523, 0, .15, "triangle"], [659, .15, .15, "triangle"], [784, .3, .3, "triangle"]],
    "countdown": [[1000, 0, .07, "sine"]],
    "alarm": [[880, 0, .3, "sawtooth"], [587, .3, .3, "sawtooth"], [880, .6, .3, "sawtooth"], [587, .9, .3, "sawtooth"], [880, 1.2, .3, "sawtooth"], [587, 1.5, .4, "sawtooth"]],
    "chime": [[988, 0, .5, "sine"], [1319, .18, .7, "sine"]]
  };

  function setting() {
    var el = document.getElementById("sound");
    return {
      on: !el || el.dataset.on !== "false",
      volume: el ? Math.max(0, Math.min(100, Number(el.dataset.volume) || 0)) : 80
    };
  }

  function audio() {
    if (!ctx) {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return null;
      ctx = new Ctx();
    }
    if (ctx.state === "suspended") ctx.resume().catch(function () {});
    return ctx;
  }

  function enableButton() {
    var button = document.querySelector(".d-sound-enable");
    if (button) button.hidden = !(setting().on && ctx && ctx.state !== "running");
  }

  function play(cue) {
    var s = setting();
    if (!s.on || s.volume === 0) return;
    var a = audio();
    if (!a || a.state !== "running") { enableButton(); return; }
    var master = a.createGain();
    master.gain.value = s.volume / 100 * .4;
    master.connect(a.destination);
    CUES[cue].forEach(function (n) {
      var osc = a.createOscillator(), env = a.createGain(), t = a.currentTime + n[1];
      osc.type = n[3];
      osc.frequency.value = n[0];
      env.gain.setValueAtTime(0, t);
      env.gain.linearRampToValueAtTime(1, t + .01);
      env.gain.exponentialRampToValueAtTime(.001, t + n[2]);
      osc.connect(env);
      env.connect(master);
      osc.start(t);
      osc.stop(t + n[2] + .05);
    });
    window.bridgecrewSounds.push({cue: cue, volume: s.volume});
  }

  function look() {
    var ships = {};
    document.querySelectorAll("#ship-status article.ship").forEach(function (ship) {
      ships[ship.id] = {
        players: ship.classList.contains("players-side"),
        hits: ship.querySelectorAll(".box.hit").length,
        destroyed: ship.classList.contains("destroyed")
      };
    });
    var alert = document.getElementById("alert");
    var turn = document.querySelector("#timer .d-turn b");
    var clock = document.querySelector("#timer .countdown[data-deadline]");
    var sound = document.getElementById("sound");
    var parts = clock ? clock.textContent.trim().split(":") : [];
    return {
      ships: ships,
      alert: !!alert && !alert.classList.contains("off"),
      turn: turn ? Number(turn.textContent) : 0,
      seconds: parts.length === 2 ? Number(parts[0]) * 60 + Number(parts[1]) : null,
      played: sound ? Number(sound.dataset.playedN || 0) : 0,
      playedSound: sound ? sound.dataset.played : null
    };
  }

  function compare() {
    pending = false;
    var now = look(), was = last;
    last = now;
    if (!was) return;
    var cues = [];
    Object.keys(now.ships).forEach(function (id) {
      var a = was.ships[id], b = now.ships[id];
      if (!a) return;
      if (b.destroyed && !a.destroyed) cues.push("destroyed");
      else if (b.hits > a.hits) cues.push(b.players ? "hit-players" : "hit-enemy");
    });
    if (now.alert && !was.alert) cues.push("red-alert");
    if (now.turn > was.turn) cues.push("turn-start");
    if (now.played > was.played && CUES[now.playedSound]) cues.push(now.playedSound);
    if (now.seconds !== null && now.seconds !== was.seconds && now.seconds >= 1 && now.seconds <= 10) {
      cues.push("countdown");
    }
    // One of each at a time: a broadside that fills many boxes is one hit, not a din.
    cues.filter(function (c, i) { return cues.indexOf(c) === i; }).forEach(play);
  }

  function soon() {
    if (pending) return;
    pending = true;
    setTimeout(compare, 50);
  }

  document.addEventListener("DOMContentLoaded", function () {
    last = look();
    audio();
    enableButton();
    new MutationObserver(soon).observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["class", "data-on", "data-played-n"]});
    document.addEventListener("click", function () { audio(); setTimeout(enableButton, 100); });
    // A push or a resync draws #sound again with its button hidden: say at once whether it is
    // still needed, or the projector's layout jumps by a line until the next check.
    document.body.addEventListener("htmx:oobAfterSwap", function (e) {
      if (e.detail.target && e.detail.target.id === "sound") enableButton();
    });
    setInterval(enableButton, 2000);
  });
})();
