// The test page's fields, per question type: reading and restoring answers for student.js, the essay's word
// count, and the file upload. Loaded (deferred) before
// student.js, which calls attach() with what the upload needs of its save queue. No drag and drop: every
// control is a select, a text field, a button or a file input, so the keyboard does everything.
(() => {
  'use strict';
  let hooks = null; // from student.js: { base, csrfToken, nextVersion(q), confirmed(q, version), isClosed(), ended(), sessionEnded() }

  const t = (key, values) => window.AssayI18n.t(key, values);
  // A size in the page's language through Intl's units, as the server writes it (file-upload/file-text.ts).
  const formatBytes = (n) => {
    if (n < 1024) return window.AssayI18n.number(n, { style: 'unit', unit: 'byte', unitDisplay: 'long' });
    const [v, unit] = n < 1024 * 1024 ? [n / 1024, 'kilobyte'] : [n / (1024 * 1024), 'megabyte'];
    return window.AssayI18n.number(v, { style: 'unit', unit, maximumFractionDigits: v < 10 ? 1 : 0 });
  };

  // A composite question's part groups (not those of a part inside, which has none).
  const partsOf = (fs) => [...fs.querySelectorAll('fieldset.part[data-part-id]')];

  // The registered question types' parts (/assets/question-types.js, loaded after this file): each registers
  // { read(fs), write(fs, value), setup?(fs), typed } by its type, and is asked before the built-in cases.
  const registered = new Map();
  window.AssayQuestionTypes = {
    register(type, impl) {
      registered.set(type, impl);
    },
    get: (type) => registered.get(type),
  };

  /** The answer in a question's fields; null when unanswered (the server stores an empty answer as null). */
  function read(fs) {
    const impl = registered.get(fs.dataset.type);
    if (impl) return impl.read(fs);
    switch (fs.dataset.type) {
      case 'composite': {
        // { partId: that part's answer }, each part read as a question of its own type; unanswered parts absent.
        const out = {};
        for (const part of partsOf(fs)) {
          const v = read(part);
          if (v !== null) out[part.dataset.partId] = v;
        }
        return Object.keys(out).length > 0 ? out : null;
      }
      default: {
        // A text field's text as typed.
        const text = fs.querySelector('input[type=text], textarea').value;
        return text.trim() === '' ? null : text;
      }
    }
  }

  // Answered: a choice, text, a matched stem or filled blank, a saved order, a file.
  // A registered type's number (a slider's) is answered; [], '' and {} are not.
  const isAnswered = (v) =>
    v !== null &&
    v !== undefined &&
    (Array.isArray(v) ? v.length > 0 : typeof v === 'string' ? v.trim() !== '' : typeof v === 'object' ? Object.keys(v).length > 0 : true);
  /** Whether a question's answer is typed text (saved after a pause rather than at once). */
  const isTyped = (fs) => {
    const impl = registered.get(fs.dataset.type);
    return impl ? Boolean(impl.typed) : TYPED.has(fs.dataset.type);
  };
  const TYPED = new Set(['composite']);
  // As the server counts (essay/schema.ts countWords): runs of non-space, each East Asian character one word.
  const EAST_ASIAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
  const countWords = (text) => {
    const eastAsian = (text.match(EAST_ASIAN) || []).length;
    const rest = (eastAsian === 0 ? text : text.replace(EAST_ASIAN, ' ')).trim();
    return eastAsian + (rest === '' ? 0 : rest.split(/\s+/u).filter((run) => /[\p{L}\p{N}]/u.test(run)).length);
  };

  function updateWordCount(fs) {
    const out = fs.querySelector('.word-count');
    if (!out) return;
    const words = countWords(fs.querySelector('textarea').value);
    const max = Number(out.dataset.maxWords) || null;
    out.textContent = max ? t('question.essay.wordsOfMax', { words, max }) : t('question.essay.words', { words });
    out.dataset.over = max && words > max ? 'yes' : 'no';
  }

  /** Puts a value back into a question's fields (a reload's unsent edit from this device). */
  function write(fs, value) {
    const type = fs.dataset.type;
    const impl = registered.get(type);
    if (impl) {
      impl.write(fs, value);
      return;
    }
    if (type === 'composite') {
      for (const part of partsOf(fs)) write(part, (value && value[part.dataset.partId]) || null);
      return;
    }
    fs.querySelector('input[type=text], textarea').value = value === null ? '' : value;
    updateWordCount(fs);
  }

  // ---- File upload ----------------------------------------------------------------------------------------
  function showFile(fs, file) {
    const box = fs.querySelector('.file-answer');
    box.dataset.fileId = file ? file.fileId : '';
    box.querySelector('.file-name').textContent = file ? file.fileName : '';
    box.querySelector('.file-size').textContent = file ? formatBytes(file.bytes) : '';
    box.querySelector('.file-saved').hidden = !file;
  }

  // Why an upload failed: the server's own words when it gave some (a refused type, a size), else its status.
  // Each other reason is a whole message (question.fileUpload.failed…), with the previous file kept or not.
  function serverFailure(xhr) {
    try {
      const body = JSON.parse(xhr.responseText);
      if (body && body.error && body.error.message) return { key: 'question.fileUpload.failedServer', reason: body.error.message.replace(/([^.])$/, '$1.') };
    } catch { /* not JSON */ }
    return { key: 'question.fileUpload.failedStatus', status: String(xhr.status) };
  }
  const failure = (fileName, box, why) =>
    t(why.key, { name: fileName, reason: why.reason || '', status: why.status || '', kept: box.dataset.fileId ? 'yes' : 'no' });
  const SESSION = { key: 'question.fileUpload.failedSession' };
  const CONNECTION = { key: 'question.fileUpload.failedConnection' };
  /** A failure carried through a rejected promise (the direct upload's record step). */
  class UploadFailure extends Error {
    constructor(why) {
      super(why.key);
      this.why = why;
    }
  }

  function upload(fs, input) {
    const file = input.files && input.files[0];
    if (!file || !hooks || hooks.isClosed()) return;
    const box = fs.querySelector('.file-answer');
    const statusEl = box.querySelector('.file-status');
    const errorEl = box.querySelector('.file-error');
    const progress = box.querySelector('.file-progress');
    const q = fs.dataset.questionId;
    const max = Number(box.dataset.maxBytes);
    errorEl.textContent = '';
    input.value = ''; // the line "Your file: …" says what is saved; the input only picks the next file
    if (max && file.size > max) {
      errorEl.textContent = t('question.fileUpload.tooLarge', { name: file.name, size: formatBytes(file.size), max: formatBytes(max) });
      return;
    }
    const version = hooks.nextVersion(q);
    if (hooks.directUploads) {
      uploadDirect(fs, file, version);
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${hooks.base}/files/${encodeURIComponent(q)}`);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('x-csrf-token', hooks.csrfToken);
    xhr.setRequestHeader('x-file-name', encodeURIComponent(file.name));
    xhr.setRequestHeader('x-answer-version', String(version));
    watch(fs, file, xhr, (body) => body);
    xhr.send(file);
  }

  /** Progress and outcome of an upload request whose answer, through `answerOf`, is the saved file. */
  function watch(fs, file, xhr, answerOf, direct = false) {
    const box = fs.querySelector('.file-answer');
    const statusEl = box.querySelector('.file-status');
    const errorEl = box.querySelector('.file-error');
    const progress = box.querySelector('.file-progress');
    const q = fs.dataset.questionId;
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
    });
    const done = () => {
      progress.hidden = true;
      box.removeAttribute('aria-busy');
    };
    const failed = (why) => {
      done();
      statusEl.textContent = '';
      errorEl.textContent = failure(file.name, box, why);
    };
    xhr.addEventListener('load', async () => {
      if (xhr.status === 200) {
        let body;
        try {
          body = await answerOf(direct ? null : JSON.parse(xhr.responseText));
        } catch (err) {
          failed(err instanceof UploadFailure ? err.why : { key: 'question.fileUpload.failedStatus', status: String(xhr.status) });
          return;
        }
        done();
        if (!body.saved) {
          statusEl.textContent = t('question.fileUpload.notUsed');
          return;
        }
        showFile(fs, body);
        hooks.confirmed(q, body.version);
        statusEl.textContent = t('question.fileUpload.uploaded', { name: body.fileName });
      } else if (direct) {
        // The bucket refused the PUT (its signed URL expired, or it is unavailable): nothing was saved.
        failed({ key: 'question.fileUpload.failedStore' });
      } else if (xhr.status === 409) {
        hooks.ended();
      } else if (xhr.status === 401 || xhr.status === 403) {
        failed(SESSION);
      } else {
        failed(serverFailure(xhr));
      }
    });
    xhr.addEventListener('error', () => failed(CONNECTION));
    progress.value = 0;
    progress.hidden = false;
    box.setAttribute('aria-busy', 'true');
    statusEl.textContent = t('question.fileUpload.uploading', { name: file.name });
  }

  // With S3 storage the file goes straight to the bucket: presign (the server signs this length, and the
  // SHA-256 computed here, which S3 checks against the bytes), PUT with exactly the signed headers, then
  // record (the server checks the stored file and makes it the answer). The API never carries the file.
  function postJson(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': hooks.csrfToken },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  }

  async function uploadDirect(fs, file, version) {
    const q = fs.dataset.questionId;
    const box = fs.querySelector('.file-answer');
    const fail = (why) => {
      box.querySelector('.file-error').textContent = failure(file.name, box, why);
      box.querySelector('.file-status').textContent = '';
    };
    box.querySelector('.file-status').textContent = t('question.fileUpload.preparing', { name: file.name });
    let signed;
    try {
      const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
      const sha256 = btoa(String.fromCharCode(...new Uint8Array(digest)));
      const res = await postJson(`${hooks.base}/files/${encodeURIComponent(q)}/uploads`, { bytes: file.size, contentType: file.type || 'application/octet-stream', fileName: file.name, version, sha256 });
      if (res.status === 409) return hooks.ended();
      if (res.status === 401 || res.status === 403) return fail(SESSION);
      if (!res.ok) return fail(serverFailure({ responseText: await res.text(), status: res.status }));
      signed = await res.json();
    } catch {
      return fail(CONNECTION);
    }
    const xhr = new XMLHttpRequest();
    xhr.open(signed.upload.method, signed.upload.url);
    for (const [name, value] of Object.entries(signed.upload.headers)) xhr.setRequestHeader(name, value);
    watch(fs, file, xhr, async () => {
      // The bytes are in the bucket: the record makes them the answer (a lost answer is asked again once).
      let res;
      for (let tries = 0; tries < 2; tries++) {
        try {
          res = await postJson(`${hooks.base}/files/uploads/record`, { key: signed.key });
          if (res.status < 500) break;
        } catch {
          res = null;
        }
      }
      if (!res) throw new UploadFailure(CONNECTION);
      if (res.status === 409) {
        hooks.ended();
        throw new UploadFailure({ key: 'question.fileUpload.failedOver' });
      }
      if (!res.ok) throw new UploadFailure(serverFailure({ responseText: await res.text(), status: res.status }));
      return res.json();
    }, true);
    xhr.send(file);
  }

  function remove(fs) {
    if (!hooks || hooks.isClosed()) return;
    const box = fs.querySelector('.file-answer');
    showFile(fs, null);
    box.querySelector('.file-error').textContent = '';
    box.querySelector('.file-status').textContent = t('question.fileUpload.removed');
    box.querySelector('.file-input').focus();
    fs.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function attach(h) {
    hooks = h;
    const answers = document.getElementById('answers');
    // Each registered type's question (or composite part) binds its behaviour once.
    for (const fs of answers.querySelectorAll('fieldset[data-type]')) {
      const impl = registered.get(fs.dataset.type);
      if (impl && impl.setup) impl.setup(fs);
    }
    answers.addEventListener('click', (event) => {
      const button = event.target.closest && event.target.closest('button');
      if (!button) return;
      const fs = button.closest('fieldset.question');
      if (button.classList.contains('file-remove')) remove(fs);
    });
    answers.addEventListener('change', (event) => {
      if (event.target.type === 'file') upload(event.target.closest('fieldset.question'), event.target);
    });
  }

  // showFile: the file upload's part (question-types/file-upload/student.js) shows a removal restored on reload.
  // isClosed: the ordering question's moves (question-types/ordering/student.js) stop once the test is closed.
  window.assayFields = { read, write, isAnswered, isTyped, updateWordCount, showFile, attach, isClosed: () => Boolean(hooks && hooks.isClosed()) };
})();
