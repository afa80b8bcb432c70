// The owner's page works without this script. With it: times are said
// relative to now in the browser's time zone and language ("3 minutes
// ago", the exact local time on hover), the changes are grouped by the
// browser's days rather than UTC's, and the Activity list refreshes itself
// when a change is recorded.
(function () {
  "use strict";
  var lang = document.documentElement.lang || "en";
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) {}
  var rtf = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(lang, { numeric: "auto" }) : null;
  var exact = new Intl.DateTimeFormat(lang, { weekday: "long", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  var clock = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" });
  var dayFmt = new Intl.DateTimeFormat(lang, { weekday: "long", day: "numeric", month: "long", year: "numeric" });
  var dateFmt = new Intl.DateTimeFormat(lang, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

  function cap(s) { return s ? s.charAt(0).toLocaleUpperCase(lang) + s.slice(1) : s; }
  function dayKey(d) { return d.getFullYear() + "-" + (d.getMonth() + 1) + "-" + d.getDate(); }
  function daysBetween(a, b) {
    var x = new Date(a.getFullYear(), a.getMonth(), a.getDate());
    var y = new Date(b.getFullYear(), b.getMonth(), b.getDate());
    return Math.round((x - y) / 86400000);
  }
  function dayLabel(d, now) {
    var n = daysBetween(d, now);
    if (rtf && n >= -1 && n <= 0) return cap(rtf.format(n, "day"));
    return dayFmt.format(d);
  }
  // relative says how long ago d was: seconds → "now", minutes, hours;
  // older: the local clock time (in a list grouped by day) or the date.
  function relative(d, now, grouped) {
    var s = Math.round((d - now) / 1000);
    if (rtf && s > -45 && s < 45) return rtf.format(0, "second");
    if (rtf && s > -3600 && s <= -45) return rtf.format(Math.round(s / 60), "minute");
    if (rtf && s > -6 * 3600 && s <= -3600) return rtf.format(Math.round(s / 3600), "hour");
    if (grouped) return clock.format(d);
    var days = daysBetween(d, now);
    if (rtf && days >= -1) return cap(rtf.format(days, "day")) + ", " + clock.format(d);
    return dateFmt.format(d);
  }

  function times(root) {
    var now = new Date();
    root.querySelectorAll("time[datetime]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d)) return;
      var grouped = !t.hasAttribute("data-rel");
      t.textContent = relative(d, now, grouped);
      t.title = exact.format(d) + (zone ? " (" + zone + ")" : "");
    });
  }

  // regroup moves the changes into the browser's days.
  function regroup(root) {
    var box = root.querySelector("#changes");
    if (!box) return;
    var items = Array.prototype.slice.call(box.querySelectorAll("li.change[data-time]"));
    if (!items.length) return;
    var now = new Date(), groups = [], last = null;
    items.forEach(function (li) {
      var d = new Date(li.getAttribute("data-time"));
      var k = isNaN(d) ? "?" : dayKey(d);
      if (!last || last.key !== k) {
        last = { key: k, label: isNaN(d) ? "" : dayLabel(d, now), items: [] };
        groups.push(last);
      }
      last.items.push(li);
    });
    var frag = document.createDocumentFragment();
    groups.forEach(function (g) {
      var sec = document.createElement("section");
      sec.className = "day";
      sec.setAttribute("data-day", g.key);
      var h = document.createElement("h2");
      h.textContent = g.label;
      var ol = document.createElement("ol");
      ol.className = "changes";
      g.items.forEach(function (li) { ol.appendChild(li); });
      sec.appendChild(h);
      sec.appendChild(ol);
      frag.appendChild(sec);
    });
    box.textContent = "";
    box.appendChild(frag);
  }

  function localize(root) {
    regroup(root);
    times(root);
  }
  localize(document);
  setInterval(function () { times(document); }, 30000);

  // Live activity: the list reloads when a new change is recorded.
  var live = document.getElementById("live");
  if (!live || location.pathname !== "/" || new URLSearchParams(location.search).get("offset")) return;
  var last = null;
  // With several vaults: the newest change of the vault shown (or of
  // every vault, vault=*).
  var shown = new URLSearchParams(location.search).get("vault");
  var latestURL = "/activity/latest" + (shown ? "?vault=" + encodeURIComponent(shown) : "");
  live.hidden = false;
  function openDetails() {
    var open = {};
    document.querySelectorAll("li.change[data-change] details[open]").forEach(function (d) {
      open[d.closest("li").getAttribute("data-change")] = true;
    });
    return open;
  }
  function poll() {
    if (document.hidden) { setTimeout(poll, 2000); return; }
    fetch(latestURL, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (t) {
        if (t === null) return;
        if (last !== null && t !== last) {
          return fetch(location.href, { credentials: "same-origin", cache: "no-store" })
            .then(function (r) { return r.text(); })
            .then(function (html) {
              var doc = new DOMParser().parseFromString(html, "text/html");
              var main = doc.querySelector("main"), cur = document.querySelector("main");
              if (main && cur) {
                var open = openDetails();
                // Keep what the owner typed or opened in the filter.
                var form = cur.querySelector("form.filters");
                var nextForm = main.querySelector("form.filters");
                if (form && nextForm) nextForm.replaceWith(form);
                main.querySelectorAll("li.change[data-change]").forEach(function (li) {
                  if (open[li.getAttribute("data-change")]) {
                    var d = li.querySelector("details");
                    if (d) d.open = true;
                  }
                });
                localize(main);
                cur.replaceWith(main);
              }
              live = document.getElementById("live");
              if (live) live.hidden = false;
              last = t;
            });
        }
        last = t;
      })
      .catch(function () {})
      .finally(function () { setTimeout(poll, 1500); });
  }
  poll();
})();
