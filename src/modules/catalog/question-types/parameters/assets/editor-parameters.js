// The form editor's fields of a parametrised (calculated) numeric or short-text
// question (docs/test-format.md "Parametrised questions"): the Variables list
// (Name, then Minimum, Maximum and Step for a range, or Values for a list),
// Constraints, Answer formula, and Sample draws: three draws with their
// answers, asked of the server (POST …/draft/sample-draws) so the page never
// evaluates a formula itself — there is one evaluator, the server's.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  function valuesText(values) { return (values || []).join(', '); }
  // "2, 3.5, Ann" → [2, 3.5, "Ann"]: numbers where the text is one.
  function parseValues(text) {
    return text.split(',').map(function (s) { return s.trim(); }).filter(function (s) { return s !== ''; }).map(function (s) {
      var n = Number(s.replace(',', '.'));
      return isNaN(n) ? s : n;
    });
  }

  function variableRow(q, list, v, k, path, ui) {
    var n = k + 1, at = path + '.variables.' + k;
    var row = el('div', { className: 'entry' });
    row.appendChild(field('Variable ' + n + ' name', bind(input(at + '.name', { autocomplete: 'off', spellcheck: 'false' }), v, 'name', 'text', ui.changed), 'Write {' + (v.name || 'name') + '} in the prompt where the value goes.'));
    var kind = select(at + '.kind', [['range', 'Range of numbers'], ['values', 'List of values']], Array.isArray(v.values) ? 'values' : 'range');
    kind.addEventListener('change', function () {
      if (kind.value === 'values') { delete v.min; delete v.max; delete v.step; v.values = []; }
      else { delete v.values; v.min = 1; v.max = 10; v.step = 1; }
      ui.structure(at + (kind.value === 'values' ? '.values' : '.min'));
    });
    row.appendChild(field('Variable ' + n + ' drawn from', kind));
    if (Array.isArray(v.values)) {
      var values = input(at + '.values');
      values.value = valuesText(v.values);
      values.addEventListener('input', function () { v.values = parseValues(values.value); ui.changed(); });
      row.appendChild(field('Variable ' + n + ' values', values, 'Separated by commas; each is equally likely. Text values can be shown but not calculated with.'));
    } else {
      row.appendChild(field('Variable ' + n + ' minimum', bind(input(at + '.min', { inputmode: 'decimal' }), v, 'min', 'number', ui.changed)));
      row.appendChild(field('Variable ' + n + ' maximum', bind(input(at + '.max', { inputmode: 'decimal' }), v, 'max', 'number', ui.changed)));
      row.appendChild(field('Variable ' + n + ' step', bind(input(at + '.step', { inputmode: 'decimal' }), v, 'step', 'number', ui.changed), '1 gives whole numbers; 0.1 one decimal place.'));
    }
    row.appendChild(el('div', { className: 'entry-actions' }, [button('Remove', function () {
      list.splice(k, 1);
      if (list.length === 0) delete q.variables;
      ui.structure(list.length ? path + '.variables.' + Math.max(0, k - 1) + '.name' : path + '.add-variable');
    }, { sr: ' variable ' + n })]));
    return row;
  }

  function describeDraw(d) {
    var parts = Object.keys(d.values).map(function (name) { return name + ' = ' + d.values[name]; });
    return parts.join(', ') + ' → answer ' + (d.answer === null ? '(from the accepted answers)' : d.answer);
  }

  function sampleDraws(q, path, ui) {
    var out = el('div', { className: 'sample-draws', 'aria-live': 'polite', 'data-path': path + '.sample-draws' });
    var show = button('Show sample draws', function () {
      out.textContent = 'Drawing…';
      ui.sampleDraws(q).then(function (r) {
        out.textContent = '';
        if (r.status === 200) {
          out.appendChild(el('ol', null, r.body.draws.map(function (d) { return el('li', { text: describeDraw(d) }); })));
        } else {
          var problem = r.body && r.body.error ? (r.body.error.details && r.body.error.details[0] ? r.body.error.details[0].message : r.body.error.message) : 'The draws could not be made.';
          out.appendChild(el('p', { className: 'field-error', text: 'No sample draws: ' + problem }));
        }
      }, function () { out.textContent = 'No sample draws: the server could not be reached.'; });
    }, { focus: path + '.show-draws' });
    return el('div', { className: 'field' }, [el('p', { className: 'hint', text: 'Three draws as candidates would get them, with their answers, from the question as written here.' }), show, out]);
  }

  function fields(q, path, ui) {
    var list = q.variables || [];
    var group = el('fieldset', { className: 'parameters', 'data-path': path + '.variables' }, [el('legend', { text: 'Variables' })]);
    group.appendChild(el('p', { className: 'hint', text: 'Optional: each candidate gets their own values, drawn when they begin.' }));
    list.forEach(function (v, k) { group.appendChild(variableRow(q, list, v, k, path, ui)); });
    group.appendChild(button('Add variable', function () {
      var vars = q.variables || (q.variables = []);
      var used = {};
      vars.forEach(function (v) { used[v.name] = true; });
      var name = 'abcdefghijklmnopqrstuvwxyz'.split('').filter(function (c) { return !used[c]; })[0] || 'v' + (vars.length + 1);
      vars.push({ name: name, min: 1, max: 10, step: 1 });
      ui.structure(path + '.variables.' + (vars.length - 1) + '.name');
    }, { focus: path + '.add-variable' }));
    if (list.length > 0) {
      group.appendChild(field('Constraints', bind(textarea(path + '.constraints', 2), q, 'constraints', 'lines', ui.changed), 'Optional, one a line: conditions every draw meets, such as a != b or b^2 - 4*a*c >= 0.'));
      group.appendChild(field('Answer formula', bind(input(path + '.answerFormula', { autocomplete: 'off', spellcheck: 'false' }), q, 'answerFormula', 'optional-text', ui.changed),
        'The answer from the values, such as a * b or round(sqrt(a), 2). ' + (q.type === 'numeric' ? 'Leave Correct answer empty.' : 'Its value is accepted beside the answers below.')));
      group.appendChild(sampleDraws(q, path, ui));
    }
    return [group];
  }

  window.AssayEditorParameters = { fields: fields };
})();
