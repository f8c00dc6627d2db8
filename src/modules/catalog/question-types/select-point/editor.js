// select_point in the form editor: the image (an uploaded asset, asset:ast_…, with Add image) and its description, the areas
// (Label, Shape, Coordinates, Points; Add area, Remove) and how many points a candidate may place.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el;
  var SHAPES = [['rect', 'Rectangle'], ['circle', 'Circle'], ['poly', 'Polygon']];
  var COORDS_HINT = { rect: 'left, top, right, bottom', circle: 'centre x, centre y, radius', poly: 'x1, y1, x2, y2, x3, y3, … (3 points or more)' };

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
    var name = 'Area ' + n;
    var at = path + '.areas.' + k;
    var coords = bindCoords(K.input(at + '.coords', { inputmode: 'decimal' }), area, ui.changed);
    var shape = K.select(at + '.shape', SHAPES, area.shape);
    var hint = K.field(name + ' coordinates', coords, 'In image pixels: ' + COORDS_HINT[area.shape || 'rect'] + '.');
    shape.addEventListener('change', function () {
      area.shape = shape.value;
      ui.structure(at + '.shape');
    });
    return el('fieldset', { className: 'entry' }, [
      el('legend', { text: name }),
      K.field(name + ' label', K.bind(K.input(at + '.label'), area, 'label', 'text', ui.changed), 'Names the area to screen-reader users ("in Aorta").'),
      K.field(name + ' shape', shape),
      hint,
      K.field(name + ' points', K.bind(K.input(at + '.points', { inputmode: 'decimal' }), area, 'points', 'number', ui.changed), 'Earned once when a point falls in the area; 0 for an area that earns nothing.'),
      el('div', { className: 'entry-actions' }, [K.button('Remove', function () {
        q.areas.splice(k, 1);
        ui.structure(q.areas.length ? path + '.areas.' + Math.max(0, k - 1) + '.label' : path + '.add-area');
      }, { sr: ' area ' + n })]),
    ]);
  }

  window.AssayEditorTypes.register('select_point', {
    label: 'Select point',
    defaults: function () {
      return { image: '', imageAlt: '', areas: [{ id: 'a1', label: '', shape: 'rect', coords: [], points: 1 }], maxPoints: 1 };
    },
    fields: function (q, path, ui) {
      var areas = q.areas || (q.areas = []);
      var list = el('div', { className: 'entry-list', 'data-path': path + '.areas' }, areas.map(function (area, k) { return areaRow(q, path, area, k, ui); }));
      list.appendChild(K.button('Add area', function () {
        areas.push({ id: K.freshId(areas, 'a'), label: '', shape: 'rect', coords: [], points: 1 });
        ui.structure(path + '.areas.' + (areas.length - 1) + '.label');
      }, { focus: path + '.add-area' }));
      var image = K.bind(K.input(path + '.image', { placeholder: 'asset:ast_…' }), q, 'image', 'text', ui.changed);
      var alt = K.bind(K.textarea(path + '.imageAlt', 2), q, 'imageAlt', 'text', ui.changed);
      // The image types' Add image (hotspot's editor.js, read when the form is drawn): without it an author in the
      // portal had no way to get an image's asset: reference.
      var R = window.AssayImageRegionsEditor;
      return [
        K.field('Image', image, 'An uploaded image: upload one with Add image, or paste asset: and its id, such as asset:ast_3Fh9.'),
        R ? R.uploadControl(q, path, ui, image, alt) : null,
        K.field('Image description', alt, 'What the image shows, for candidates who cannot see it.'),
        list,
        el('p', { className: 'hint', text: 'Where areas overlap, a point counts for the area listed first. Each area earns its points once; the total is capped at the question\'s points.' }),
        K.field('Max points', K.bind(K.input(path + '.maxPoints', { inputmode: 'numeric' }), q, 'maxPoints', 'number', ui.changed), 'How many points a candidate may place.'),
      ];
    },
  });
})();
