// The test editor's browser tab (docs/authoring.md "Drafts"): its own id, kept across reloads in sessionStorage
// (which is per tab), sent with every save so the server never counts this tab's saves as conflicting with each
// other, even when a reload overtakes the last one; another tab or another person still conflicts. And a
// comparison of two drafts' contents that ignores key order (the server stores JSON with its own key order).
(function () {
  'use strict';
  var KEY = 'assay-editor-id';
  var SHAPE = /^[A-Za-z0-9_-]{8,64}$/;

  function newId() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  var id = null;
  try { id = sessionStorage.getItem(KEY); } catch (e) { id = null; }
  if (!id || !SHAPE.test(id)) {
    id = newId();
    try { sessionStorage.setItem(KEY, id); } catch (e) { /* storage off: one id for this page's life */ }
  }

  function sameJson(a, b) {
    if (a === b) return true;
    if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
    var ka = Object.keys(a).filter(function (k) { return a[k] !== undefined; });
    var kb = Object.keys(b).filter(function (k) { return b[k] !== undefined; });
    return ka.length === kb.length && ka.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]); });
  }

  window.AssayEditorTab = { id: id, sameJson: sameJson };
})();
