// The fill-in-the-blanks question in the form editor: Text with blanks, then each blank (Blank N: {{id}}) with
// its kind — a typed answer (its accepted answers, one per line, and whether capitals count) or a choice from
// a list (its options, one marked correct) — and Remove; Add blank puts a new {{id}} at the cursor or the end.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, textarea = K.textarea, select = K.select, button = K.button;

  function fields(q, path, ui) {
    var text = bind(textarea(path + '.text', 4), q, 'text', 'text', ui.changed);
    var blanks = q.blanks || (q.blanks = []);
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.blanks' });
    blanks.forEach(function (b, k) {
      var n = k + 1, base = path + '.blanks.' + k;
      var kind = select(base + '.kind', [['text', 'Typed answer'], ['choice', 'Choice from a list']], b.kind || 'text');
      kind.addEventListener('change', function () {
        var keep = { id: b.id, kind: kind.value };
        for (var key in b) delete b[key];
        Object.assign(b, keep, kind.value === 'choice' ? { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }] } : { acceptedAnswers: [] });
        ui.structure(base + '.kind');
      });
      var row = el('div', { className: 'entry' }, [el('p', { className: 'blank-name' }, ['Blank ' + n + ': ', el('code', { text: '{{' + b.id + '}}' })]), field('Blank ' + n + ' kind', kind)]);
      if ((b.kind || 'text') === 'text') {
        row.appendChild(field('Accepted answers for blank ' + n, bind(textarea(base + '.acceptedAnswers', 3), b, 'acceptedAnswers', 'lines', ui.changed), 'One per line.'));
        row.appendChild(checkField('Blank ' + n + ' is case-sensitive', bind(el('input', { type: 'checkbox', 'data-path': base + '.caseSensitive' }), b, 'caseSensitive', 'bool', ui.changed)));
      } else {
        var name = K.nextId('blank');
        row.appendChild(K.entryList({
          owner: b, key: 'options', path: base + '.options', idPrefix: 'o', label: function (m) { return 'Blank ' + n + ' option ' + m; }, addLabel: 'Add option', addSr: ' to blank ' + n, addFocus: base + '.add-option',
          extra: function (r, option, j, m) {
            var radio = el('input', { type: 'radio', name: name, 'data-path': base + '.correctOptionId' });
            radio.checked = b.correctOptionId === option.id;
            radio.addEventListener('change', function () { if (radio.checked) { b.correctOptionId = option.id; ui.changed(); } });
            r.appendChild(checkField('Blank ' + n + ' option ' + m + ' is correct', radio));
          },
          onRemove: function (option) { if (b.correctOptionId === option.id) delete b.correctOptionId; },
        }, ui));
      }
      row.appendChild(el('div', { className: 'entry-actions' }, [button('Remove', function () {
        blanks.splice(k, 1);
        q.text = (q.text || '').split('{{' + b.id + '}}').join('');
        ui.structure(path + '.add-blank');
      }, { sr: ' blank ' + n })]));
      wrap.appendChild(row);
    });
    wrap.appendChild(button('Add blank', function () {
      var id = K.freshId(blanks, 'b');
      var at = typeof text.selectionStart === 'number' && document.activeElement === text ? text.selectionStart : (q.text || '').length;
      var current = q.text || '';
      q.text = current.slice(0, at) + '{{' + id + '}}' + current.slice(at);
      blanks.push({ id: id, kind: 'text', acceptedAnswers: [] });
      ui.structure(path + '.blanks.' + (blanks.length - 1) + '.acceptedAnswers');
    }, { focus: path + '.add-blank' }));
    return [field('Text with blanks', text, 'Each blank is written {{id}} where it goes; Add blank puts a new one at the end of the text.'), wrap];
  }

  window.AssayEditorTypes.register('fill_blanks', {
    label: 'Fill in the blanks',
    defaults: function () { return { text: '', blanks: [] }; },
    fields: fields,
  });
})();
