// The form editor's fields of a parametrised (calculated) numeric or short-text
// question (docs/test-format.md "Parametrised questions"): the Variables list
// (Name, then Minimum, Maximum and Step for a range, or Values for a list),
// Constraints, Answer formula, and Sample draws: three draws with their
// answers, asked of the server (POST …/draft/sample-draws) so the page never
// evaluates a formula itself — there is one evaluator, the server's.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
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
    row.appendChild(field(t('portal.editor.parameters.name', { n: n }), bind(input(at + '.name', { autocomplete: 'off', spellcheck: 'false' }), v, 'name', 'text', ui.changed), t('portal.editor.parameters.nameHint', { placeholder: '{' + (v.name || 'name') + '}' })));
    var kind = select(at + '.kind', [['range', t('portal.editor.parameters.kindRange')], ['values', t('portal.editor.parameters.kindValues')]], Array.isArray(v.values) ? 'values' : 'range');
    kind.addEventListener('change', function () {
      if (kind.value === 'values') { delete v.min; delete v.max; delete v.step; v.values = []; }
      else { delete v.values; v.min = 1; v.max = 10; v.step = 1; }
      ui.structure(at + (kind.value === 'values' ? '.values' : '.min'));
    });
    row.appendChild(field(t('portal.editor.parameters.kind', { n: n }), kind));
    if (Array.isArray(v.values)) {
      var values = input(at + '.values');
      values.value = valuesText(v.values);
      values.addEventListener('input', function () { v.values = parseValues(values.value); ui.changed(); });
      row.appendChild(field(t('portal.editor.parameters.values', { n: n }), values, t('portal.editor.parameters.valuesHint')));
    } else {
      row.appendChild(field(t('portal.editor.parameters.min', { n: n }), bind(input(at + '.min', { inputmode: 'decimal' }), v, 'min', 'number', ui.changed)));
      row.appendChild(field(t('portal.editor.parameters.max', { n: n }), bind(input(at + '.max', { inputmode: 'decimal' }), v, 'max', 'number', ui.changed)));
      row.appendChild(field(t('portal.editor.parameters.step', { n: n }), bind(input(at + '.step', { inputmode: 'decimal' }), v, 'step', 'number', ui.changed), t('portal.editor.parameters.stepHint')));
    }
    row.appendChild(el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
      list.splice(k, 1);
      if (list.length === 0) delete q.variables;
      ui.structure(list.length ? path + '.variables.' + Math.max(0, k - 1) + '.name' : path + '.add-variable');
    }, { sr: K.srAfterSpace(t('portal.editor.parameters.variableName', { n: n })) })]));
    return row;
  }

  function describeDraw(d) {
    var parts = Object.keys(d.values).map(function (name) { return t('portal.editor.parameters.drawValue', { name: name, value: String(d.values[name]) }); });
    var values = parts.join(', ');
    return d.answer === null ? t('portal.editor.parameters.drawFromAccepted', { values: values }) : t('portal.editor.parameters.draw', { values: values, answer: String(d.answer) });
  }

  function sampleDraws(q, path, ui) {
    var out = el('div', { className: 'sample-draws', 'aria-live': 'polite', 'data-path': path + '.sample-draws' });
    var show = button(t('portal.editor.parameters.show'), function () {
      out.textContent = t('portal.editor.parameters.drawing');
      ui.sampleDraws(q).then(function (r) {
        out.textContent = '';
        if (r.status === 200) {
          out.appendChild(el('ol', null, r.body.draws.map(function (d) { return el('li', { text: describeDraw(d) }); })));
        } else {
          var problem = r.body && r.body.error ? (r.body.error.details && r.body.error.details[0] ? r.body.error.details[0].message : r.body.error.message) : t('portal.editor.parameters.drawsFailed');
          out.appendChild(el('p', { className: 'field-error', text: t('portal.editor.parameters.noDraws', { problem: problem }) }));
        }
      }, function () { out.textContent = t('portal.editor.parameters.offline'); });
    }, { focus: path + '.show-draws' });
    return el('div', { className: 'field' }, [el('p', { className: 'hint', text: t('portal.editor.parameters.drawsHint') }), show, out]);
  }

  function fields(q, path, ui) {
    var list = q.variables || [];
    var group = el('fieldset', { className: 'parameters', 'data-path': path + '.variables' }, [el('legend', { text: t('portal.editor.parameters.legend') })]);
    group.appendChild(el('p', { className: 'hint', text: t('portal.editor.parameters.hint') }));
    list.forEach(function (v, k) { group.appendChild(variableRow(q, list, v, k, path, ui)); });
    group.appendChild(button(t('portal.editor.parameters.add'), function () {
      var vars = q.variables || (q.variables = []);
      var used = {};
      vars.forEach(function (v) { used[v.name] = true; });
      var name = 'abcdefghijklmnopqrstuvwxyz'.split('').filter(function (c) { return !used[c]; })[0] || 'v' + (vars.length + 1);
      vars.push({ name: name, min: 1, max: 10, step: 1 });
      ui.structure(path + '.variables.' + (vars.length - 1) + '.name');
    }, { focus: path + '.add-variable' }));
    if (list.length > 0) {
      group.appendChild(field(t('portal.editor.parameters.constraints'), bind(textarea(path + '.constraints', 2), q, 'constraints', 'lines', ui.changed), t('portal.editor.parameters.constraintsHint')));
      group.appendChild(field(t('portal.editor.parameters.formula'), bind(input(path + '.answerFormula', { autocomplete: 'off', spellcheck: 'false' }), q, 'answerFormula', 'optional-text', ui.changed),
        t(q.type === 'numeric' ? 'portal.editor.parameters.formulaHintNumeric' : 'portal.editor.parameters.formulaHintText')));
      group.appendChild(sampleDraws(q, path, ui));
    }
    return [group];
  }

  window.AssayEditorParameters = { fields: fields };
})();
