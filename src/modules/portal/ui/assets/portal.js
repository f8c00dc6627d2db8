// The portal works without this script; it adds conveniences only:
// copy buttons next to secrets shown once, and focus on a form's error summary.
(function () {
  'use strict';

  function copyFrom(button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById(button.getAttribute('data-copy-status'));
    if (!target) return;
    var text = target.textContent.trim();
    var done = function (ok) {
      if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Copy failed: select the text and copy it yourself.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      var range = document.createRange();
      range.selectNodeContents(target);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      try { done(document.execCommand('copy')); } catch (e) { done(false); }
    }
  }

  document.addEventListener('DOMContentLoaded', function () {
    var buttons = document.querySelectorAll('button[data-copy]');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
      buttons[i].addEventListener('click', function (e) { copyFrom(e.currentTarget); });
    }
    var summary = document.getElementById('error-summary');
    if (summary) summary.focus();
  });
})();
