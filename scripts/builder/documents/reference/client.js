// The reference page's script (builder/documents/reference.ts inlines it): everything that depends on the
// records is asked of this page's own origin while it is open, never written into the page.
(() => {
  const main = document.querySelector('main');
  const form = document.getElementById('try-form');
  const pageSize = Number(main.dataset.pageSize);

  const show = (element, text) => {
    element.textContent = text;
    element.hidden = false;
  };

  async function getJson(path) {
    const response = await fetch(path, { cache: 'no-store', headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return response.json();
  }

  // The texture pages are as many as this build's texture count makes them.
  getJson(main.dataset.textures).then(
    (first) => {
      const pages = Math.max(1, Math.ceil(first.count / pageSize));
      for (const span of document.querySelectorAll('[data-page-count]')) {
        span.textContent = `${pages} (this build: ${first.count} textures, ${pageSize} a page)`;
      }
      const last = form.elements.page.querySelector('option[value="last"]');
      for (let page = 1; page <= pages; page += 1) {
        const option = new Option(String(page), String(page));
        form.elements.page.insertBefore(option, last);
      }
    },
    () => {},
  );

  for (const details of document.querySelectorAll('details.example')) {
    details.addEventListener('toggle', async () => {
      if (!details.open || details.dataset.loaded) return;
      details.dataset.loaded = 'yes';
      const pre = details.querySelector('[data-example-body]');
      try {
        const body = await getJson(details.dataset.path);
        const records = Array.isArray(body) ? body : body.results;
        const total = Array.isArray(body) ? body.length : body.count;
        pre.textContent =
          records.length === 0
            ? 'The list is empty in this build.'
            : `// record 1 of ${total}\n${JSON.stringify(records[0], null, 2)}`;
      } catch (error) {
        pre.textContent = String(error.message);
      }
    });
  }

  // A parameter's label names the paths it applies to in data-for, separated by spaces.
  const appliesTo = (label, path) => label.dataset.for.split(' ').includes(path);

  function requestUrl() {
    const path = form.elements.path.value;
    const query = new URLSearchParams();
    if (form.elements.format.value) query.set('format', form.elements.format.value);
    // In the form's order; a control's data-param, where it has one, is the parameter it sends.
    for (const label of form.querySelectorAll('label[data-for]')) {
      const control = label.querySelector('select, input');
      if (appliesTo(label, path) && control.value) query.set(control.dataset.param ?? control.name, control.value);
    }
    const search = query.toString();
    return search ? `${path}?${search}` : path;
  }

  function update() {
    for (const label of form.querySelectorAll('label[data-for]')) {
      label.hidden = !appliesTo(label, form.elements.path.value);
    }
    const url = document.createElement('code');
    url.textContent = `${form.elements.method.value} ${requestUrl()}`;
    form.elements.url.replaceChildren(url);
  }

  form.addEventListener('change', update);
  form.addEventListener('input', update);
  update();

  for (const button of document.querySelectorAll('button[data-try]')) {
    button.addEventListener('click', () => {
      form.elements.path.value = button.dataset.try;
      update();
      document.getElementById('try').scrollIntoView();
      form.elements.path.focus();
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const method = form.elements.method.value;
    const url = requestUrl();
    const status = document.getElementById('answer-status');
    const headers = document.getElementById('answer-headers');
    const body = document.getElementById('answer-body');
    status.textContent = `Sending ${method} ${url}…`;
    headers.hidden = true;
    body.hidden = true;
    let response;
    try {
      response = await fetch(url, { method, cache: 'no-store', redirect: 'manual' });
    } catch (error) {
      status.textContent = `${method} ${url} failed: ${error.message}`;
      return;
    }
    status.textContent = `${method} ${url}: ${response.status} ${response.statusText}`;
    const rows = [...response.headers].map(([name, value]) => {
      const row = document.createElement('tr');
      const key = document.createElement('th');
      key.scope = 'row';
      key.textContent = name;
      const cell = document.createElement('td');
      cell.textContent = value;
      row.append(key, cell);
      return row;
    });
    headers.tBodies[0].replaceChildren(...rows);
    headers.hidden = false;
    const text = await response.text();
    if (method === 'HEAD') return show(body, '(HEAD: no body)');
    try {
      show(body, JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      show(body, text);
    }
  });
})();
