// select_point in the form editor: the image (an uploaded asset, asset:ast_…, with Add image) and its description, the areas
// (Label, Shape, Coordinates, Points; Add area, Remove) and how many points a candidate may place.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el;
  var SHAPES = [['rect', t('portal.editor.selectPoint.shapeRect')], ['circle', t('portal.editor.selectPoint.shapeCircle')], ['poly', t('portal.editor.selectPoint.shapePoly')]];
  var COORDS_HINT = { rect: 'portal.editor.selectPoint.coordsRect', circle: 'portal.editor.selectPoint.coordsCircle', poly: 'portal.editor.selectPoint.coordsPoly' };

  // Coordinates typed as "100, 100, 200, 200": numbers when every part is one, else the text (the server names the problem).
  function bindCoords(control, area, changed) {
    control.value = Array.isArray(area.coords) ? area.coords.join(', ') : '';
    control.addEventListener('input', function () {
      var parts = control.value.split(/[\s,]+/).filter(function (s) { return s !== ''; });
      var nums = parts.map(Number);
      area.coords = nums.every(function (n) { return !isNaN(n); }) ? nums : control.value;
      changed();
    });
    return control;
  }

  function areaRow(q, path, area, k, ui) {
    var n = k + 1;
    var name = t('portal.editor.selectPoint.area', { n: n });
    var at = path + '.areas.' + k;
    var coords = bindCoords(K.input(at + '.coords', { inputmode: 'decimal' }), area, ui.changed);
    var shape = K.select(at + '.shape', SHAPES, area.shape);
    var hint = K.field(t('portal.editor.selectPoint.coords', { n: n }), coords, t(COORDS_HINT[area.shape] || COORDS_HINT.rect));
    shape.addEventListener('change', function () {
      area.shape = shape.value;
      ui.structure(at + '.shape');
    });
    return el('fieldset', { className: 'entry' }, [
      el('legend', { text: name }),
      K.field(t('portal.editor.selectPoint.label', { n: n }), K.bind(K.input(at + '.label'), area, 'label', 'text', ui.changed), t('portal.editor.selectPoint.labelHint')),
      K.field(t('portal.editor.selectPoint.shape', { n: n }), shape),
      hint,
      K.field(t('portal.editor.selectPoint.points', { n: n }), K.bind(K.input(at + '.points', { inputmode: 'decimal' }), area, 'points', 'number', ui.changed), t('portal.editor.selectPoint.pointsHint')),
      el('div', { className: 'entry-actions' }, [K.button(t('portal.editor.remove'), function () {
        q.areas.splice(k, 1);
        ui.structure(q.areas.length ? path + '.areas.' + Math.max(0, k - 1) + '.label' : path + '.add-area');
      }, { sr: K.srAfterSpace(t('portal.editor.selectPoint.areaName', { n: n })) })]),
    ]);
  }

  window.AssayEditorTypes.register('select_point', {
    label: t('portal.editor.type.selectPoint'),
    defaults: function () {
      return { image: '', imageAlt: '', areas: [{ id: 'a1', label: '', shape: 'rect', coords: [], points: 1 }], maxPoints: 1 };
    },
    fields: function (q, path, ui) {
      var areas = q.areas || (q.areas = []);
      var list = el('div', { className: 'entry-list', 'data-path': path + '.areas' }, areas.map(function (area, k) { return areaRow(q, path, area, k, ui); }));
      list.appendChild(K.button(t('portal.editor.selectPoint.add'), function () {
        areas.push({ id: K.freshId(areas, 'a'), label: '', shape: 'rect', coords: [], points: 1 });
        ui.structure(path + '.areas.' + (areas.length - 1) + '.label');
      }, { focus: path + '.add-area' }));
      var image = K.bind(K.input(path + '.image', { placeholder: 'asset:ast_…' }), q, 'image', 'text', ui.changed);
      var alt = K.bind(K.textarea(path + '.imageAlt', 2), q, 'imageAlt', 'text', ui.changed);
      // The image types' Add image (hotspot's editor.js, read when the form is drawn): without it an author in the
      // portal had no way to get an image's asset: reference.
      var R = window.AssayImageRegionsEditor;
      return [
        K.field(t('portal.editor.regions.image'), image, t('portal.editor.selectPoint.imageHint')),
        R ? R.uploadControl(q, path, ui, image, alt) : null,
        K.field(t('portal.editor.regions.imageAlt'), alt, t('portal.editor.selectPoint.imageAltHint')),
        list,
        el('p', { className: 'hint', text: t('portal.editor.selectPoint.overlapHint') }),
        K.field(t('portal.editor.selectPoint.maxPoints'), K.bind(K.input(path + '.maxPoints', { inputmode: 'numeric' }), q, 'maxPoints', 'number', ui.changed), t('portal.editor.selectPoint.maxPointsHint')),
      ];
    },
  });
})();
