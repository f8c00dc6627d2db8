// The form editor's fields for an associate question: the items, the keyed pairs (two selects of the items and
// optional points each) and the most pairs a candidate may make. Removing an item removes the pairs that name it.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, bind = K.bind, input = K.input, select = K.select, button = K.button;

  function items(q, path, ui) {
    var list = q.items || (q.items = []);
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.items' });
    list.forEach(function (item, k) {
      var n = k + 1;
      wrap.appendChild(el('div', { className: 'entry' }, [
        field(t('portal.editor.associate.item', { n: n }), bind(input(path + '.items.' + k + '.text'), item, 'text', 'text', ui.changed)),
        el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
          list.splice(k, 1);
          q.pairs = (q.pairs || []).filter(function (p) { return p.a !== item.id && p.b !== item.id; });
          ui.structure(list.length ? path + '.items.' + Math.max(0, k - 1) + '.text' : path + '.add-item');
        }, { sr: K.srAfterSpace(t('portal.editor.associate.itemName', { n: n })) })]),
      ]));
    });
    wrap.appendChild(button(t('portal.editor.associate.addItem'), function () {
      list.push({ id: K.freshId(list, 'i'), text: '' });
      ui.structure(path + '.items.' + (list.length - 1) + '.text');
    }, { focus: path + '.add-item' }));
    return wrap;
  }

  function pairs(q, path, ui) {
    var list = q.pairs || (q.pairs = []);
    var options = [['', t('portal.editor.associate.chooseItem')]].concat((q.items || []).map(function (it, j) { return [it.id, it.text || t('portal.editor.associate.item', { n: j + 1 })]; }));
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.pairs' });
    list.forEach(function (pair, k) {
      var n = k + 1, base = path + '.pairs.' + k;
      var side = function (key, label) {
        var s = select(base + '.' + key, options, pair[key] || '');
        s.addEventListener('change', function () { pair[key] = s.value; ui.changed(); });
        return field(label, s);
      };
      wrap.appendChild(el('div', { className: 'entry' }, [
        side('a', t('portal.editor.associate.pairFirst', { n: n })),
        side('b', t('portal.editor.associate.pairSecond', { n: n })),
        field(t('portal.editor.associate.pairPoints', { n: n }), bind(input(base + '.points', { inputmode: 'decimal' }), pair, 'points', 'number', ui.changed), t('portal.editor.associate.pairPointsHint')),
        el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
          list.splice(k, 1);
          ui.structure(list.length ? path + '.pairs.' + Math.max(0, k - 1) + '.a' : path + '.add-pair');
        }, { sr: K.srAfterSpace(t('portal.editor.associate.pairName', { n: n })) })]),
      ]));
    });
    wrap.appendChild(button(t('portal.editor.associate.addPair'), function () {
      list.push({ a: '', b: '' });
      ui.structure(path + '.pairs.' + (list.length - 1) + '.a');
    }, { focus: path + '.add-pair' }));
    return wrap;
  }

  window.AssayEditorTypes.register('associate', {
    label: t('portal.editor.type.associate'),
    defaults: function () { return { items: [{ id: 'i1', text: '' }, { id: 'i2', text: '' }], pairs: [{ a: 'i1', b: 'i2' }] }; },
    fields: function (q, path, ui) {
      return [
        el('h3', { text: t('portal.editor.associate.items') }), items(q, path, ui),
        el('h3', { text: t('portal.editor.associate.pairs') }),
        el('p', { className: 'hint', text: t('portal.editor.associate.pairsHint') }),
        pairs(q, path, ui),
        field(t('portal.editor.associate.maxAssociations'), bind(input(path + '.maxAssociations', { inputmode: 'numeric' }), q, 'maxAssociations', 'number', ui.changed), t('portal.editor.associate.maxAssociationsHint')),
      ];
    },
  });
})();
