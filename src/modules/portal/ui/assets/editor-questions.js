// The editor's form for one question of each type (docs/test-format.md):
// labels fixed by the authoring decisions (Prompt, Points, Option N,
// Option N is correct, Add option, Correct answer, Tolerance, Accepted
// answers, Rubric). ui.changed() saves; ui.structure(focus) redraws the form
// after an add, remove or move and puts the focus back where it belongs.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  var TYPES = [
    ['single_choice', 'Single choice'], ['multiple_choice', 'Multiple choice'], ['short_text', 'Short text'], ['numeric', 'Numeric'],
    ['essay', 'Essay'], ['matching', 'Matching'], ['ordering', 'Ordering'], ['fill_blanks', 'Fill in the blanks'], ['file_upload', 'File upload'],
  ];
  var PROMPT_HINT = 'Markdown: **bold**, lists, tables, `code`, https links. Formulas between $…$ (inline) or $$…$$ (display), in LaTeX. Images with Add image.';

  // A list of { id, text } entries: one text field each, with remove (and move when ordered).
  function entryList(p, ui) {
    var list = p.owner[p.key] || (p.owner[p.key] = []);
    var wrap = el('div', { className: 'entry-list', 'data-path': p.path });
    list.forEach(function (entry, k) {
      var n = k + 1;
      var row = el('div', { className: 'entry' });
      row.appendChild(field(p.label(n), bind(input(p.path + '.' + k + '.text'), entry, 'text', 'text', ui.changed)));
      if (p.extra) p.extra(row, entry, k, n);
      var actions = el('div', { className: 'entry-actions' });
      if (p.ordered) {
        actions.appendChild(button('Move up', function () { if (K.move(list, k, k - 1)) ui.structure(p.path + '.' + (k - 1) + '.text'); }, { sr: ': ' + p.label(n) }));
        actions.appendChild(button('Move down', function () { if (K.move(list, k, k + 1)) ui.structure(p.path + '.' + (k + 1) + '.text'); }, { sr: ': ' + p.label(n) }));
      }
      actions.appendChild(button('Remove', function () {
        list.splice(k, 1);
        if (p.onRemove) p.onRemove(entry);
        ui.structure(list.length ? p.path + '.' + Math.max(0, k - 1) + '.text' : p.addFocus);
      }, { sr: ' ' + p.label(n).toLowerCase() }));
      row.appendChild(actions);
      wrap.appendChild(row);
    });
    wrap.appendChild(button(p.addLabel, function () {
      list.push({ id: K.freshId(list, p.idPrefix), text: '' });
      ui.structure(p.path + '.' + (list.length - 1) + '.text');
    }, { focus: p.addFocus, sr: p.addSr }));
    return wrap;
  }

  function choiceOptions(q, path, ui, multiple) {
    var radioName = K.nextId('correct');
    return entryList({
      owner: q, key: 'options', path: path + '.options', idPrefix: 'o', label: function (n) { return 'Option ' + n; }, addLabel: 'Add option', addFocus: path + '.add-option',
      extra: function (row, option, k, n) {
        var box = el('input', { type: multiple ? 'checkbox' : 'radio', name: radioName, 'data-path': path + (multiple ? '.correctOptionIds' : '.correctOptionId') });
        box.checked = multiple ? (q.correctOptionIds || []).indexOf(option.id) >= 0 : q.correctOptionId === option.id;
        box.addEventListener('change', function () {
          if (multiple) {
            var ids = (q.correctOptionIds || []).filter(function (id) { return id !== option.id; });
            if (box.checked) ids.push(option.id);
            q.correctOptionIds = q.options.map(function (o) { return o.id; }).filter(function (id) { return ids.indexOf(id) >= 0; });
          } else if (box.checked) q.correctOptionId = option.id;
          ui.changed();
        });
        row.appendChild(checkField('Option ' + n + ' is correct', box));
        var fixed = bind(el('input', { type: 'checkbox', 'data-path': path + '.options.' + k + '.fixed' }), option, 'fixed', 'bool', ui.changed);
        row.appendChild(checkField('Keep option ' + n + ' in place when shuffling', fixed));
      },
      onRemove: function (option) {
        if (multiple) q.correctOptionIds = (q.correctOptionIds || []).filter(function (id) { return id !== option.id; });
        else if (q.correctOptionId === option.id) delete q.correctOptionId;
      },
    }, ui);
  }

  function aiMarking(q, path, ui) {
    var mode = select(path + '.aiMarking', [['', 'Off'], ['suggest', 'Suggest a mark to the reviewer'], ['decide', 'Decide confident marks']], q.aiMarking ? q.aiMarking.mode : '');
    mode.addEventListener('change', function () {
      if (mode.value === '') delete q.aiMarking;
      else q.aiMarking = { mode: mode.value, minConfidence: q.aiMarking ? q.aiMarking.minConfidence : 0.8 };
      ui.structure(path + '.aiMarking');
    });
    var parts = [field('AI marking', mode, 'The model marks free-text answers against the rubric and criteria (see the AI marking guide).')];
    if (q.aiMarking) {
      parts.push(field('Minimum confidence', bind(input(path + '.aiMarking.minConfidence', { inputmode: 'decimal' }), q.aiMarking, 'minConfidence', 'number', ui.changed), 'From 0 to 1: a suggestion less sure than this goes to a reviewer.'));
    }
    return el('div', { className: 'subgroup' }, parts);
  }

  function criteria(q, path, ui) {
    var list = q.criteria || [];
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.criteria' }, [el('p', { className: 'hint', text: 'Optional. Criteria split the points; reviewers (and the model) mark each one.' })]);
    list.forEach(function (c, k) {
      var n = k + 1, base = path + '.criteria.' + k;
      wrap.appendChild(el('div', { className: 'entry' }, [
        field('Criterion ' + n + ' name', bind(input(base + '.criterion'), c, 'criterion', 'text', ui.changed)),
        field('Criterion ' + n + ' points', bind(input(base + '.points', { inputmode: 'decimal' }), c, 'points', 'number', ui.changed)),
        field('Criterion ' + n + ' description', bind(textarea(base + '.description', 2), c, 'description', 'text', ui.changed)),
        el('div', { className: 'entry-actions' }, [button('Remove', function () { list.splice(k, 1); if (!list.length) delete q.criteria; ui.structure(path + '.add-criterion'); }, { sr: ' criterion ' + n })]),
      ]));
    });
    wrap.appendChild(button('Add criterion', function () {
      q.criteria = list;
      list.push({ criterion: '', points: 1, description: '' });
      ui.structure(path + '.criteria.' + (list.length - 1) + '.criterion');
    }, { focus: path + '.add-criterion' }));
    return wrap;
  }

  function rubric(q, path, ui, hint) {
    return field('Rubric', bind(textarea(path + '.rubric', 4), q, 'rubric', 'optional-text', ui.changed), hint);
  }

  function matching(q, path, ui) {
    q.correct = q.correct || {};
    var stems = entryList({
      owner: q, key: 'stems', path: path + '.stems', idPrefix: 's', label: function (n) { return 'Stem ' + n; }, addLabel: 'Add stem', addFocus: path + '.add-stem',
      extra: function (row, stem, k, n) {
        var options = [['', 'Choose the matching choice']].concat((q.choices || []).map(function (c, j) { return [c.id, c.text || 'Choice ' + (j + 1)]; }));
        var s = select(path + '.correct.' + stem.id, options, q.correct[stem.id] || '');
        s.addEventListener('change', function () { if (s.value) q.correct[stem.id] = s.value; else delete q.correct[stem.id]; ui.changed(); });
        row.appendChild(field('Correct choice for stem ' + n, s));
      },
      onRemove: function (stem) { delete q.correct[stem.id]; },
    }, ui);
    var choices = entryList({
      owner: q, key: 'choices', path: path + '.choices', idPrefix: 'c', label: function (n) { return 'Choice ' + n; }, addLabel: 'Add choice', addFocus: path + '.add-choice',
      onRemove: function (choice) { for (var s in q.correct) if (q.correct[s] === choice.id) delete q.correct[s]; },
    }, ui);
    return [el('h4', { text: 'Stems' }), stems, el('h4', { text: 'Choices' }), choices,
      checkField('Partial credit for each stem matched', bind(el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed))];
  }

  function fillBlanks(q, path, ui) {
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
        row.appendChild(entryList({
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

  function typeFields(q, path, ui) {
    switch (q.type) {
      case 'single_choice':
      case 'multiple_choice':
        return [choiceOptions(q, path, ui, q.type === 'multiple_choice'),
          checkField('Shuffle the options for each candidate', bind(el('input', { type: 'checkbox', 'data-path': path + '.shuffleOptions' }), q, 'shuffleOptions', 'bool', ui.changed)),
          q.type === 'multiple_choice' ? checkField('Partial credit', bind(el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed)) : null];
      case 'numeric':
        return [field('Correct answer', bind(input(path + '.answer', { inputmode: 'decimal' }), q, 'answer', 'number', ui.changed)),
          field('Tolerance', bind(input(path + '.tolerance', { inputmode: 'decimal' }), q, 'tolerance', 'number', ui.changed), 'An answer this far from the correct one, either side, still gets the points.')];
      case 'short_text':
        return [field('Accepted answers', bind(textarea(path + '.acceptedAnswers', 3), q, 'acceptedAnswers', 'lines', ui.changed), 'One per line. Spaces and (unless case-sensitive) capitals do not matter.'),
          checkField('Case-sensitive', bind(el('input', { type: 'checkbox', 'data-path': path + '.caseSensitive' }), q, 'caseSensitive', 'bool', ui.changed)),
          rubric(q, path, ui, 'Optional: for reviewers and AI marking of answers that match none.'), aiMarking(q, path, ui), criteria(q, path, ui)];
      case 'essay':
        return [rubric(q, path, ui, 'Shown to reviewers (and the model) when marking.'),
          field('Word limit', bind(input(path + '.maxWords', { inputmode: 'numeric' }), q, 'maxWords', 'number', ui.changed), 'Optional guidance shown to the candidate.'),
          aiMarking(q, path, ui), criteria(q, path, ui)];
      case 'matching': return matching(q, path, ui);
      case 'ordering':
        return [entryList({ owner: q, key: 'items', path: path + '.items', idPrefix: 'i', ordered: true, label: function (n) { return 'Item ' + n; }, addLabel: 'Add item', addFocus: path + '.add-item' }, ui),
          el('p', { className: 'hint', text: 'List the items in the correct order; each candidate sees them shuffled.' }),
          checkField('Partial credit for each item in place', bind(el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed))];
      case 'fill_blanks': return fillBlanks(q, path, ui);
      case 'file_upload':
        return [field('Accepted file types', bind(textarea(path + '.accept', 2), q, 'accept', 'lines', ui.changed), 'One MIME type per line, such as application/pdf or image/*.'),
          field('Largest file (MB)', bind(input(path + '.maxBytes', { inputmode: 'decimal' }), q, 'maxBytes', 'mb', ui.changed), 'At most 20 MB.'),
          rubric(q, path, ui, 'Shown to reviewers when marking.'), criteria(q, path, ui)];
      default: return [];
    }
  }

  // One question: its type, prompt (with images), points, its type's fields and its actions.
  function questionForm(q, path, n, ctx, ui) {
    var type = select(path + '.type', TYPES, q.type);
    type.addEventListener('change', function () { K.changeType(q, type.value); ui.structure(path + '.type'); });
    var prompt = bind(textarea(path + '.prompt', 3), q, 'prompt', 'text', ui.changed);
    var typeName = (TYPES.filter(function (t) { return t[0] === q.type; })[0] || [q.type, q.type])[1];
    var box = el('fieldset', { className: 'editor-question', 'data-path': path }, [
      el('legend', { text: 'Question ' + n + ' (' + typeName + ')' }),
      field('Question type', type),
      field('Prompt', prompt, PROMPT_HINT),
      ui.imageControl(prompt, q, 'prompt', 'question ' + n),
      field('Points', bind(input(path + '.points', { inputmode: 'decimal' }), q, 'points', 'number', ui.changed)),
    ].concat(typeFields(q, path, ui)));
    box.appendChild(ctx.actions);
    return box;
  }

  window.AssayEditorQuestions = { questionForm: questionForm };
})();
