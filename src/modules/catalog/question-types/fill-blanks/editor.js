// The fill-in-the-blanks question in the form editor: Text with blanks, then each blank (Blank N: {{id}}) with
// its kind — a typed answer (its accepted answers, one per line, and whether capitals count) or a choice from
// a list (its options, one marked correct) — and Remove; Add blank puts a new {{id}} at the text's cursor (the
// end before the text was ever focused), a selected word becoming its answer, and leaves the cursor after it.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, textarea = K.textarea, select = K.select, button = K.button;

  function fields(q, path, ui) {
    var text = bind(textarea(path + '.text', 4), q, 'text', 'text', ui.changed);
    var blanks = q.blanks || (q.blanks = []);
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.blanks' });
    blanks.forEach(function (b, k) {
      var n = k + 1, base = path + '.blanks.' + k;
      var kind = select(base + '.kind', [['text', t('portal.editor.fillBlanks.kindText')], ['choice', t('portal.editor.fillBlanks.kindChoice')]], b.kind || 'text');
      kind.addEventListener('change', function () {
        var keep = { id: b.id, kind: kind.value };
        for (var key in b) delete b[key];
        Object.assign(b, keep, kind.value === 'choice' ? { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }] } : { acceptedAnswers: [] });
        ui.structure(base + '.kind');
      });
      var row = el('div', { className: 'entry' }, [el('p', { className: 'blank-name' }, [t('portal.editor.fillBlanks.blank', { n: n }), el('code', { text: '{{' + b.id + '}}' })]), field(t('portal.editor.fillBlanks.kind', { n: n }), kind)]);
      if ((b.kind || 'text') === 'text') {
        row.appendChild(field(t('portal.editor.fillBlanks.accepted', { n: n }), bind(textarea(base + '.acceptedAnswers', 3), b, 'acceptedAnswers', 'lines', ui.changed), t('portal.editor.fillBlanks.acceptedHint')));
        row.appendChild(checkField(t('portal.editor.fillBlanks.caseSensitive', { n: n }), bind(el('input', { type: 'checkbox', 'data-path': base + '.caseSensitive' }), b, 'caseSensitive', 'bool', ui.changed)));
      } else {
        var name = K.nextId('blank');
        row.appendChild(K.entryList({
          owner: b, key: 'options', path: base + '.options', idPrefix: 'o', label: function (m) { return t('portal.editor.fillBlanks.option', { n: n, m: m }); }, srName: function (m) { return t('portal.editor.fillBlanks.optionName', { n: n, m: m }); },
          addLabel: t('portal.editor.option.add'), addSr: t('portal.editor.fillBlanks.addOptionSr', { n: n }), addFocus: base + '.add-option',
          extra: function (r, option, j, m) {
            var radio = el('input', { type: 'radio', name: name, 'data-path': base + '.correctOptionId' });
            radio.checked = b.correctOptionId === option.id;
            radio.addEventListener('change', function () { if (radio.checked) { b.correctOptionId = option.id; ui.changed(); } });
            r.appendChild(checkField(t('portal.editor.fillBlanks.optionCorrect', { n: n, m: m }), radio));
          },
          onRemove: function (option) { if (b.correctOptionId === option.id) delete b.correctOptionId; },
        }, ui));
      }
      row.appendChild(el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
        blanks.splice(k, 1);
        q.text = (q.text || '').split('{{' + b.id + '}}').join('');
        ui.structure(path + '.add-blank');
      }, { sr: K.srAfterSpace(t('portal.editor.fillBlanks.blankName', { n: n })) })]));
      wrap.appendChild(row);
    });
    // Where the author last was in the text: a textarea keeps its selection when the focus moves to the button.
    var touched = false;
    text.addEventListener('focus', function () { touched = true; });
    wrap.appendChild(button(t('portal.editor.fillBlanks.add'), function () {
      var id = K.freshId(blanks, 'b');
      var token = '{{' + id + '}}';
      var current = q.text || '';
      var start = touched ? Math.min(text.selectionStart, current.length) : current.length;
      var end = touched ? Math.min(text.selectionEnd, current.length) : current.length;
      var chosen = current.slice(start, end);
      var answer = fitsAnswer(chosen) ? chosen.trim() : null;
      // Selected text that fits an answer becomes the blank (and its answer); any other selection is kept, the blank after it.
      if (answer === null) start = end;
      q.text = current.slice(0, start) + token + current.slice(end);
      blanks.push({ id: id, kind: 'text', acceptedAnswers: answer === null ? [] : [answer] });
      ui.structure(path + '.text');
      var again = document.querySelector('[data-path="' + path + '.text"]');
      if (again) { again.focus(); again.setSelectionRange(start + token.length, start + token.length); }
      ui.say(answer === null ? t('portal.editor.fillBlanks.added', { n: blanks.length }) : t('portal.editor.fillBlanks.addedWithAnswer', { n: blanks.length, answer: answer }));
    }, { focus: path + '.add-blank' }));
    return [field(t('portal.editor.fillBlanks.text'), text, t('portal.editor.fillBlanks.textHint')), wrap];
  }

  // An accepted answer as the format takes it: one line of at most BLANK_MAX characters, not blank, no blank inside.
  function fitsAnswer(chosen) {
    var trimmed = chosen.trim();
    return trimmed !== '' && trimmed.length <= 1000 && !/[\r\n]/.test(trimmed) && trimmed.indexOf('{{') < 0 && trimmed.indexOf('}}') < 0;
  }

  window.AssayEditorTypes.register('fill_blanks', {
    label: t('portal.editor.type.fillBlanks'),
    defaults: function () { return { text: '', blanks: [] }; },
    fields: fields,
  });
})();
