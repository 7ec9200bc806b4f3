import { Router } from 'express';

/** `/openapi.json` and a browsable `/docs` page that needs nothing from the internet. */
export function createApiDocsRouter(document: object): Router {
  const router = Router();
  const body = JSON.stringify(document);
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  router.get('/docs', (_req, res) => {
    res.type('text/html').send(DOCS_PAGE);
  });
  return router;
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sms-gateway API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}code,pre{background:#f4f4f4}
pre{padding:.5em;overflow:auto}h2{border-bottom:1px solid #ddd}.m{font-weight:bold;text-transform:uppercase;margin-right:.5em}</style></head>
<body><h1>sms-gateway API</h1><p>The machine-readable document: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p><div id="ops">Loading…</div>
<script>
fetch('openapi.json').then(r => r.json()).then(doc => {
  const out = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    const body = op.requestBody && Object.values(op.requestBody.content)[0].schema.$ref;
    out.push('<h2><span class="m">' + method + '</span><code>' + path + '</code></h2><p>' + (op.summary || '') + '</p>' +
      (body ? '<p>Body: <code>' + body.split('/').pop() + '</code></p>' : '') +
      '<p>Responses: ' + Object.keys(op.responses).join(', ') + '</p>');
  }
  out.push('<h2>Schemas</h2>');
  for (const [name, schema] of Object.entries(doc.components.schemas)) out.push('<h3>' + name + '</h3><pre>' + JSON.stringify(schema, null, 2).replace(/</g, '&lt;') + '</pre>');
  document.getElementById('ops').innerHTML = out.join('');
});
</script></body></html>`;
