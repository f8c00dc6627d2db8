// The portal works without this script; it adds conveniences only:
// copy buttons next to secrets shown once, focus on a form's error summary,
// and the running total of a question marked per criterion.
(function () {
  'use strict';

  function copyFrom(button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById(button.getAttribute('data-copy-status'));
    if (!target) return;
    var text = target.textContent.trim();
    var done = function (ok) {
      if (status) status.textContent = window.AssayI18n.t(ok ? 'portal.script.copied' : 'portal.script.copyFailed');
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
    // Marking per criterion: the total (an <output>, announced politely) follows the criteria's points as they are typed.
    var groups = document.querySelectorAll('fieldset[data-total]');
    for (var g = 0; g < groups.length; g++) {
      (function (group) {
        var output = document.getElementById(group.getAttribute('data-total'));
        var inputs = group.querySelectorAll('.criterion-points input');
        var update = function () {
          var sum = 0;
          for (var k = 0; k < inputs.length; k++) {
            var raw = inputs[k].value.trim().replace(',', '.');
            if (!/^\d+(\.\d+)?$/.test(raw)) { output.textContent = '–'; return; }
            sum += Number(raw);
          }
          output.textContent = window.AssayI18n.number(Math.round(sum * 100) / 100, { maximumFractionDigits: 2 });
        };
        for (var k = 0; k < inputs.length; k++) inputs[k].addEventListener('input', update);
      })(groups[g]);
    }
    // The main navigation at phone width: a Menu button (aria-expanded) folds the links into one row.
    var toggle = document.querySelector('.nav-toggle');
    if (toggle) {
      document.documentElement.classList.add('js-nav');
      toggle.hidden = false;
      toggle.addEventListener('click', function () {
        toggle.setAttribute('aria-expanded', toggle.getAttribute('aria-expanded') === 'true' ? 'false' : 'true');
      });
      document.addEventListener('keydown', function (e) {
        if (e.key === 'Escape' && toggle.getAttribute('aria-expanded') === 'true') {
          toggle.setAttribute('aria-expanded', 'false');
          toggle.focus();
        }
      });
    }
    var summary = document.getElementById('error-summary');
    if (summary) summary.focus();
    // The test editor's problems name a line: following one puts the caret at the start of that line.
    var lineLinks = document.querySelectorAll('a[data-line]');
    for (var j = 0; j < lineLinks.length; j++) {
      lineLinks[j].addEventListener('click', function (e) {
        var line = Number(e.currentTarget.getAttribute('data-line'));
        var editor = document.getElementById(e.currentTarget.getAttribute('href').slice(1));
        if (!editor || !line) return;
        e.preventDefault();
        var offset = editor.value.split('\n').slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
        editor.focus();
        editor.setSelectionRange(offset, offset);
        var lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 20;
        editor.scrollTop = Math.max(0, (line - 3) * lineHeight);
      });
    }
  });
})();
