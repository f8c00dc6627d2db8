// slider on the test page: a native range input (arrow keys, Home, End and dragging are the browser's). A
// range input always holds a value, so the answer is null until the candidate moves it (data-answered);
// the output then shows the value, and Clear makes the question unanswered again.
(() => {
  'use strict';
  const box = (fs) => fs.querySelector('.slider');
  const trim = (n) => String(Number(n.toPrecision(12)));

  function show(fs, answered) {
    const b = box(fs);
    const input = b.querySelector('.slider-input');
    b.dataset.answered = answered ? 'yes' : 'no';
    b.querySelector('.slider-value').textContent = answered ? trim(Number(input.value)) : '';
    b.querySelector('.slider-state').textContent = answered ? '' : window.AssayI18n.t('question.slider.notAnswered');
  }

  window.AssayQuestionTypes.register('slider', {
    read(fs) {
      const b = box(fs);
      return b.dataset.answered === 'yes' ? Number(b.querySelector('.slider-input').value) : null;
    },
    write(fs, value) {
      if (typeof value === 'number') box(fs).querySelector('.slider-input').value = String(value);
      show(fs, typeof value === 'number');
    },
    setup(fs) {
      const b = box(fs);
      const input = b.querySelector('.slider-input');
      // `input` comes before the `change` the page saves on, so the value read then is an answer.
      input.addEventListener('input', () => show(fs, true));
      b.querySelector('.slider-clear').addEventListener('click', (event) => {
        if (b.dataset.answered !== 'yes') return;
        show(fs, false);
        event.currentTarget.dispatchEvent(new Event('change', { bubbles: true }));
      });
    },
    typed: false,
  });
})();
