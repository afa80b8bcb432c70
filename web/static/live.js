// Live activity: the list reloads when a new change is recorded. The page
// works without this script; it only saves pressing reload.
(function () {
  var list = document.getElementById("changes");
  var live = document.getElementById("live");
  if (!live || location.pathname !== "/" || new URLSearchParams(location.search).get("offset")) return;
  var last = null;
  live.hidden = false;
  function poll() {
    if (document.hidden) { setTimeout(poll, 2000); return; }
    fetch("/activity/latest", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (t) {
        if (t === null) return;
        if (last !== null && t !== last) {
          return fetch(location.href, { credentials: "same-origin", cache: "no-store" })
            .then(function (r) { return r.text(); })
            .then(function (html) {
              var doc = new DOMParser().parseFromString(html, "text/html");
              var main = doc.querySelector("main"), cur = document.querySelector("main");
              if (main && cur) cur.replaceWith(main);
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
